"""A space's entities (the names its provider knows, with counts, each opening its memories and the names said
with it), a memory's related memories with their link types, explicit links (picked by searching) and trust
feedback: the graph capabilities a provider declares, in the product.

Each view 404s where the space's provider does not declare the capability, so nothing is offered that fails.
"""

from __future__ import annotations

from django.db.models import Count, Max, Min, Q
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET, require_POST

from memoryhub.access.people import Perm
from memoryhub.audit.actions import Action
from memoryhub.core.ids import row_id
from memoryhub.core.errors import ApiError
from memoryhub.dashboard.access import audited, capabilities, person_call, person_may, space_context, space_for_user
from memoryhub.dashboard.forms.graph import RECORD_ID, FeedbackForm, LinkForm
from memoryhub.dashboard.partials import render_page
from memoryhub.memories.models import EDGE_TYPES, Edge, EntityRef, Entry, Fact
from memoryhub.memories.search import fulltext as fts
from memoryhub.operations import registry
from memoryhub.spaces.models import MemorySpace
from memoryhub.spaces.provider_services import provider_for, record_space_error
from providers.base import Provider, ProviderError
from providers.registry import get_provider_class

ENTITY_LIMIT = 100
RECORD_LIMIT = 50
ENTITY_ID = 300  # the longest entity id a page asks a provider about (no agent operation names entities)
PICK_LIMIT = 8  # memories the link picker offers at once
EDGE_ORDER = {kind: n for n, kind in enumerate(("causal", "supersedes", "semantic", "entity", "temporal"))}


def _space_with(request: HttpRequest, slug: str, capability: str) -> MemorySpace:
    """The space, if its provider has the capability; a vault space shows none of this (agents may not read it)."""
    space = space_for_user(request, slug, can=capability)
    if space.is_vault:
        raise Http404("a vault space has no entity pages")
    return space


def _call(space: MemorySpace, work) -> tuple[object, str]:
    """Run one provider call for a page: its result, or the error to show (recorded on the space)."""
    provider: Provider | None = None
    try:
        provider = provider_for(space)
        return work(provider), ""
    except ProviderError as exc:
        record_space_error(space, exc)
        return None, exc.message
    finally:
        if provider is not None:
            provider.close()


@require_GET
@person_may(Perm.MEMORY_READ)
def entities_page(request: HttpRequest, slug: str) -> HttpResponse:
    """Entities with their mention counts; `?entity=` lists that entity's memories. Hindsight adds its bank stats."""
    space = _space_with(request, slug, "entities")
    chosen = request.GET.get("entity", "")[:ENTITY_ID]

    def load(provider: Provider) -> dict:
        return {"entities": provider.entities(limit=ENTITY_LIMIT), "stats": provider.stats(),
                "records": provider.entity_records(chosen, limit=RECORD_LIMIT) if chosen else [],
                "has_trust": provider.has_trust}

    data, error = _call(space, load)
    data = data or {"entities": [], "records": [], "stats": None}
    name = next((e["name"] for e in data["entities"] if e["id"] == chosen), chosen)
    context = {**space_context(space, "entities"), **data, "chosen": chosen, "chosen_name": name, "error": error,
               "mentions": next((e["mentions"] for e in data["entities"] if e["id"] == chosen), len(data["records"]))}
    if chosen and space.is_native:
        context.update(entity_summary(space, chosen))
    return render_page(request, "dashboard/entities.html", "entity-records", context)


def entity_summary(space: MemorySpace, name: str) -> dict:
    """For a native entity: when it was first and last mentioned, and the names said in the same memories."""
    refs = EntityRef.objects.filter(space=space, name=name, entry__deleted_at__isnull=True)
    span = refs.aggregate(first=Min("entry__at"), last=Max("entry__at"))
    together = (EntityRef.objects.filter(space=space, entry__in=refs.values("entry")).exclude(name=name)
                .values("name").annotate(n=Count("entry", distinct=True)).order_by("-n", "name")[:12])
    return {"first_at": span["first"], "last_at": span["last"], "together": list(together),
            "known": facts_about(space, name)}


def facts_about(space: MemorySpace, name: str) -> list[Fact]:
    """What the facts say of a person the space names: who they are to the user (the user's `spouse` 周晴, 阿凯's
    `relation` 朋友) and what is theirs (周晴's `job`), the active facts of every origin."""
    family = ("spouse", "partner", "child", "parent", "sibling", "pet")
    active = Fact.objects.filter(space=space, status=Fact.Status.ACTIVE)
    theirs = list(active.filter(subject=name).order_by("predicate", "-created_at")[:RECORD_LIMIT])
    users = [f for f in active.filter(subject="user", predicate__in=family, value__startswith=name)
             if f.value == name or f.value.startswith(name + " (")]
    return users + theirs


def native_links(space: MemorySpace, record_id: str) -> list[dict]:
    """The memory's typed links, both ways, one row per other memory and type: which way it points ("out", "in",
    or "both" for the links people and the hub make in pairs), the hub's meaningful types before time proximity."""
    pk = row_id(record_id)
    if pk is None:
        return []
    ways: dict[tuple[int, str], set[str]] = {}
    for source, target, kind in Edge.objects.filter(Q(source_id=pk) | Q(target_id=pk)).values_list(
            "source_id", "target_id", "edge_type")[:500]:
        other, way = (target, "out") if source == pk else (source, "in")
        ways.setdefault((other, kind), set()).add(way)
    others = Entry.objects.live().filter(space=space).defer("body").in_bulk({other for other, _kind in ways})
    links = [{"entry": others[other], "kind": kind, "way": "both" if len(found) > 1 else next(iter(found))}
             for (other, kind), found in ways.items() if other in others]
    links.sort(key=lambda link: (EDGE_ORDER.get(link["kind"], 9), -link["entry"].at.timestamp()))
    return links[:RECORD_LIMIT]


def pick_candidates(space: MemorySpace, query: str, exclude: str) -> list[Entry]:
    """What the link picker offers: the best matches of the words typed, or the newest memories."""
    entries = Entry.objects.live().filter(space=space).defer("body")
    if row_id(exclude) is not None:
        entries = entries.exclude(pk=row_id(exclude))
    if not query.strip():
        return list(entries.order_by("-at", "-id")[:PICK_LIMIT])
    hits = fts.query([space.pk], query, limit=PICK_LIMIT + 1, recallable_only=False)
    found = entries.in_bulk([h.entry_id for h in hits])
    return [found[h.entry_id] for h in hits if h.entry_id in found][:PICK_LIMIT]


def related_context(space: MemorySpace, record_id: str, records, error: str, **extra) -> dict:
    """What the related partial shows: a native memory's typed links, another provider's related records, and
    (where links can be made) the picker's first candidates."""
    context = {"space": space, "record_id": record_id, "related": records or [], "error": error,
               "can_link": capabilities(space).link, "link_kinds": EDGE_TYPES, **extra}
    if space.is_native:
        context["links"] = native_links(space, record_id)
    if context["can_link"]:
        context["candidates"] = pick_candidates(space, "", record_id)
    return context


@require_GET
@person_may(Perm.MEMORY_READ)
def related_records(request: HttpRequest, slug: str) -> HttpResponse:
    """The memories `related()` reaches from one memory (a partial, loaded into the memory's page)."""
    space = _space_with(request, slug, "related")
    record_id = request.GET.get("id", "")[:RECORD_ID]
    if not record_id:
        raise Http404("no memory named")
    if space.is_native:
        return render(request, "dashboard/entities.html#related", related_context(space, record_id, [], ""))
    records, error = _call(space, lambda provider: provider.related(record_id, depth=2)[:RECORD_LIMIT])
    return render(request, "dashboard/entities.html#related", related_context(space, record_id, records, error))


@require_GET
@person_may(Perm.MEMORY_READ)
def link_candidates(request: HttpRequest, slug: str) -> HttpResponse:
    """The link picker's choices for the words typed (`q`), never the memory being linked (`from`)."""
    space = _space_with(request, slug, "link")
    if not space.is_native:
        raise Http404("only native spaces offer the picker")
    source = request.GET.get("from", "")[:RECORD_ID]
    return render(request, "dashboard/entities.html#pick-list", {
        "space": space, "record_id": source, "candidates": pick_candidates(space, request.GET.get("q", "")[:500],
                                                                           source)})


@require_POST
@person_may(Perm.MEMORY_CHANGE)
def link_records(request: HttpRequest, slug: str) -> HttpResponse:
    """A person's explicit link between two memories: memory_link, as the person (its rules, its checks, the write
    gateway's link with the person's name in the op log), for the memory of this space's page."""
    space = _space_with(request, slug, "link")
    form = LinkForm(request.POST)
    source = str(form["from"].value() or "").strip()[:RECORD_ID]
    error = ""
    if not form.is_valid():
        error = form.refusal()
    else:
        call = person_call(request)
        try:
            target = registry.get("memory_link").permission(call, "", form.arguments)
            if target.space.pk != space.pk:
                raise ApiError("not_found", f"no memory {source!r} in space {space.slug!r}", "from")
            done = form.perform(call, target)
        except ApiError as exc:
            error = exc.message
        else:
            audited(request, Action.MEMORY_LINK, space.slug, after=done)
    context = related_context(space, source, [], error, linked=not error)
    return render(request, "dashboard/entities.html#related", context, status=200 if not error else 422)


@require_POST
@person_may(Perm.MEMORY_CHANGE)
def record_feedback(request: HttpRequest, slug: str) -> HttpResponse:
    """A person's verdict on a memory (helpful / wrong) where the provider keeps trust (Holographic), under
    memory_feedback's rules. It calls the provider itself rather than the operation, whose own audit record
    (without the person's account, before or after) would stand beside this one."""
    space = space_for_user(request, slug)
    if not get_provider_class(space.provider).has_trust or space.is_vault:
        raise Http404("this space's provider keeps no trust")
    form = FeedbackForm(request.POST)
    if not form.is_valid():
        return render(request, "dashboard/entities.html#trust", {"space": space, "error": form.refusal(),
                                                               "record": None}, status=400)
    record_id, verdict = form.cleaned_data["id"], form.cleaned_data["verdict"]
    provider = provider_for(space)
    try:
        updated = provider.feedback(record_id, verdict == "helpful")
    except ProviderError as exc:
        return render(request, "dashboard/entities.html#trust", {"space": space, "error": exc.message,
                                                               "record": None}, status=422)
    finally:
        provider.close()
    audited(request, Action.MEMORY_FEEDBACK, f"{space.slug}:{record_id}", after={
        "verdict": verdict, "trust": updated.extra.get("trust")})
    return render(request, "dashboard/entities.html#trust", {"space": space, "record": updated, "error": ""})
