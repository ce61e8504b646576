"""The sync side of MCP: the same token auth, session service, operations and error codes as /api/v1 (in a thread)."""

from __future__ import annotations

from django.db import close_old_connections

from memoryhub.access.call import Call
from memoryhub.agents.auth import admit
from memoryhub.agents.models import ApiToken
from memoryhub.operations import registry


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
    return admit(authorization)


@fresh_connections
def call_tool(token: ApiToken, name: str, session_id: str, arguments: dict) -> dict:
    """POST /api/v1/tools/{name} (or /turns, /context for memory_turn, memory_context), minus HTTP."""
    operation = registry.tool(name, registry.MCP_TOOLS)
    result, _ = registry.run(operation.name, Call(token, arguments), session_id, arguments)
    return result


@fresh_connections
def context(token: ApiToken, arguments: dict) -> dict:
    """POST /api/v1/context, for the MCP prompt and resource that offer its block."""
    result, _ = registry.run("memory_context", Call(token, arguments), "", arguments)
    return result


@fresh_connections
def finish_session(token: ApiToken, session_id: str) -> int:
    """POST /api/v1/sessions/{id}/end for an MCP session the client closed; returns the grants expired."""
    result, _ = registry.run("session_end", Call(token), session_id, {})
    return result["expired_grants"]
