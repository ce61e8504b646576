"""/mcp as an ASGI app: Django's host rules and bearer tokens in front of the SDK's stateless streamable HTTP.

Stateless, so any worker process (or machine) can answer any request; the session a client's tool calls
belong to is an Mcp-Session-Id the hub hands out on `initialize` and the client echoes, and a DELETE of it
ends that agent session (and its vault grants) like POST /api/v1/sessions/{id}/end. Every error here is
core/errors' rendering, as the API's; a body over the cap is read to DRAIN_MAX first, so the 413 arrives.
"""

from __future__ import annotations

import secrets

from asgiref.sync import ThreadSensitiveContext, sync_to_async
from django.conf import settings
from django.http.request import split_domain_port, validate_host
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings
from mcp_types import jsonrpc_message_adapter
from pydantic import ValidationError
from starlette.datastructures import Headers
from starlette.responses import JSONResponse, Response
from starlette.types import Receive, Scope, Send

from memoryhub.agents.calls import DRAIN_MAX, MAX_BODY
from memoryhub.core import jsonin
from memoryhub.core.errors import JSON, ApiError, bad, not_allowed
from memoryhub.mcp import bridge
from memoryhub.mcp.server import TOKEN_KEY, build_server

SESSION_ID = "mcp-session-id"
METHODS = ("POST", "DELETE")  # no GET: every answer rides its POST (stateless, JSON responses)


def error_response(error: ApiError) -> Response:
    rendered = error.rendered()
    return Response(rendered.content, status_code=rendered.status, headers=rendered.headers, media_type=JSON)


async def read_body(receive: Receive) -> bytes | None:
    """The whole request body, or None when the client went away; over MAX_BODY raises too_large (after reading
    the rest up to DRAIN_MAX: answering while the client still sends would reset the connection)."""
    chunks, size = [], 0
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            return None
        chunk = message.get("body", b"")
        size += len(chunk)
        more = message.get("more_body", False)
        if size > MAX_BODY:
            while more and size <= DRAIN_MAX:
                message = await receive()
                size += len(message.get("body", b""))
                more = message["type"] != "http.disconnect" and message.get("more_body", False)
            raise ApiError("too_large", f"request body is over {MAX_BODY} bytes")
        chunks.append(chunk)
        if not more:
            return b"".join(chunks)


def replay(body: bytes, receive: Receive) -> Receive:
    """A receive that yields the buffered body once, then defers to the real one (for disconnects)."""
    sent = False

    async def again():
        nonlocal sent
        if sent:
            return await receive()
        sent = True
        return {"type": "http.request", "body": body, "more_body": False}

    return again


def envelope(message):
    """The message itself, when it is one JSON-RPC message (the SDK's own model); else bad_request naming the part."""
    try:
        jsonrpc_message_adapter.validate_python(message, by_name=False)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"][1:]) or None  # loc[0] names the union member
        raise bad(f"not a JSON-RPC 2.0 message: {first['msg']}", where) from None
    return message


def is_initialize(message) -> bool:
    return isinstance(message, dict) and message.get("method") == "initialize"


def with_header(send: Send, name: str, value: str) -> Send:
    async def sending(message):
        if message["type"] == "http.response.start":
            message = {**message, "headers": [*message.get("headers", []), (name.encode(), value.encode())]}
        await send(message)

    return sending


class McpApp:
    """The ASGI app mounted at /mcp; it also owns the SDK session manager's lifespan."""

    def __init__(self):
        self.manager = StreamableHTTPSessionManager(
            app=build_server(), stateless=True, json_response=True, max_request_body_size=MAX_BODY,
            # Host checking is Django's (MEMORYHUB_ALLOWED_HOSTS) below; every request needs a bearer token.
            security_settings=TransportSecuritySettings(enable_dns_rebinding_protection=False),
        )

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self.lifespan(receive, send)
        elif scope["type"] == "http":
            # One thread-sensitive context per request, as Django's ASGI handler does: the ORM work of
            # concurrent requests runs in separate threads instead of queueing for one.
            async with ThreadSensitiveContext():
                try:
                    await self.http(scope, receive, send)
                except ApiError as exc:
                    await error_response(exc)(scope, receive, send)

    async def lifespan(self, receive: Receive, send: Send) -> None:
        await receive()  # lifespan.startup
        async with self.manager.run():
            await send({"type": "lifespan.startup.complete"})
            await receive()  # lifespan.shutdown
        await send({"type": "lifespan.shutdown.complete"})

    async def http(self, scope: Scope, receive: Receive, send: Send) -> None:
        headers = Headers(scope=scope)
        domain, _ = split_domain_port(headers.get("host", ""))
        if not domain or not validate_host(domain, settings.ALLOWED_HOSTS):
            raise bad("this host name is not in MEMORYHUB_ALLOWED_HOSTS")
        method, session_id = scope["method"], headers.get(SESSION_ID)
        if method not in METHODS:  # GET would open a server-initiated stream, which a stateless hub does not offer
            raise not_allowed(method, METHODS)
        token = await sync_to_async(bridge.authorize)(headers.get("authorization", ""))
        scope = {**scope, TOKEN_KEY: token}
        if method == "DELETE":
            if not session_id:
                raise bad("DELETE needs the Mcp-Session-Id to end")
            expired = await sync_to_async(bridge.finish_session)(token, session_id)
            await JSONResponse({"expired_grants": expired})(scope, receive, send)
        elif method == "POST":
            body = await read_body(receive)
            if body is None:
                return
            # The hub's JSON rules before the SDK parses it: bad text, deep nesting, non-JSON are 400 in the API shape.
            message = envelope(jsonin.loads(body, what="the MCP message", skip=("params", "arguments")))
            if not session_id and is_initialize(message):
                send = with_header(send, SESSION_ID, secrets.token_hex(16))
            await self.manager.handle_request(scope, replay(body, receive), send)
