"""The one exception the client raises, carrying the API's error code, HTTP status and faulty field."""

from __future__ import annotations

RETRYABLE_CODES = {"unavailable", "timeout", "rate_limited", "internal", "provider_error", "provider_timeout"}
SETUP_FIELDS = {"space", "workspace"}


class MemoryHubError(Exception):
    """An API error (`code` as in API.md), or `unavailable`/`timeout` when the hub could not be reached."""

    def __init__(self, code: str, message: str, status: int | None = None, field: str | None = None,
                 retry_after: float | None = None):
        super().__init__(f"{code}: {message}" + (f" (field {field})" if field else ""))
        self.code = code
        self.message = message
        self.status = status
        self.field = field
        self.retry_after = retry_after

    @property
    def retryable(self) -> bool:
        """True when the same call may succeed later (hub down, overloaded, provider trouble)."""
        return self.code in RETRYABLE_CODES

    @property
    def about_setup(self) -> bool:
        """True when every write would be refused alike until a person fixes the token, space or workspace."""
        return self.code in ("unauthorized", "paused") or (
            self.field in SETUP_FIELDS and self.code in {"bad_request", "forbidden", "not_found"})

    def as_dict(self) -> dict[str, str]:
        """The API's error shape: {"code", "message", "field"?}."""
        return {"code": self.code, "message": self.message, **({"field": self.field} if self.field else {})}
