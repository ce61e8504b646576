"""The one exception the client raises, carrying the API's error code, HTTP status and faulty field."""

from __future__ import annotations

RETRYABLE_CODES = {"unavailable", "timeout", "rate_limited", "internal", "provider_error", "provider_timeout"}


class MemoryHubError(Exception):
    """An API error (`code` as in API.md), or `unavailable`/`timeout` when the hub could not be reached."""

    def __init__(self, code: str, message: str, status: int | None = None, field: str | None = None):
        super().__init__(f"{code}: {message}" + (f" (field {field})" if field else ""))
        self.code = code
        self.message = message
        self.status = status
        self.field = field

    @property
    def retryable(self) -> bool:
        """True when the same call may succeed later (hub down, overloaded, provider trouble)."""
        return self.code in RETRYABLE_CODES
