"""The sync side of MCP: the same token auth, Call, tool registry and error codes as /api/v1 (run in a thread)."""

from __future__ import annotations

import logging
from types import SimpleNamespace

from django.db import close_old_connections, transaction
from django.utils import timezone

from memoryhub.api import tools
from memoryhub.api.endpoint import Call, authenticate, rate_limit
from memoryhub.api.errors import ApiError
from memoryhub.api.models import AgentSession, ApiToken
from memoryhub.vault.grants import end_session
from providers.base import ProviderError

log = logging.getLogger(__name__)


def api_error(exc: Exception) -> ApiError:
    """Any failure as the API's error: ApiError as is, provider failures as 502/504, the rest as `internal`."""
    if isinstance(exc, ApiError):
        return exc
    if isinstance(exc, ProviderError):
        return ApiError("provider_timeout" if exc.timeout else "provider_error", exc.message)
    log.error("unhandled error in an MCP tool call", exc_info=exc)
    return ApiError("internal", "internal error; the hub's log has details")


def fresh_connections(work):
    """Run `work` between close_old_connections calls, as Django does around each request."""

    def wrapped(*args, **kwargs):
        close_old_connections()
        try:
            return work(*args, **kwargs)
        finally:
            close_old_connections()

    return wrapped


@fresh_connections
def authorize(authorization: str) -> ApiToken:
    """The token behind an Authorization header, rate-limited like every API call; raises ApiError."""
    token = authenticate(SimpleNamespace(headers={"Authorization": authorization}))
    rate_limit(token)
    return token


@fresh_connections
def call_tool(token: ApiToken, name: str, session_id: str, arguments: dict) -> dict:
    """POST /api/v1/tools/{name}, minus HTTP: the session is seen, the handler runs in one transaction."""
    if name not in tools.TOOLS:
        raise ApiError("not_found", f"no tool {name!r}")
    call = Call(token, {"session_id": session_id, "arguments": arguments})
    call.session(session_id)
    with transaction.atomic():
        return tools.run(call, name, session_id, arguments)


@fresh_connections
def finish_session(token: ApiToken, session_id: str) -> int:
    """POST /api/v1/sessions/{id}/end for an MCP session the client closed; returns the grants expired."""
    AgentSession.objects.filter(token=token, session_id=session_id, ended_at__isnull=True).update(
        ended_at=timezone.now())
    return end_session(token, session_id)
