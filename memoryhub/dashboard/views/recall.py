"""Recall preview: exactly the block /api/v1/context would inject for this space, and why each line is there."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.views.decorators.http import require_GET

from memoryhub.dashboard.access import render_page, space_context, space_for_user, space_tabs
from memoryhub.dashboard.forms import RecallForm
from memoryhub.memories.search import recall
from memoryhub.memories.models import Entry, Fact, Topic
from memoryhub.spaces import space_settings
from memoryhub.spaces.models import MemorySpace


MODELS = {"fact": (Fact, "fact:"), "topic": (Topic, "t"), "entry": (Entry, "")}


def item_key(item: dict) -> tuple[str, int] | None:
    """(kind, primary key) of an injected item that points at one of our rows; None for persona or remote cards."""
    model = MODELS.get(item["kind"])
    raw = str(item["id"]).removeprefix(model[1]) if model else ""
    return (item["kind"], int(raw)) if raw.isdigit() else None


def explain(items: list[dict]) -> list[dict]:
    """Each injected item with what it points at (the entry, fact or topic), for the "why" table."""
    keys = [item_key(item) for item in items]
    found = {kind: model.objects.in_bulk([k[1] for k in keys if k and k[0] == kind])
             for kind, (model, _prefix) in MODELS.items()}
    return [{**item, "target": found[key[0]].get(key[1]) if key else None} for item, key in zip(items, keys)]


def preview_for(space: MemorySpace, query: str, max_chars: int) -> recall.Context:
    """recall.inject with the arguments /api/v1/context uses for a local token naming this space in a new session."""
    spaces = [] if space.is_vault else [space]
    ctx, _cards = recall.inject(spaces, query, origin=None, max_chars=max_chars, home=space)
    return ctx


@require_GET
@login_required
def preview(request: HttpRequest, slug: str) -> HttpResponse:
    """Nothing here counts as access: inject never bumps hits and we never call note_recall."""
    space = space_for_user(request, slug)
    if "recall" not in space_tabs(space):
        raise Http404("this provider cannot recall")
    config = space_settings.effective(space)
    form = RecallForm(request.GET)
    context = {**space_context(space, "recall"), "form": form, "default_chars": config["maxInjectChars"],
               "inject_off": not config["inject"]}
    if form.is_valid() and space.active:
        max_chars = form.cleaned_data["max_chars"]
        if max_chars is None:
            max_chars = config["maxInjectChars"]
        ctx = preview_for(space, form.cleaned_data["q"], max_chars)
        context.update(ctx=ctx, max_chars=max_chars, items=explain(ctx.items),
                       percent=min(100, ctx.chars * 100 // max_chars) if max_chars else 0)
    return render_page(request, "dashboard/recall.html", "preview", context)
