"""Recall preview: exactly the block /api/v1/context would inject for this space, and why each line is there."""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET

from memoryhub.access import policy
from memoryhub.access.people import Perm
from memoryhub.dashboard.access import person_may, space_context, space_for_user, space_tabs
from memoryhub.dashboard.forms.memories import RecallForm
from memoryhub.dashboard.partials import render_page
from memoryhub.memories.notebooks import hot
from memoryhub.memories.recall import cards as recall
from memoryhub.memories.recall.block import Context
from memoryhub.memories.models import Entry, Fact, Topic
from memoryhub.memories.search import vectors
from memoryhub.spaces import space_settings
from memoryhub.spaces.models import MemorySpace
from memoryhub.spaces.workspaces import DEFAULT_SPACE_SLUG


MODELS = {"fact": (Fact, "fact:"), "topic": (Topic, "t"), "entry": (Entry, "")}


def item_key(item: dict) -> tuple[str, int] | None:
    """(kind, primary key) of an injected item that points at one of our rows; None for persona or remote cards."""
    model = MODELS.get(item["kind"])
    raw = str(item["id"]).removeprefix(model[1]) if model else ""
    return (item["kind"], int(raw)) if raw.isdigit() else None


def explain(ctx: Context) -> list[dict]:
    """Each injected item with what it points at (the entry, fact or topic; a notebook's file) and why it is there."""
    keys = [item_key(item) for item in ctx.items]
    found = {kind: model.objects.in_bulk([k[1] for k in keys if k and k[0] == kind])
             for kind, (model, _prefix) in MODELS.items()}
    return [{**item, "target": found[key[0]].get(key[1]) if key else notebook_file(item),
             "why": reason(ctx.why.get(item["id"]))} for item, key in zip(ctx.items, keys)]


def notebook_file(item: dict) -> str | None:
    """"MEMORY.md · the hub" for a pinned notebook's item (`notebook:<scope>:<target>`), else None."""
    if item["kind"] != "notebook":
        return None
    _kind, scope, target = str(item["id"]).split(":", 2)
    where = _("the hub") if scope == "global" else scope
    return f"{hot.FILENAMES.get(target, target)} · {where}"


def reason(why: dict | None) -> str:
    """A block's reason code (block.py) in the reader's language."""
    if not why:
        return ""
    code = why["code"]
    if code == "hit":
        how = {"session": _("said next to a hit in its session"), "entity": _("shares a name with a hit")}.get(why["via"])
        words = ", ".join(why["words"][:8])
        how = how or (_("matches: %(words)s") % {"words": words} if words else unmatched_words())
        return _("Search hit %(rank)s, relevance %(score)s; %(how)s.") % {
            "rank": why["rank"], "score": why["score"] if why["score"] is not None else "—", "how": how}
    if code == "fact_query":
        return _("A fact about the user sharing words with the query: %(words)s.") % {"words": ", ".join(why["words"])}
    if code == "topic":
        return _("Groups the %(hits)s hits below, said in one topic.") % {"hits": why["hits"]}
    if code == "notebook":
        return _("A pinned notebook: first in every session and counted against the budget, of which it may take "
                 "half before the search hits and then the room they leave; %(shown)s of its %(entries)s entries "
                 "fit.") % {"shown": why["shown"], "entries": why["entries"]}
    if code == "low":
        return _("Relevance %(score)s is below the recall policy's low mark.") % {"score": why["score"]}
    if code == "cards":
        return _("Past the %(cards)s cards a block may hold (maxRecall).") % {"cards": why["cards"]}
    return {
        "profile": _("The profile a person wrote: kept first when the block runs short."),
        "identity": _("Who the user is (name, role, language…): kept before other facts when the block runs short."),
        "constraints": _("Standing constraints the persona rebuild kept: kept first when the block runs short."),
        "fact_rest": _("A fact about the user unrelated to the query: shown because room was left."),
        "greeting": _("Says nothing on its own (a greeting or thanks): takes no budget."),
        "duplicate": _("The same words as a card above."),
        "budget": _("Did not fit in the budget."),
        "who_share": _("Over the half of the budget that who the user is may take."),
    }.get(code, code)


def unmatched_words() -> str:
    """Why a search hit shares no word of its text with the query: by meaning only where embeddings are on;
    otherwise the index matched a field the text does not hold (its title, tags, summary)."""
    if vectors.enabled():
        return _("close in meaning")
    return _("found by the full-text index in its title, tags or summary")


def lands_here(space: MemorySpace) -> bool:
    """Whether an agent naming no space writes here: the hub's default space, or a workspace's own space."""
    return space.slug == DEFAULT_SPACE_SLUG or bool(space.workspace_id and space.is_default)


def preview_for(space: MemorySpace, query: str, max_chars: int, missing: list | None = None, *,
                named: bool = True, notebooks: bool = True) -> Context:
    """What /api/v1/context answers an unrestricted local token in a new session, by the same code
    (recall.context_block): the notebooks as they are now, then the block. `named`: the agent names this space
    (and its workspace); else it names no space, only the workspace (what an agent whose turns land here gets).
    `notebooks=False`: what the agent hooks ask for with each prompt (they pin the notebooks at session start).
    `missing` gets the third-party spaces the block had to do without (failed, or late for the read's deadline)."""
    books = hot.current([None, space.workspace] if space.workspace else [None])
    ctx, _cards = recall.context_block(books, policy.preview_spaces(space, named=named), query, origin=None,
                                       max_chars=max_chars, home=space, missing=missing, notebooks=notebooks)
    return ctx


@require_GET
@person_may(Perm.MEMORY_READ)
def preview(request: HttpRequest, slug: str) -> HttpResponse:
    """Nothing here counts as access: inject never bumps hits and we never call note_recall."""
    space = space_for_user(request, slug)
    if "recall" not in space_tabs(space):
        raise Http404("this provider cannot recall")
    config = space_settings.effective(space)
    form = RecallForm(request.GET)
    unnamed = lands_here(space)
    context = {**space_context(space, "recall"), "form": form, "default_chars": config["maxInjectChars"],
               "inject_off": not config["inject"], "unnamed_offered": unnamed}
    if form.is_valid() and space.active:
        max_chars = form.cleaned_data["max_chars"]
        if max_chars is None:
            max_chars = config["maxInjectChars"]
        missing: list = []
        named = not unnamed or form.cleaned_data["reads"] == "named"
        ctx = preview_for(space, form.cleaned_data["q"], max_chars, missing, named=named,
                          notebooks=form.cleaned_data["notebooks"] != "without")
        context.update(ctx=ctx, max_chars=max_chars, items=explain(ctx), missing=missing, named=named,
                       left_out=[{"what": what, "why": reason(why)} for what, why in ctx.left_out],
                       percent=min(100, ctx.chars * 100 // max_chars) if max_chars else 0)
    return render_page(request, "dashboard/recall.html", "preview", context)
