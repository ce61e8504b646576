"""The one HTTP client for every outside service (providers, models, embeddings): timeouts, a body cap, retries
only when idempotent, cancellation, and credentials masked out of every error.

Errors are UpstreamError with the request URI (never the key), the HTTP status when there was one,
whether a retry may help and whether the request may have taken effect anyway. Nothing here knows
about providers or Django, so every layer may use it. A CancelScope cancels every client made inside
it at once: a job runs in one, so a person's cancel releases it even while it waits on a provider.
"""

from __future__ import annotations

import json
import re
import threading
import time
import weakref
from collections.abc import Callable, Iterable
from contextvars import ContextVar
from typing import Any, TypeVar

import httpx

from memoryhub.core.redaction import mask_near


_ENDPOINT = re.compile(r"\bhttps?://[^\s/\"'<>]+(\S*)")


def without_endpoints(text: str) -> str:
    """`text` with every URL's scheme and host taken out, its path kept: what an agent is told about an outside
    service's failure names no internal address (people on the dashboard still see the whole message)."""
    return _ENDPOINT.sub(lambda m: m.group(1) or "the service", text)


class UpstreamError(Exception):
    """Anything that went wrong talking to an outside service.

    `permanent`: retrying will not help until someone fixes the config (bad credentials, a missing bank);
    the hub disables the service. `timeout`: no answer in time. `status`: the HTTP status, if any.
    `retryable`: the same request may succeed later (connection errors, 5xx, 429).
    `unknown_outcome`: the request may have taken effect even though it failed (a write cut off mid-way).
    """

    def __init__(self, message: str, permanent: bool = False, timeout: bool = False, uri: str = "", *,
                 status: int | None = None, retryable: bool = False, unknown_outcome: bool = False):
        super().__init__(message)
        self.message = message
        self.permanent = permanent
        self.timeout = timeout
        self.uri = uri
        self.status = status
        self.retryable = retryable
        self.unknown_outcome = unknown_outcome


DEFAULT_TIMEOUT = 10.0
DEFAULT_MAX_BYTES = 8 * 1024 * 1024
IDEMPOTENT = {"GET", "HEAD", "PUT", "DELETE", "OPTIONS"}
_SECRET_HEADER_HINTS = ("auth", "key", "token", "secret", "cookie")
_REQUIRED = object()
T = TypeVar("T")


class CancelScope:
    """`with CancelScope() as scope:` — every HttpClient made inside it (in this thread) can be cancelled at once
    from another thread with `scope.cancel()`, and one made after that is born cancelled."""

    def __init__(self):
        self.cancelled = threading.Event()
        self._lock = threading.Lock()
        self._clients: weakref.WeakSet[HttpClient] = weakref.WeakSet()
        self._token = None

    def __enter__(self) -> "CancelScope":
        self._token = _current_scope.set(self)
        return self

    def __exit__(self, *exc: Any) -> None:
        _current_scope.reset(self._token)

    @classmethod
    def child(cls) -> "CancelScope":
        """A scope of its own that the current one (a job's, say) also cancels: for calls made on other threads."""
        scope = cls()
        outer = _current_scope.get()
        if outer is not None:
            outer.adopt(scope)
        return scope

    def adopt(self, client: "HttpClient | CancelScope") -> None:
        with self._lock:
            if not self.cancelled.is_set():
                self._clients.add(client)
                return
        client.cancel()

    def cancel(self) -> None:
        with self._lock:
            self.cancelled.set()
            clients = list(self._clients)
        for client in clients:
            client.cancel()


_current_scope: ContextVar[CancelScope | None] = ContextVar("memoryhub_cancel_scope", default=None)


def outside_any_scope(make: Callable[[], T]) -> T:
    """Make a long-lived client (a process-wide cache) that no job's cancel may close, even inside a job."""
    token = _current_scope.set(None)
    try:
        return make()
    finally:
        _current_scope.reset(token)


class HttpClient:
    """A small wrapper over httpx.Client bound to one endpoint and its auth headers."""

    def __init__(self, endpoint: str, headers: dict[str, str] | None = None, *, timeout: float = DEFAULT_TIMEOUT,
                 max_bytes: int = DEFAULT_MAX_BYTES, retries: int = 2, transport: httpx.BaseTransport | None = None,
                 secrets: Iterable[str] = ()):
        if not endpoint:
            raise UpstreamError("endpoint is not configured", permanent=True)
        if not endpoint.startswith(("http://", "https://")):
            raise UpstreamError(f"endpoint must start with http:// or https://, got {endpoint!r}", permanent=True)
        self.endpoint = endpoint.rstrip("/")
        self.timeout = timeout
        self.max_bytes = max_bytes
        self.retries = retries
        self._secrets = _secret_values(headers or {}) | {str(s) for s in secrets if s}
        self._cancelled = threading.Event()
        self._lock = threading.Lock()
        self._waiting: set[threading.Event] = set()
        self._client = httpx.Client(
            base_url=self.endpoint, headers=headers or {}, timeout=httpx.Timeout(timeout),
            follow_redirects=False, transport=transport,
        )
        scope = _current_scope.get()
        if scope is not None:
            scope.adopt(self)

    def close(self) -> None:
        self._client.close()

    def cancel(self) -> None:
        """Abort in-flight requests (from another thread) and refuse new ones: on shutdown, or when a person
        cancels the job waiting on them (CancelScope)."""
        self._cancelled.set()
        with self._lock:
            for waiting in self._waiting:
                waiting.set()
        self._client.close()

    @property
    def cancelled(self) -> bool:
        return self._cancelled.is_set()

    def pause(self, seconds: float) -> bool:
        """Sleep between a caller's own retries; True when the client was cancelled meanwhile."""
        return self._cancelled.wait(seconds)

    def __enter__(self) -> "HttpClient":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def request(self, method: str, path: str, *, json_body: Any = None, params: dict | None = None,
                retry: bool | None = None, expect_json: bool = True, ok: tuple[int, ...] = (),
                timeout: float | None = None) -> Any:
        """Send one request; return parsed JSON (or text when expect_json is False).

        Retries (with a short backoff) connection errors and 5xx only when the method is
        idempotent or `retry=True` says the caller knows the request is safe to repeat.
        `timeout` replaces the client's own for this request.
        """
        method = method.upper()
        may_retry = (method in IDEMPOTENT) if retry is None else retry
        attempts = 1 + (self.retries if may_retry else 0)
        uri = f"{self.endpoint}{path}"
        last_error: UpstreamError | None = None
        for attempt in range(attempts):
            if attempt and self._cancelled.wait(min(0.2 * 2 ** attempt, 2.0)):
                break
            try:
                return self._guarded(method, path, uri, json_body, params, expect_json, ok, timeout or self.timeout)
            except UpstreamError as exc:
                last_error = self._scrub(exc)
                if exc.permanent or not exc.retryable:
                    raise last_error from exc.__cause__
        if last_error is None or self._cancelled.is_set():
            raise UpstreamError(f"{method} {uri} cancelled", uri=uri)
        raise last_error

    def _guarded(self, method, path, uri, json_body, params, expect_json, ok, timeout):
        """One attempt, run on a worker thread so cancel() releases the caller at once.

        httpx cannot interrupt a blocked read from another thread; the abandoned worker ends at its own timeout.
        """
        if self._cancelled.is_set():
            raise UpstreamError(f"{method} {uri} cancelled", uri=uri)
        outcome: dict[str, Any] = {}
        done = threading.Event()

        def attempt() -> None:
            try:
                outcome["value"] = self._once(method, path, uri, json_body, params, expect_json, ok, timeout)
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
            raise UpstreamError(f"{method} {uri} cancelled", uri=uri)
        error = outcome.get("error")
        if error is None:
            return outcome["value"]
        if isinstance(error, UpstreamError):
            raise error
        raise UpstreamError(f"{method} {uri} failed: {type(error).__name__}", uri=uri) from error

    def _scrub(self, exc: UpstreamError) -> UpstreamError:
        """Return the error with any credential the upstream echoed back masked out of its text, also when it
        came back upper-cased or cut (redaction.mask_near)."""
        message = exc.message
        for secret in self._secrets:
            message = message.replace(secret, "***")
        message = mask_near(message, self._secrets)
        if message != exc.message:
            exc.message = message
            exc.args = (message,)
        return exc

    def _once(self, method, path, uri, json_body, params, expect_json, ok, timeout):
        try:
            with self._client.stream(method, path, json=json_body, params=params,
                                     timeout=httpx.Timeout(timeout)) as response:
                body = self._read_capped(response, uri, timeout)
        except httpx.TimeoutException as exc:
            # Not retried: a slow upstream stays slow, and retries would multiply the caller's wait.
            raise UpstreamError(f"{method} {uri} timed out", timeout=True, uri=uri, unknown_outcome=True) from exc
        except httpx.TransportError as exc:
            # A refused connection sent nothing; a connection dropped later may have delivered the request.
            raise UpstreamError(f"{method} {uri} failed: {type(exc).__name__}", uri=uri, retryable=True,
                                unknown_outcome=not isinstance(exc, httpx.ConnectError)) from exc
        status = response.status_code
        if 300 <= status < 400 and status not in ok:
            # Never followed: an API answers its own routes, so a redirect means the endpoint is wrong (a login
            # page, http -> https), and its target's 200 would say nothing about what the request did.
            raise UpstreamError(f"{method} {uri} answered {status}, a redirect: check that the endpoint is the "
                                "API's own base URL", uri=uri, status=status)
        if status >= 400 and status not in ok:
            detail = _error_detail(body)
            raise UpstreamError(f"{method} {uri} answered {status}{': ' + detail if detail else ''}",
                                permanent=status in (401, 403), uri=uri, status=status,
                                retryable=status >= 500 or status == 429, unknown_outcome=status >= 500)
        if not expect_json:
            return body.decode("utf-8", errors="replace")
        if not body.strip():
            return None
        try:
            return json.loads(body)
        except ValueError as exc:
            raise UpstreamError(f"{method} {uri} answered malformed JSON", uri=uri) from exc

    def _read_capped(self, response: httpx.Response, uri: str, timeout: float) -> bytes:
        declared = response.headers.get("content-length")
        if declared and declared.isascii() and declared.isdigit() and int(declared) > self.max_bytes:
            raise UpstreamError(f"{uri} answered {declared} bytes, over the {self.max_bytes}-byte cap", uri=uri)
        chunks: list[bytes] = []
        size = 0
        deadline = time.monotonic() + timeout
        for chunk in response.iter_bytes():
            size += len(chunk)
            if size > self.max_bytes:
                raise UpstreamError(f"{uri} answered more than the {self.max_bytes}-byte cap", uri=uri)
            if time.monotonic() > deadline:
                raise UpstreamError(f"{uri} body took longer than {timeout:g}s", timeout=True, uri=uri,
                                    unknown_outcome=True)
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
