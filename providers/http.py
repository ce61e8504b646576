"""The one HTTP helper every remote adapter uses: timeouts, a response size cap, retries only when idempotent.

Errors come back as ProviderError with the request URI (never the API key), so the hub can
record them and the agent gets a clear message.
"""

from __future__ import annotations

import json
import time
from typing import Any

import httpx

from providers.base import ProviderError

DEFAULT_TIMEOUT = 10.0
DEFAULT_MAX_BYTES = 8 * 1024 * 1024
IDEMPOTENT = {"GET", "HEAD", "PUT", "DELETE", "OPTIONS"}


class HttpClient:
    """A small wrapper over httpx.Client bound to one endpoint and its auth headers."""

    def __init__(self, endpoint: str, headers: dict[str, str] | None = None, *, timeout: float = DEFAULT_TIMEOUT,
                 max_bytes: int = DEFAULT_MAX_BYTES, retries: int = 2, transport: httpx.BaseTransport | None = None):
        if not endpoint:
            raise ProviderError("endpoint is not configured", permanent=True)
        if not endpoint.startswith(("http://", "https://")):
            raise ProviderError(f"endpoint must start with http:// or https://, got {endpoint!r}", permanent=True)
        self.endpoint = endpoint.rstrip("/")
        self.max_bytes = max_bytes
        self.retries = retries
        self._client = httpx.Client(
            base_url=self.endpoint, headers=headers or {}, timeout=httpx.Timeout(timeout),
            follow_redirects=False, transport=transport,
        )

    def close(self) -> None:
        self._client.close()

    def __enter__(self) -> "HttpClient":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def request(self, method: str, path: str, *, json_body: Any = None, params: dict | None = None,
                retry: bool | None = None, expect_json: bool = True, ok: tuple[int, ...] = ()) -> Any:
        """Send one request; return parsed JSON (or text when expect_json is False).

        Retries (with a short backoff) connection errors and 5xx only when the method is
        idempotent or `retry=True` says the caller knows the request is safe to repeat.
        """
        method = method.upper()
        may_retry = (method in IDEMPOTENT) if retry is None else retry
        attempts = 1 + (self.retries if may_retry else 0)
        uri = f"{self.endpoint}{path}"
        last_error: ProviderError | None = None
        for attempt in range(attempts):
            if attempt:
                time.sleep(min(0.2 * 2 ** attempt, 2.0))
            try:
                return self._once(method, path, uri, json_body, params, expect_json, ok)
            except ProviderError as exc:
                last_error = exc
                if exc.permanent or not getattr(exc, "retryable", False):
                    raise
        assert last_error is not None
        raise last_error

    def _once(self, method, path, uri, json_body, params, expect_json, ok):
        try:
            with self._client.stream(method, path, json=json_body, params=params) as response:
                body = self._read_capped(response, uri)
        except httpx.TimeoutException as exc:
            error = ProviderError(f"{method} {uri} timed out", timeout=True, uri=uri)
            error.retryable = True
            raise error from exc
        except httpx.TransportError as exc:
            error = ProviderError(f"{method} {uri} failed: {type(exc).__name__}", uri=uri)
            error.retryable = True
            raise error from exc
        status = response.status_code
        if status >= 400 and status not in ok:
            detail = _error_detail(body)
            error = ProviderError(
                f"{method} {uri} answered {status}{': ' + detail if detail else ''}",
                permanent=status in (401, 403), uri=uri,
            )
            error.status = status
            error.retryable = status >= 500 or status == 429
            raise error
        if not expect_json:
            return body.decode("utf-8", errors="replace")
        if not body.strip():
            return None
        try:
            return json.loads(body)
        except ValueError as exc:
            raise ProviderError(f"{method} {uri} answered malformed JSON", uri=uri) from exc

    def _read_capped(self, response: httpx.Response, uri: str) -> bytes:
        declared = response.headers.get("content-length")
        if declared and declared.isdigit() and int(declared) > self.max_bytes:
            raise ProviderError(f"{uri} answered {declared} bytes, over the {self.max_bytes}-byte cap", uri=uri)
        chunks: list[bytes] = []
        size = 0
        for chunk in response.iter_bytes():
            size += len(chunk)
            if size > self.max_bytes:
                raise ProviderError(f"{uri} answered more than the {self.max_bytes}-byte cap", uri=uri)
            chunks.append(chunk)
        return b"".join(chunks)

    def get(self, path: str, **kw: Any) -> Any:
        return self.request("GET", path, **kw)

    def post(self, path: str, body: Any = None, **kw: Any) -> Any:
        return self.request("POST", path, json_body=body, **kw)

    def put(self, path: str, body: Any = None, **kw: Any) -> Any:
        return self.request("PUT", path, json_body=body, **kw)

    def delete(self, path: str, **kw: Any) -> Any:
        return self.request("DELETE", path, **kw)


def _error_detail(body: bytes) -> str:
    """A short, safe excerpt of an error body: the provider's message, never a wall of HTML."""
    text = body[:2000].decode("utf-8", errors="replace").strip()
    try:
        data = json.loads(text)
    except ValueError:
        return text[:200] if text and not text.startswith("<") else ""
    if isinstance(data, dict):
        for key in ("error", "message", "detail", "msg"):
            value = data.get(key)
            if isinstance(value, dict):
                value = value.get("message") or value.get("code")
            if value:
                return str(value)[:200]
    return text[:200]
