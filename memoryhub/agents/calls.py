"""What every agent call shares, whichever face it arrives by (/api/v1 or /mcp): the body cap, the error mapping."""

from __future__ import annotations

import logging

from memoryhub.core import sql
from memoryhub.core.errors import ApiError
from memoryhub.core.http import without_endpoints
from providers.base import ProviderError

log = logging.getLogger(__name__)
MAX_BODY = 1024 * 1024  # bytes of one request body; docs/api.md: over it is 413 too_large
DRAIN_MAX = 16 * MAX_BODY  # how much of an oversized body a face reads (and drops) so its 413 reaches the client
BUSY_RETRY_AFTER = 5  # seconds an agent is told to wait after 503 busy


def api_error(exc: Exception, where: str) -> ApiError:
    """Any failure as the agent is told it: ApiError as is, provider failures as 502/504 (naming no internal
    address: the provider's URL is for people on the dashboard), a full disk as 507, a database another
    program kept locked as 503, the rest as `internal`.

    The rest is logged with its traceback (`where` says which call); the agent never sees one."""
    if isinstance(exc, ApiError):
        return exc
    if isinstance(exc, ProviderError):
        return ApiError("provider_timeout" if exc.timeout else "provider_error", without_endpoints(exc.message))
    if sql.out_of_space(exc):
        log.warning("a write in %s failed: the disk is full (%s)", where, exc)
        return ApiError("insufficient_storage", "the hub's disk is full, so this was not stored; reads still answer, "
                                                "and writes work again once space is freed")
    if sql.locked(exc):
        log.warning("a write in %s gave up waiting for the database's write lock (%s)", where, exc)
        return ApiError("busy", "another program held the database's write lock too long, so this was not stored; "
                                "retry", headers={"Retry-After": str(BUSY_RETRY_AFTER)})
    log.error("unhandled error in %s", where, exc_info=exc)
    return ApiError("internal", "internal error; the hub's log has details")
