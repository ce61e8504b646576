"""What remote adapters share on top of the hub's HTTP client (memoryhub.core.http): a base class that builds
the client from a space's config, the receipt of a failed write, and readers for upstream JSON that turn
a missing or mistyped field into a ProviderError instead of a KeyError.
"""

from __future__ import annotations

from typing import Any

from memoryhub.core.http import DEFAULT_MAX_BYTES, DEFAULT_TIMEOUT, HttpClient
from providers.base import Provider, ProviderError, Receipt, SpaceConfigError

_REQUIRED = object()


def client_from_config(config: dict[str, Any], headers: dict[str, str], *, endpoint: str | None = None,
                       **kw: Any) -> HttpClient:
    """An HttpClient for an adapter's merged config: `endpoint`, plus the hub's `_timeout` and `_max_bytes`.

    `secrets` (the config's secret values) are masked out of every error, with the auth headers."""
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
    refused = exc.status is not None and 400 <= exc.status < 500 and exc.status != 429
    state = "failed" if refused and not exc.unknown_outcome else "unknown"
    return Receipt(state, uri=exc.uri, error=exc.message, detail={"status": exc.status} if exc.status else {})


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
            self._client = client_from_config(self.config, self.auth_headers(), endpoint=self.endpoint(),
                                              secrets=self.secret_values())
        return self._client

    def close(self) -> None:
        if self._client is not None:
            self._client.close()
            self._client = None

    def setting(self, key: str) -> str:
        """A required space setting, or a permanent error naming it."""
        value = str(self.config.get(key) or "").strip()
        if not value:
            raise SpaceConfigError(f"{self.label} space setting {key!r} is missing")
        return value

    def api_key(self, required: bool = True) -> str:
        """The configured key, without a pasted "Bearer " prefix."""
        key = str(self.config.get("apiKey") or "").strip()
        key = key[len("bearer "):].strip() if key.lower().startswith("bearer ") else key
        if required and not key:
            raise ProviderError(f"{self.label} needs an API key", permanent=True)
        return key
