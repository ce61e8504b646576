"""The sync side of MCP: the same token auth, session service, tool registry and error codes as /api/v1 (in a thread)."""

from __future__ import annotations

from django.db import close_old_connections

from memoryhub.access.call import Call
from memoryhub.agents import sessions
from memoryhub.agents.auth import admit
from memoryhub.agents.models import ApiToken
from memoryhub.tools import registry


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
    """POST /api/v1/tools/{name}, minus HTTP: the same lookup, session service and transaction."""
    tool = registry.get(name)
    call = Call(token, {"session_id": session_id, "arguments": arguments})
    return sessions.run(token, session_id, lambda: tool.run(call, session_id, arguments))


@fresh_connections
def finish_session(token: ApiToken, session_id: str) -> int:
    """POST /api/v1/sessions/{id}/end for an MCP session the client closed; returns the grants expired."""
    return sessions.end(token, session_id)
