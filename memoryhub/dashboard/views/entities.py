"""A space's entities (the names its provider knows, with counts, each opening its memories), a memory's
related memories, explicit links and trust feedback: the graph capabilities a provider declares, in the product.

Each view 404s where the space's provider does not declare the capability, so nothing is offered that fails.
"""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from memoryhub.access.people import Perm
from memoryhub.audit.actions import Action
from memoryhub.dashboard.access import audited, capabilities, person_may, space_context, space_for_user
from memoryhub.dashboard.partials import render_page
from memoryhub.spaces.models import MemorySpace
from memoryhub.spaces.provider_services import provider_for, record_space_error
from providers.base import Provider, ProviderError

ENTITY_LIMIT = 100
RECORD_LIMIT = 50


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
    chosen = request.GET.get("entity", "")[:300]

    def load(provider: Provider) -> dict:
        return {"entities": provider.entities(limit=ENTITY_LIMIT), "stats": provider.stats(),
                "records": provider.entity_records(chosen, limit=RECORD_LIMIT) if chosen else [],
                "has_trust": provider.has_trust}

    data, error = _call(space, load)
    data = data or {"entities": [], "records": [], "stats": None}
    name = next((e["name"] for e in data["entities"] if e["id"] == chosen), chosen)
    context = {**space_context(space, "entities"), **data, "chosen": chosen, "chosen_name": name, "error": error}
    return render_page(request, "dashboard/entities.html", "entity-records", context)


@require_GET
@person_may(Perm.MEMORY_READ)
def related_records(request: HttpRequest, slug: str) -> HttpResponse:
    """The memories `related()` reaches from one memory (a partial, loaded into the memory's page)."""
    space = _space_with(request, slug, "related")
    record_id = request.GET.get("id", "")[:300]
    if not record_id:
        raise Http404("no memory named")
    records, error = _call(space, lambda provider: provider.related(record_id, depth=2)[:RECORD_LIMIT])
    return render(request, "dashboard/entities.html#related", {
        "space": space, "record_id": record_id, "related": records or [], "error": error,
        "can_link": capabilities(space).link})


@require_POST
@person_may(Perm.MEMORY_CHANGE)
def link_records(request: HttpRequest, slug: str) -> HttpResponse:
    """A person's explicit link between two memories (native's typed edges), where the provider declares `link`."""
    space = _space_with(request, slug, "link")
    source, target = request.POST.get("from", "").strip()[:300], request.POST.get("to", "").strip()[:300]
    kind = request.POST.get("kind", "semantic").strip()[:40] or "semantic"
    error = ""
    if not source or not target or source == target:
        error = _("Name two different memories to link.")
    else:
        _done, error = _call(space, lambda provider: provider.link(source, target, kind))
        if not error:
            audited(request, Action.MEMORY_LINK, space.slug, after={"from": source, "to": target, "kind": kind})
    records, load_error = _call(space, lambda provider: provider.related(source, depth=1)[:RECORD_LIMIT]) \
        if source else ([], "")
    return render(request, "dashboard/entities.html#related", {
        "space": space, "record_id": source, "related": records or [], "error": error or load_error,
        "linked": not error, "can_link": True}, status=200 if not error else 422)


@require_POST
@person_may(Perm.MEMORY_CHANGE)
def record_feedback(request: HttpRequest, slug: str) -> HttpResponse:
    """A person's verdict on a memory (helpful / wrong) where the provider keeps trust (Holographic)."""
    space = space_for_user(request, slug)
    provider = provider_for(space)
    try:
        if not provider.has_trust or space.is_vault:
            raise Http404("this space's provider keeps no trust")
        record_id = request.POST.get("id", "").strip()[:300]
        helpful = request.POST.get("verdict") == "helpful"
        try:
            updated = provider.feedback(record_id, helpful)
        except ProviderError as exc:
            return render(request, "dashboard/entities.html#trust", {"space": space, "error": exc.message,
                                                                   "record": None}, status=422)
    finally:
        provider.close()
    audited(request, Action.MEMORY_FEEDBACK, f"{space.slug}:{record_id}", after={
        "verdict": "helpful" if helpful else "wrong", "trust": updated.extra.get("trust")})
    return render(request, "dashboard/entities.html#trust", {"space": space, "record": updated, "error": ""})
