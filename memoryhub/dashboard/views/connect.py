"""Connect an agent: create a token, show ready-to-paste settings for MCP, a stdio bridge, curl and Python,
then wait (htmx polling) until the agent's first call with that token says it is connected.

The raw token is in the POST answer only, never stored and never shown again; the status poll knows the
token by id. Creating one is audited exactly as on the tokens page.
"""

from __future__ import annotations

import json
import shlex
from dataclasses import dataclass
from urllib.parse import urlsplit

from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_http_methods

from memoryhub.access.people import Perm
from memoryhub.agents.models import ApiToken
from memoryhub.audit.actions import Action
from memoryhub.dashboard.access import audited, person_may
from memoryhub.dashboard.forms.tokens import ConnectForm
from memoryhub.dashboard.views.tokens import token_state
from memoryhub.memories.models import OpLog
from memoryhub.spaces.models import MemorySpace
from memoryhub.spaces.workspaces import default_space

POLL_SECONDS = 2
SESSION = "first-run"


@dataclass
class Snippet:
    key: str
    title: str
    help: str
    text: str


def hub_url(request: HttpRequest) -> str:
    """The hub's address as this browser reached it: what an agent on the same network would use."""
    return request.build_absolute_uri("/").rstrip("/")


def snippets(base: str, raw: str, space: str) -> list[Snippet]:
    """What an agent needs, per kind of client, with the token and space filled in."""
    mcp = f"{base}/mcp"
    bearer = f"Bearer {raw}"
    mcp_config = {"mcpServers": {"memoryhub": {"type": "http", "url": mcp, "headers": {"Authorization": bearer}}}}
    bridge_args = ["-y", "mcp-remote", mcp, "--header", "Authorization:${MEMORYHUB_AUTH}"]
    if urlsplit(mcp).scheme == "http" and urlsplit(mcp).hostname not in ("localhost", "127.0.0.1"):
        bridge_args.append("--allow-http")  # mcp-remote refuses plain HTTP beyond loopback without it
    bridge_config = {"mcpServers": {"memoryhub": {"command": "npx", "args": bridge_args,
                                                  "env": {"MEMORYHUB_AUTH": bearer}}}}
    note = {"session_id": SESSION, "arguments": {"text": "memoryhub is connected", "space": space}}
    curl = (f"curl -sS {shlex.quote(base + '/api/v1/tools/memory_note')} \\\n"
            f"  -H {shlex.quote('Authorization: ' + bearer)} \\\n"
            f"  -H 'Content-Type: application/json' \\\n"
            f"  -d {shlex.quote(json.dumps(note))}")
    env = "\n".join([
        f"export MEMORYHUB_URL={shlex.quote(base)}",
        f"export MEMORYHUB_TOKEN={shlex.quote(raw)}",
        f"export MEMORYHUB_SPACE={shlex.quote(space)}",
        "pip install ./clients/python  # from the memoryhub checkout",
    ])
    python = "\n".join([
        "import os",
        "from memoryhub_client import MemoryHubClient",
        "",
        "hub = MemoryHubClient()  # reads MEMORYHUB_URL and MEMORYHUB_TOKEN",
        'space = os.environ.get("MEMORYHUB_SPACE")',
        f'hub.note("{SESSION}", "memoryhub is connected from Python", space=space)',
        f'print(hub.context("{SESSION}", "is memoryhub connected?", space=space)["text"])',
    ])
    return [
        Snippet("mcp", _("MCP client (streamable HTTP)"),
                _("For clients that speak MCP over HTTP (Claude Code's .mcp.json, Cursor, Windsurf, VS Code…). "
                  "Claude Code can also add it with the command below."),
                json.dumps(mcp_config, indent=2)),
        Snippet("claude", _("Claude Code, one command"), "",
                f"claude mcp add --transport http memoryhub {shlex.quote(mcp)} "
                f"--header {shlex.quote('Authorization: ' + bearer)}"),
        Snippet("stdio", _("Clients that only speak stdio"),
                _("mcp-remote (Node 18 or newer, run by npx) bridges stdio to /mcp and sends the bearer header; "
                  "the header goes through an environment variable because some clients split arguments on "
                  "whitespace."),
                json.dumps(bridge_config, indent=2)),
        Snippet("curl", _("curl"), _("One call of the memory_note tool: the hub answers with the new memory's id."),
                curl),
        Snippet("env", _("Python client: environment"),
                _("MemoryHubClient reads MEMORYHUB_URL and MEMORYHUB_TOKEN; MemoryHubProvider, the agent plugin, "
                  "also reads MEMORYHUB_SPACE."), env),
        Snippet("python", _("Python client: first memory"), "", python),
    ]


def first_memory(token: ApiToken) -> OpLog | None:
    """The op log row of the first memory written with this token, if any is still kept."""
    return (OpLog.objects.filter(operation="remember", actor=token.actor, created_at__gte=token.created_at)
            .select_related("space").order_by("id").first())


@never_cache
@require_http_methods(["GET", "POST"])
@person_may(Perm.CONFIGURE)
def connect(request: HttpRequest) -> HttpResponse:
    """GET shows the form; POST creates the token and answers with the settings that carry it, once."""
    default_space()  # the space every agent can start in, even on a hub whose default someone deleted
    form = ConnectForm(request.POST or None)
    context = {"form": form, "nav": "connect", "hub": hub_url(request)}
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        space: MemorySpace = data["space"]
        spaces = [space] if data["only_this_space"] else []
        token, raw = ApiToken.issue(data["name"], data["origin"], spaces, user=request.user)
        audited(request, Action.TOKEN_CREATE, token.actor, after=token_state(token, spaces))
        context.update(token=token, space=space, raw=raw, snippets=snippets(context["hub"], raw, space.slug),
                       poll_seconds=POLL_SECONDS)
    return render(request, "dashboard/connect.html", context)


@never_cache
@require_GET
@person_may(Perm.CONFIGURE)
def connect_status(request: HttpRequest, token_id: int) -> HttpResponse:
    """Waiting (and polling again) until the token's first call, then connected, with its first memory."""
    token = get_object_or_404(ApiToken, pk=token_id)
    context = {"token": token, "poll_seconds": POLL_SECONDS,
               "first": first_memory(token) if token.last_used_at else None}
    return render(request, "dashboard/connect.html#status", context)
