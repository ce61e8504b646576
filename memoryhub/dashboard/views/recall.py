"""Recall preview: exactly the block /api/v1/context would inject for this space, and why each line is there."""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.views.decorators.http import require_GET

from memoryhub.dashboard.access import render_page, space_context, space_for_user, space_tabs
from memoryhub.dashboard.forms import RecallForm
from memoryhub.memories import recall
from memoryhub.memories.models import Entry, Fact, Topic
from memoryhub.spaces.models import MemorySpace


def explain(items: list[dict]) -> list[dict]:
    """Each injected item with what it points at (the entry, fact or topic), for the "why" table."""
    ids = {"fact": [], "entry": [], "topic": []}
    for item in items:
        key = str(item["id"])
        if item["kind"] == "fact":
            ids["fact"].append(int(key.removeprefix("fact:")))
        elif item["kind"] == "topic":
            ids["topic"].append(int(key.removeprefix("t")))
        elif item["kind"] == "entry" and key.isdigit():
            ids["entry"].append(int(key))
    found = {"fact": Fact.objects.in_bulk(ids["fact"]), "entry": Entry.objects.in_bulk(ids["entry"]),
             "topic": Topic.objects.in_bulk(ids["topic"])}
    rows = []
    for item in items:
        key = str(item["id"])
        target = None
        if item["kind"] == "fact":
            target = found["fact"].get(int(key.removeprefix("fact:")))
        elif item["kind"] == "topic":
            target = found["topic"].get(int(key.removeprefix("t")))
        elif item["kind"] == "entry" and key.isdigit():
            target = found["entry"].get(int(key))
        rows.append({**item, "target": target})
    return rows


def preview_for(space: MemorySpace, query: str, max_chars: int) -> recall.Context:
    """build_context with the arguments the API's /context uses for a local token naming this space."""
    spaces = [] if space.is_vault else [space]
    ctx, _cards = recall.build_context(spaces, query, max_chars=max_chars, origin=recall.origin_filter("local"),
                                       max_cards=settings.MEMORYHUB["MAX_RECALL"])
    return ctx


@require_GET
@login_required
def preview(request: HttpRequest, slug: str) -> HttpResponse:
    """Nothing here counts as access: build_context never bumps hits and we never call note_recall."""
    space = space_for_user(request, slug)
    if "recall" not in space_tabs(space):
        raise Http404("this provider cannot recall")
    form = RecallForm(request.GET)
    context = {**space_context(space, "recall"), "form": form,
               "default_chars": settings.MEMORYHUB["DEFAULT_INJECT_CHARS"]}
    if form.is_valid() and space.active:
        max_chars = form.cleaned_data["max_chars"]
        if max_chars is None:
            max_chars = settings.MEMORYHUB["DEFAULT_INJECT_CHARS"]
        ctx = preview_for(space, form.cleaned_data["q"], max_chars)
        context.update(ctx=ctx, max_chars=max_chars, items=explain(ctx.items),
                       percent=min(100, ctx.chars * 100 // max_chars) if max_chars else 0)
    return render_page(request, "dashboard/recall.html", "preview", context)
