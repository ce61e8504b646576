"""Connect an agent: create a token, show each agent's install steps with it filled in (agent_steps.py), then
wait (htmx polling) until the agent's calls arrive: connected, and which of archive (its turns arriving) and
inject (it asking for its block) have been seen.

The raw token is in the POST answer only, never stored and never shown again; the status poll knows the
token by id. Creating one is audited exactly as on the tokens page.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_http_methods

from memoryhub.access.people import Perm
from memoryhub.agents.models import AgentSession, ApiToken
from memoryhub.audit.actions import Action
from memoryhub.dashboard.access import audited, person_may
from memoryhub.dashboard.agent_steps import choices, remote_steps
from memoryhub.dashboard.forms.tokens import ConnectForm
from memoryhub.dashboard.views.tokens import token_state
from memoryhub.memories.models import Entry, Kind, OpLog
from memoryhub.spaces.models import MemorySpace
from memoryhub.spaces.workspaces import DEFAULT_SPACE_SLUG, default_space

POLL_SECONDS = 2


def hub_url(request: HttpRequest) -> str:
    """The hub's address as this browser reached it: what an agent on the same network would use."""
    return request.build_absolute_uri("/").rstrip("/")


def first_memory(token: ApiToken) -> OpLog | None:
    """The op log row of the first memory written with this token, if any is still kept."""
    return (OpLog.objects.filter(operation="remember", actor=token.actor, created_at__gte=token.created_at)
            .select_related("space").order_by("id").first())


def seen(token: ApiToken) -> dict:
    """What the token's calls have shown so far: the turns it archived (how many, the last) and the last session
    that asked for its block (a session's first /context call is stamped in its snapshot)."""
    written = OpLog.objects.filter(operation="remember", actor=token.actor, created_at__gte=token.created_at)
    ids = [int(i) for i in written.values_list("entry_id", flat=True) if str(i).isdigit()]
    turns = Entry.objects.filter(pk__in=ids, kind=Kind.TURN)
    asked = (AgentSession.objects.filter(token=token, snapshot__has_key="context_at")
             .order_by("-last_seen_at").first())
    return {"turns": turns.count(), "last_turn": turns.order_by("-at").first(), "asked": asked}


def remote(request: HttpRequest):
    return remote_steps(str(urlsplit(hub_url(request)).port or 8000))


@never_cache
@require_http_methods(["GET", "POST"])
@person_may(Perm.CONFIGURE)
def connect(request: HttpRequest) -> HttpResponse:
    """GET shows the form; POST creates the token and answers with the settings that carry it, once."""
    default_space()  # the space every agent can start in, even on a hub whose default someone deleted
    form = ConnectForm(request.POST or None)
    context = {"form": form, "nav": "connect", "hub": hub_url(request), "remote": remote(request)}
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        space: MemorySpace = data["space"]
        spaces = [space] if data["only_this_space"] else []
        token, raw = ApiToken.issue(data["name"], data["origin"], spaces, user=request.user)
        audited(request, Action.TOKEN_CREATE, token.actor, after=token_state(token, spaces))
        context.update(token=token, space=space, raw=raw, poll_seconds=POLL_SECONDS,
                       choices=choices(context["hub"], raw, space.slug, restricted=bool(spaces),
                                       default_space=space.slug == DEFAULT_SPACE_SLUG))
    return render(request, "dashboard/connect.html", context)


@never_cache
@require_GET
@person_may(Perm.CONFIGURE)
def connect_status(request: HttpRequest, token_id: int) -> HttpResponse:
    """Waiting (and polling again) until the token's calls show both archive and inject, then connected, with its
    first memory."""
    token = get_object_or_404(ApiToken, pk=token_id)
    context = {"token": token, "poll_seconds": POLL_SECONDS}
    if token.last_used_at:
        context.update(first=first_memory(token), seen=seen(token))
    return render(request, "dashboard/connect.html#status", context)
