"""The MCP server over memoryhub.operations: the tools (the API's, plus memory_turn and memory_context), and the
context block as a prompt and a resource a client can pin — all answered by the same operations as /api/v1.

Prompt and resource arguments arrive as strings (the protocol's); the integer ones are read as numbers, the
session is the call's MCP session unless `session_id` names one, and the rest is the /context body as is.
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import parse_qsl, urlsplit

import mcp_types as types
from asgiref.sync import sync_to_async
from mcp.server import Server, ServerRequestContext
from mcp.shared.exceptions import MCPError

from memoryhub import __version__
from memoryhub.agents.calls import api_error
from memoryhub.core.errors import ApiError, bad
from memoryhub.core.redaction import opaque_id
from memoryhub.mcp import bridge
from memoryhub.operations import registry

TOKEN_KEY = "memoryhub.token"  # the ASGI scope key the auth layer (app.py) puts the caller's ApiToken under
SESSION_HEADER = "x-memoryhub-session"
DEFAULT_SESSION = "mcp"
MAX_SESSION_ID = 200
CONTEXT = registry.get("memory_context")
CONTEXT_URI = "memoryhub://context"
BLOCK = "text/markdown"


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


def caller(ctx: ServerRequestContext):
    token = ctx.request.scope.get(TOKEN_KEY) if ctx.request is not None else None
    if token is None:
        raise ApiError("unauthorized", "missing bearer token: send Authorization: Bearer <token>")
    return token


def as_text(payload: dict[str, Any]) -> list[types.TextContent]:
    return [types.TextContent(text=json.dumps(payload, ensure_ascii=False))]


def error_result(error: ApiError) -> types.CallToolResult:
    """An ApiError as an MCP tool error carrying the API's {"error": {code, message, field?}}."""
    return types.CallToolResult(content=as_text(error.body()), structured_content=error.body(), is_error=True)


def protocol_error(error: ApiError) -> MCPError:
    """An ApiError as a JSON-RPC error (prompts and resources have no error result); `data` is the API's body."""
    code = types.INVALID_PARAMS if error.status < 500 else types.INTERNAL_ERROR
    return MCPError(code, error.message, data=error.body())


# --- tools --------------------------------------------------------------------------------------
def names_own_session(name: str) -> bool:
    """memory_turn and memory_context take the /turns and /context bodies, whose session_id is their own."""
    operation = registry.MCP_TOOLS.get(name)
    return operation is not None and not operation.in_session and "session_id" in operation.input.model_fields


async def list_tools(ctx: ServerRequestContext, params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
    return types.ListToolsResult(tools=[types.Tool(name=op.name, description=op.description,
                                                   input_schema=mcp_parameters(op.name, op.parameters()))
                                        for op in registry.MCP_TOOLS.values()])


OWN_SESSION = "; over MCP it may be left out: this MCP session"


def mcp_parameters(name: str, schema: dict[str, Any]) -> dict[str, Any]:
    """A tool's arguments as MCP offers them: where the body names its own session (memory_turn, memory_context), a
    model may leave session_id out and the call's MCP session is used (a model has no conversation id to give)."""
    if not names_own_session(name):
        return schema

    def optional(node: Any) -> Any:
        if isinstance(node, dict):
            node = {key: optional(value) for key, value in node.items()}
            if "session_id" in node.get("required", ()):
                node["required"] = [field for field in node["required"] if field != "session_id"]
                spec = node["properties"]["session_id"]
                node["properties"]["session_id"] = {**spec, "description": spec.get("description", "") + OWN_SESSION}
        elif isinstance(node, list):
            node = [optional(value) for value in node]
        return node

    return optional(schema)


def with_own_session(ctx: ServerRequestContext, arguments: dict[str, Any]) -> dict[str, Any]:
    """The /turns or /context body with the MCP session filled in where a turn or the call names none."""
    own = session_for(ctx, {})
    if isinstance(arguments.get("turns"), list):
        arguments["turns"] = [{"session_id": own, **turn} if isinstance(turn, dict) else turn
                              for turn in arguments["turns"]]
    else:
        arguments.setdefault("session_id", own)
    return arguments


async def call_tool(ctx: ServerRequestContext, params: types.CallToolRequestParams) -> types.CallToolResult:
    arguments = dict(params.arguments or {})
    try:
        token = caller(ctx)
        own_session = names_own_session(params.name)
        if own_session:
            arguments = with_own_session(ctx, arguments)
        session_id = session_for(ctx, {} if own_session else arguments)
        result = await sync_to_async(bridge.call_tool, thread_sensitive=True)(token, params.name, session_id, arguments)
    except Exception as exc:  # a tool error is a result the model reads, never a crashed request
        return error_result(api_error(exc, f"the MCP tool call {params.name}"))
    return types.CallToolResult(content=as_text(result), structured_content=result)


# --- the context block as a prompt and a resource -------------------------------------------------
def block_arguments() -> dict[str, dict[str, Any]]:
    """The /context fields a prompt or a resource URI can carry (the plain ones: text and numbers)."""
    return {name: spec for name, spec in CONTEXT.parameters()["properties"].items()
            if spec.get("type") in ("string", "integer")}


def context_body(ctx: ServerRequestContext, given: dict[str, str]) -> dict[str, Any]:
    """Prompt or URI arguments (strings) as the /context body: numbers read as numbers, the MCP session default."""
    plain = block_arguments()
    body: dict[str, Any] = {}
    for name, value in given.items():
        if plain.get(name, {}).get("type") == "integer" and value != "":
            if not (value.isascii() and value.isdigit()):
                raise bad(f"{name} must be an integer", name)
            value = int(value)
        body[name] = value
    body.setdefault("session_id", session_for(ctx, {}))
    return body


async def block(ctx: ServerRequestContext, given: dict[str, str]) -> dict[str, Any]:
    try:
        token = caller(ctx)
        return await sync_to_async(bridge.context, thread_sensitive=True)(token, context_body(ctx, given))
    except Exception as exc:
        raise protocol_error(api_error(exc, "the MCP context block")) from None


async def list_prompts(ctx: ServerRequestContext, params: types.PaginatedRequestParams | None) -> types.ListPromptsResult:
    arguments = [types.PromptArgument(name=name, description=spec.get("description"), required=False)
                 for name, spec in block_arguments().items()]
    return types.ListPromptsResult(prompts=[types.Prompt(
        name=CONTEXT.name, title="Memory for this conversation", description=CONTEXT.description,
        arguments=arguments)])


async def get_prompt(ctx: ServerRequestContext, params: types.GetPromptRequestParams) -> types.GetPromptResult:
    if params.name != CONTEXT.name:
        raise protocol_error(ApiError("not_found", f"no prompt {params.name!r}; the one prompt is {CONTEXT.name}"))
    answer = await block(ctx, dict(params.arguments or {}))
    return types.GetPromptResult(description=f"memoryhub context: {answer['chars']} characters", messages=[
        types.PromptMessage(role="user", content=types.TextContent(text=answer["text"]))])


async def list_resources(ctx: ServerRequestContext, params: types.PaginatedRequestParams | None
                         ) -> types.ListResourcesResult:
    return types.ListResourcesResult(resources=[types.Resource(
        uri=CONTEXT_URI, name=CONTEXT.name, title="Memory for this conversation", mime_type=BLOCK,
        description="The block POST /api/v1/context gives this session with no query: the pinned notebooks and "
                    "who the user is. Add ?query=… (and space, workspace, max_chars) for recall cards.")])


async def list_resource_templates(ctx: ServerRequestContext, params: types.PaginatedRequestParams | None
                                  ) -> types.ListResourceTemplatesResult:
    query = ",".join(name for name in block_arguments() if name != "session_id")
    return types.ListResourceTemplatesResult(resource_templates=[types.ResourceTemplate(
        uri_template=f"{CONTEXT_URI}{{?{query}}}", name=CONTEXT.name, title="Memory for a query", mime_type=BLOCK,
        description=CONTEXT.description)])


async def read_resource(ctx: ServerRequestContext, params: types.ReadResourceRequestParams) -> types.ReadResourceResult:
    uri = urlsplit(str(params.uri))
    if (uri.scheme, uri.netloc, uri.path.strip("/")) != ("memoryhub", "context", ""):
        raise protocol_error(ApiError("not_found", f"no resource {str(params.uri)[:200]!r}; read {CONTEXT_URI}"))
    answer = await block(ctx, dict(parse_qsl(uri.query, keep_blank_values=True)))
    return types.ReadResourceResult(contents=[types.TextResourceContents(uri=str(params.uri), mime_type=BLOCK,
                                                                         text=answer["text"])])


def build_server() -> Server:
    return Server("memoryhub", version=__version__, on_list_tools=list_tools, on_call_tool=call_tool,
                  on_list_prompts=list_prompts, on_get_prompt=get_prompt, on_list_resources=list_resources,
                  on_list_resource_templates=list_resource_templates, on_read_resource=read_resource,
                  instructions="Long-term memory: search before answering from memory; save what is worth keeping. "
                               "memory_context (also the prompt and resource memoryhub://context) gives the block "
                               "to read before answering; memory_turn archives a finished turn.")
