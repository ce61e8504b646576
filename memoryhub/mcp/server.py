"""The MCP server: tools/list and tools/call over memoryhub.tools.registry, so a registered tool appears here too."""

from __future__ import annotations

import json
from typing import Any

import mcp_types as types
from asgiref.sync import sync_to_async
from mcp.server import Server, ServerRequestContext

from memoryhub import __version__
from memoryhub.agents.calls import api_error
from memoryhub.core.errors import ApiError, bad
from memoryhub.core.redaction import opaque_id
from memoryhub.mcp import bridge
from memoryhub.tools import registry

TOKEN_KEY = "memoryhub.token"  # the ASGI scope key the auth layer (app.py) puts the caller's ApiToken under
SESSION_HEADER = "x-memoryhub-session"
DEFAULT_SESSION = "mcp"
MAX_SESSION_ID = 200


def session_for(ctx: ServerRequestContext, arguments: dict[str, Any]) -> str:
    """The agent session of a call: a `session_id` argument, else X-MemoryHub-Session, else Mcp-Session-Id."""
    explicit = arguments.pop("session_id", None)
    if explicit is not None and not (isinstance(explicit, str) and explicit.strip()):
        raise bad("session_id must be a non-empty string", "session_id")
    headers = ctx.request.headers if ctx.request is not None else {}
    chosen = (explicit or headers.get(SESSION_HEADER) or headers.get("mcp-session-id") or DEFAULT_SESSION).strip()
    if len(chosen) > MAX_SESSION_ID:
        raise bad(f"session_id is longer than {MAX_SESSION_ID} characters", "session_id")
    return opaque_id(chosen)


def as_text(payload: dict[str, Any]) -> list[types.TextContent]:
    return [types.TextContent(text=json.dumps(payload, ensure_ascii=False))]


def error_result(error: ApiError) -> types.CallToolResult:
    """An ApiError as an MCP tool error carrying the API's {"error": {code, message, field?}}."""
    body = {"code": error.code, "message": error.message}
    if error.field:
        body["field"] = error.field
    return types.CallToolResult(content=as_text({"error": body}), structured_content={"error": body}, is_error=True)


async def list_tools(ctx: ServerRequestContext, params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
    return types.ListToolsResult(tools=[types.Tool(name=t.name, description=t.description, input_schema=t.parameters)
                                        for t in registry.TOOLS.values()])


async def call_tool(ctx: ServerRequestContext, params: types.CallToolRequestParams) -> types.CallToolResult:
    arguments = dict(params.arguments or {})
    try:
        token = ctx.request.scope.get(TOKEN_KEY) if ctx.request is not None else None
        if token is None:
            raise ApiError("unauthorized", "missing bearer token: send Authorization: Bearer <token>")
        session_id = session_for(ctx, arguments)
        result = await sync_to_async(bridge.call_tool, thread_sensitive=True)(token, params.name, session_id, arguments)
    except Exception as exc:  # a tool error is a result the model reads, never a crashed request
        return error_result(api_error(exc, f"the MCP tool call {params.name}"))
    return types.CallToolResult(content=as_text(result), structured_content=result)


def build_server() -> Server:
    return Server("memoryhub", version=__version__, on_list_tools=list_tools, on_call_tool=call_tool,
                  instructions="Long-term memory: search before answering from memory; save what is worth keeping.")
