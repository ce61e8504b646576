"""The one HTTP helper every remote adapter uses: timeouts, a response size cap, retries only when idempotent.

Errors come back as ProviderError with the request URI (never the API key), so the hub can
record them and the agent gets a clear message.
"""

from __future__ import annotations

import json
import threading
import time
from typing import Any

import httpx

from providers.base import Provider, ProviderError, Receipt

DEFAULT_TIMEOUT = 10.0
DEFAULT_MAX_BYTES = 8 * 1024 * 1024
IDEMPOTENT = {"GET", "HEAD", "PUT", "DELETE", "OPTIONS"}
_SECRET_HEADER_HINTS = ("auth", "key", "token", "secret", "cookie")
_REQUIRED = object()


class HttpClient:
    """A small wrapper over httpx.Client bound to one endpoint and its auth headers."""

    def __init__(self, endpoint: str, headers: dict[str, str] | None = None, *, timeout: float = DEFAULT_TIMEOUT,
                 max_bytes: int = DEFAULT_MAX_BYTES, retries: int = 2, transport: httpx.BaseTransport | None = None):
        if not endpoint:
            raise ProviderError("endpoint is not configured", permanent=True)
        if not endpoint.startswith(("http://", "https://")):
            raise ProviderError(f"endpoint must start with http:// or https://, got {endpoint!r}", permanent=True)
        self.endpoint = endpoint.rstrip("/")
        self.timeout = timeout
        self.max_bytes = max_bytes
        self.retries = retries
        self._secrets = _secret_values(headers or {})
        self._cancelled = threading.Event()
        self._lock = threading.Lock()
        self._waiting: set[threading.Event] = set()
        self._client = httpx.Client(
            base_url=self.endpoint, headers=headers or {}, timeout=httpx.Timeout(timeout),
            follow_redirects=False, transport=transport,
        )

    def close(self) -> None:
        self._client.close()

    def cancel(self) -> None:
        """Abort in-flight requests (from another thread) and refuse new ones; the hub calls this on shutdown."""
        self._cancelled.set()
        with self._lock:
            for waiting in self._waiting:
                waiting.set()
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
            if attempt and self._cancelled.wait(min(0.2 * 2 ** attempt, 2.0)):
                break
            try:
                return self._guarded(method, path, uri, json_body, params, expect_json, ok)
            except ProviderError as exc:
                last_error = self._scrub(exc)
                if exc.permanent or not getattr(exc, "retryable", False):
                    raise last_error from exc.__cause__
        if last_error is None or self._cancelled.is_set():
            raise ProviderError(f"{method} {uri} cancelled", uri=uri)
        raise last_error

    def _guarded(self, method, path, uri, json_body, params, expect_json, ok):
        """One attempt, run on a worker thread so cancel() releases the caller at once.

        httpx cannot interrupt a blocked read from another thread; the abandoned worker ends at its own timeout.
        """
        if self._cancelled.is_set():
            raise ProviderError(f"{method} {uri} cancelled", uri=uri)
        outcome: dict[str, Any] = {}
        done = threading.Event()

        def attempt() -> None:
            try:
                outcome["value"] = self._once(method, path, uri, json_body, params, expect_json, ok)
            except Exception as exc:  # handed to the caller below
                outcome["error"] = exc
            finally:
                done.set()

        with self._lock:
            self._waiting.add(done)
        try:
            threading.Thread(target=attempt, daemon=True, name=f"http {method} {path}").start()
            done.wait()
        finally:
            with self._lock:
                self._waiting.discard(done)
        if self._cancelled.is_set() or not outcome:
            raise ProviderError(f"{method} {uri} cancelled", uri=uri)
        error = outcome.get("error")
        if error is None:
            return outcome["value"]
        if isinstance(error, ProviderError):
            raise error
        raise ProviderError(f"{method} {uri} failed: {type(error).__name__}", uri=uri) from error

    def _scrub(self, exc: ProviderError) -> ProviderError:
        """Return the error with any credential the upstream echoed back masked out of its text."""
        message = exc.message
        for secret in self._secrets:
            message = message.replace(secret, "***")
        if message != exc.message:
            exc.message = message
            exc.args = (message,)
        return exc

    def _once(self, method, path, uri, json_body, params, expect_json, ok):
        try:
            with self._client.stream(method, path, json=json_body, params=params) as response:
                body = self._read_capped(response, uri)
        except httpx.TimeoutException as exc:
            # Not retried: a slow upstream stays slow, and retries would multiply the caller's wait.
            raise ProviderError(f"{method} {uri} timed out", timeout=True, uri=uri) from exc
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
        deadline = time.monotonic() + self.timeout
        for chunk in response.iter_bytes():
            size += len(chunk)
            if size > self.max_bytes:
                raise ProviderError(f"{uri} answered more than the {self.max_bytes}-byte cap", uri=uri)
            if time.monotonic() > deadline:
                raise ProviderError(f"{uri} body took longer than {self.timeout:g}s", timeout=True, uri=uri)
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


def client_from_config(config: dict[str, Any], headers: dict[str, str], *, endpoint: str | None = None,
                       **kw: Any) -> HttpClient:
    """An HttpClient for an adapter's merged config: `endpoint`, plus the hub's `_timeout` and `_max_bytes`."""
    try:
        timeout = float(config.get("_timeout") or DEFAULT_TIMEOUT)
        max_bytes = int(config.get("_max_bytes") or DEFAULT_MAX_BYTES)
    except (TypeError, ValueError) as exc:
        raise ProviderError("_timeout and _max_bytes must be numbers", permanent=True) from exc
    endpoint = config.get("endpoint") if endpoint is None else endpoint
    return HttpClient(str(endpoint or "").strip(), headers, timeout=timeout, max_bytes=max_bytes, **kw)


def failed_write(exc: ProviderError) -> Receipt:
    """The receipt for a write request that errored: "failed" only when the upstream refused it outright.

    A timeout, a dropped connection or a 5xx never proves that nothing was stored, so those are "unknown".
    Permanent errors (bad credentials) are re-raised so the hub disables the service.
    """
    if exc.permanent:
        raise exc
    status = getattr(exc, "status", None)
    state = "failed" if status is not None and 400 <= status < 500 and status != 429 else "unknown"
    return Receipt(state, uri=exc.uri, error=exc.message, detail={"status": status} if status else {})


def expect(value: Any, kind: type | tuple[type, ...], what: str) -> Any:
    """Return `value` if it has the type the API documents, else raise ProviderError naming the field."""
    if isinstance(value, bool) and bool not in (kind if isinstance(kind, tuple) else (kind,)):
        raise ProviderError(f"unexpected upstream data: {what} is a boolean")
    if not isinstance(value, kind):
        raise ProviderError(f"unexpected upstream data: {what} is {type(value).__name__}")
    return value


def pick(obj: Any, key: str, kind: type | tuple[type, ...], what: str = "", default: Any = _REQUIRED) -> Any:
    """Read one field of an upstream JSON object; missing or mistyped fields raise ProviderError, never KeyError."""
    label = f"{what}.{key}" if what else key
    expect(obj, dict, what or "response")
    if key not in obj or obj[key] is None:
        if default is _REQUIRED:
            raise ProviderError(f"unexpected upstream data: {label} is missing")
        return default
    return expect(obj[key], kind, label)


def text_id(obj: Any, key: str = "id", what: str = "") -> str:
    """A provider id as a non-empty string (APIs send strings or integers)."""
    value = pick(obj, key, (str, int), what)
    if value == "":
        raise ProviderError(f"unexpected upstream data: {what or 'response'}.{key} is empty")
    return str(value)


def _secret_values(headers: dict[str, str]) -> set[str]:
    """Credential strings carried in headers, with and without their scheme word, to mask in messages."""
    found: set[str] = set()
    for name, value in headers.items():
        if any(hint in name.lower() for hint in _SECRET_HEADER_HINTS) and value:
            found.add(value)
            token = value.split(" ", 1)[-1].strip()
            if len(token) >= 4:
                found.add(token)
    return found


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


class HttpProvider(Provider):
    """An adapter that speaks HTTP: one client, built on first use with the kind's auth headers, closed by close()."""

    def __init__(self, config: dict[str, Any] | None = None, space: Any = None):
        super().__init__(config, space)
        self._client: HttpClient | None = None

    def auth_headers(self) -> dict[str, str]:
        """The headers that authenticate every request (none by default)."""
        return {}

    def endpoint(self) -> str | None:
        """The base URL; None means the configured `endpoint`."""
        return None

    @property
    def http(self) -> HttpClient:
        if self._client is None:
            self._client = client_from_config(self.config, self.auth_headers(), endpoint=self.endpoint())
        return self._client

    def close(self) -> None:
        if self._client is not None:
            self._client.close()
            self._client = None

    def setting(self, key: str) -> str:
        """A required space setting, or a permanent error naming it."""
        value = str(self.config.get(key) or "").strip()
        if not value:
            raise ProviderError(f"{self.label} space setting {key!r} is missing", permanent=True)
        return value

    def api_key(self, required: bool = True) -> str:
        """The configured key, without a pasted "Bearer " prefix."""
        key = str(self.config.get("apiKey") or "").strip()
        key = key[len("bearer "):].strip() if key.lower().startswith("bearer ") else key
        if required and not key:
            raise ProviderError(f"{self.label} needs an API key", permanent=True)
        return key
