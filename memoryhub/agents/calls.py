"""What every agent call shares, whichever face it arrives by (/api/v1 or /mcp): the body cap, the error mapping."""

from __future__ import annotations

import logging

from memoryhub.core.errors import ApiError
from memoryhub.core.http import without_endpoints
from providers.base import ProviderError

log = logging.getLogger(__name__)
MAX_BODY = 1024 * 1024  # bytes of one request body; docs/api.md: over it is 413 too_large


def api_error(exc: Exception, where: str) -> ApiError:
    """Any failure as the agent is told it: ApiError as is, provider failures as 502/504 (naming no internal
    address: the provider's URL is for people on the dashboard), the rest as `internal`.

    The rest is logged with its traceback (`where` says which call); the agent never sees one."""
    if isinstance(exc, ApiError):
        return exc
    if isinstance(exc, ProviderError):
        return ApiError("provider_timeout" if exc.timeout else "provider_error", without_endpoints(exc.message))
    log.error("unhandled error in %s", where, exc_info=exc)
    return ApiError("internal", "internal error; the hub's log has details")
