"""A native space's facts: what is currently true, asserted or invalidated by hand, and each slot's history."""

from __future__ import annotations

from django.db import transaction
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods, require_POST
from django_htmx.http import trigger_client_event

from memoryhub.access.people import Perm
from memoryhub.audit.actions import Action
from memoryhub.dashboard.access import audited, person_may, space_context, space_for_user
from memoryhub.dashboard.forms.memories import FactForm
from memoryhub.dashboard.forms.rules import argument_schema
from memoryhub.dashboard.partials import htmx_partial, render_page
from memoryhub.memories.facts import slots as fact_store
from memoryhub.memories.growth.persona import frame_order, said_at
from memoryhub.memories.models import Fact
from memoryhub.spaces.models import MemorySpace

CHANGED = "factsChanged"
SUBJECT_CAP, PREDICATE_CAP = (argument_schema("memory_facts", name)["maxLength"] for name in ("subject", "predicate"))
INVALIDATED = "factInvalidated"  # the open slot history listens; the list is already in the response


def fact_state(fact: Fact) -> dict:
    """A fact as its audit records show it (facts are kept in full: their history stays on the Facts tab)."""
    return {"subject": fact.subject, "predicate": fact.predicate, "value": fact.value, "negative": fact.negative,
            "status": fact.status}


def with_said_at(facts) -> list[Fact]:
    """Each fact with when it was said (its turn's own time, kept by an import of old history; a fact asserted by
    hand was said when it was asserted), which the tables show rather than when the hub stored it."""
    rows = list(facts)
    for fact in rows:
        fact.said_at = said_at(fact)
    return rows


def facts_context(space: MemorySpace, form: FactForm | None = None, **extra) -> dict:
    active = Fact.objects.filter(space=space, status=Fact.Status.ACTIVE).select_related("source_entry").order_by(
        "-created_at")
    ordered = sorted(active, key=frame_order)  # stable: the newest first within one predicate
    return {**space_context(space, "facts"), "facts": with_said_at(ordered), "fact_form": form or FactForm(),
            "predicates": fact_store.PREDICATES, **extra}


@require_http_methods(["GET", "POST"])
@person_may(Perm.MEMORY_READ, post=Perm.MEMORY_CHANGE)
def facts(request: HttpRequest, slug: str) -> HttpResponse:
    """The current facts; POST asserts one by hand (a new single value replaces the old one)."""
    space = space_for_user(request, slug, native=True)
    if request.method == "GET":
        return render_page(request, "dashboard/facts.html", "fact-list", facts_context(space))
    form = FactForm(request.POST)
    if form.is_valid():
        data = form.cleaned_data
        with transaction.atomic():
            changes = fact_store.assert_fact(space, data["subject"], data["predicate"], data["value"],
                                             negative=data["negative"], origin="local", method="manual")
            if changes.asserted or changes.refreshed:
                ended = {str(f.pk): {**fact_state(f), "status": Fact.Status.ACTIVE} for f in changes.invalidated}
                touched = changes.asserted + changes.refreshed + changes.invalidated
                audited(request, Action.FACT_ASSERT, space.slug, before=ended,
                        after={str(f.pk): fact_state(f) for f in touched})
        if changes.asserted or changes.refreshed:
            if not htmx_partial(request):
                return redirect("dashboard:facts", slug)
            note = _("Refreshed an existing fact.") if changes.refreshed else (
                _("Asserted; %(n)d older value(s) invalidated.") % {"n": len(changes.invalidated)}
                if changes.invalidated else _("Asserted."))
            response = render(request, "dashboard/facts.html#fact-form", facts_context(space, note=note))
            return trigger_client_event(response, CHANGED)
        form.add_error(None, _("The fact was not accepted: check the predicate and value."))
    return render_page(request, "dashboard/facts.html", "fact-form", facts_context(space, form))


@require_POST
@person_may(Perm.MEMORY_CHANGE)
def invalidate(request: HttpRequest, slug: str, pk: int) -> HttpResponse:
    """Mark one fact no longer true; it stays in the slot's history."""
    space = space_for_user(request, slug, native=True)
    with transaction.atomic():
        gone = fact_store.invalidate_fact(space, fact_id=pk)
        if gone:
            audited(request, Action.FACT_INVALIDATE, space.slug,
                    before={str(f.pk): {**fact_state(f), "status": Fact.Status.ACTIVE} for f in gone},
                    after={str(f.pk): {"status": f.status} for f in gone})
    if not htmx_partial(request):
        return redirect("dashboard:facts", slug)
    return trigger_client_event(render(request, "dashboard/facts.html#fact-list", facts_context(space)), INVALIDATED)


@require_GET
@person_may(Perm.MEMORY_READ)
def history(request: HttpRequest, slug: str) -> HttpResponse:
    """Every fact ever held in one slot (subject + predicate), newest first, with when it stopped being true."""
    space = space_for_user(request, slug, native=True)
    subject = request.GET.get("subject", "user")[:SUBJECT_CAP]
    predicate = request.GET.get("predicate", "")[:PREDICATE_CAP]
    rows = Fact.objects.filter(space=space, subject=subject, predicate=predicate).select_related(
        "invalidated_by", "source_entry").order_by("-created_at", "-id")
    context = {**space_context(space, "facts"), "subject": subject, "predicate": predicate,
               "history": with_said_at(rows)}
    return render_page(request, "dashboard/fact_history.html", "history", context)
