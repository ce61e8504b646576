"""The agent API of docs/api.md: health, providers, spaces, turns, context, sessions, tools.

Each view hands its body to an operation (memoryhub/operations), which declares the input, checks the
permission and answers; the views only say which operation serves which path and method.
"""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest
from django.views import defaults
from pydantic import Field

from memoryhub import __version__
from memoryhub.access.call import Call
from memoryhub.api.endpoint import endpoint
from memoryhub.core import jsonin
from memoryhub.core.errors import ApiError, bad
from memoryhub.operations import registry
from memoryhub.operations.base import Input, validate
from memoryhub.operations.fields import SessionId


@endpoint("GET", auth=False)
def health(request: HttpRequest) -> dict:
    return {"status": "ok", "version": __version__}


@endpoint("GET")
def providers(request: HttpRequest, call: Call):
    return registry.run("providers_list", call, "", {})


@endpoint("GET", "POST")
def spaces(request: HttpRequest, call: Call):
    if request.method == "POST":
        return registry.run("space_create", call, "", call.body)
    return registry.run("spaces_list", call, "", {})


@endpoint("POST")
def turns(request: HttpRequest, call: Call):
    """One turn, or `{"turns": [...]}`: a batch written in one transaction, answered one result per turn."""
    return registry.run("memory_turn", call, "", call.body)


@endpoint("POST")
def context(request: HttpRequest, call: Call):
    return registry.run("memory_context", call, "", call.body)


@endpoint("POST")
def session_end(request: HttpRequest, call: Call, session_id: str):
    return registry.run("session_end", call, session_id, call.body)


@endpoint("GET")
def tool_list(request: HttpRequest, call: Call) -> dict:
    return {"tools": [operation.schema() for operation in registry.TOOLS.values()]}


class ToolCall(Input):
    """The body of POST /api/v1/tools/{name}; the tool checks its own arguments."""

    noun = "field"
    session_id: SessionId = Field(description="the agent's conversation")
    arguments: dict[str, Any] = Field({}, description="the tool's arguments")


@endpoint("POST")
def tool_call(request: HttpRequest, call: Call, name: str) -> dict:
    operation = registry.tool(name)
    jsonin.check({key: value for key, value in call.body.items() if key != "arguments"})
    envelope = validate(ToolCall, call.body)
    result, _ = registry.run(operation.name, call, envelope.session_id, envelope.arguments)
    return {"result": result}


# --- Django's error pages, for agent paths ------------------------------------------------------
AGENT_PATHS = ("/api/", "/mcp")


def for_agents(request: HttpRequest) -> bool:
    return request.path.startswith(AGENT_PATHS)


def page_not_found(request: HttpRequest, exception=None):
    """An unknown /api/v1/... path answers in the API's shape; elsewhere Django's page."""
    if for_agents(request):
        return ApiError("not_found", f"no endpoint {request.path}; see GET /api/v1/tools and docs/api.md").response()
    return defaults.page_not_found(request, exception)


def bad_request(request: HttpRequest, exception=None):
    """A Host header outside MEMORYHUB_ALLOWED_HOSTS (and other suspicious requests), JSON for agents."""
    if for_agents(request):
        return bad("bad request: the Host header is not one of MEMORYHUB_ALLOWED_HOSTS, or the request was "
                   "malformed").response()
    return defaults.bad_request(request, exception)


def server_error(request: HttpRequest):
    if for_agents(request):
        return ApiError("internal", "internal error; the hub's log has details").response()
    return defaults.server_error(request)
