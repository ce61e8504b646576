"""The vault's pages: browse vault memories, decide agents' read requests, revoke grants, download MEMORY.md.

Only staff decide what an agent may read; the decisions themselves live in memoryhub.vault.grants. An agent
that asks the same thing again in one session (same token, criteria, spaces and matches) gets one card: one
decision answers every copy, each with its own grant.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from django.contrib import messages
from django.core.paginator import Paginator
from django.db import transaction
from django.db.models import Prefetch, Q
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseBadRequest
from django.shortcuts import get_object_or_404, render
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_GET, require_POST

from memoryhub.access import people
from memoryhub.access.people import Perm
from memoryhub.core.ids import row_ids
from memoryhub.dashboard.access import person_may
from memoryhub.dashboard.partials import after_action, render_page
from memoryhub.memories.models import CATEGORIES, Entry
from memoryhub.memories.notebooks import export
from memoryhub.spaces.models import MemorySpace, Workspace
from memoryhub.vault import grants
from memoryhub.vault.models import AccessRequest, Grant

EVENT_CATEGORIES = CATEGORIES[:6]


def mark_seen() -> None:
    """Looking at the vault clears the sidebar's grey dot."""
    MemorySpace.objects.filter(access=MemorySpace.Access.VAULT).update(last_seen_at=timezone.now())


def with_entries(requests):
    live = Entry.objects.live().select_related("space").order_by("-at", "-id")
    return requests.select_related("token").prefetch_related(
        "spaces", Prefetch("entries", live, to_attr="live_entries"))


def request_or_404(request_id: str) -> AccessRequest:
    """The request, locked for the decision (callers run inside a transaction)."""
    return get_object_or_404(AccessRequest.objects.select_for_update(), pk=request_id)


def sameness(req: AccessRequest) -> tuple:
    """What makes two requests the same question: who asked in which session, for what, over what it matched."""
    entries = tuple(sorted(getattr(req, "snapshot", None) or req.entries.values_list("pk", flat=True)))
    return (req.token_id, req.session_id, json.dumps(req.criteria, sort_keys=True),
            tuple(sorted(s.pk for s in req.spaces.all())), entries)


@dataclass
class Group:
    """Identical pending requests on one card: the oldest decides for the copies."""

    req: AccessRequest
    copies: list[AccessRequest] = field(default_factory=list)


def grouped(pending) -> list[Group]:
    groups: dict[tuple, Group] = {}
    for req in sorted(pending, key=lambda r: (r.created_at, r.pk)):
        req.snapshot = [e.pk for e in req.entries.all()]
        key = sameness(req)
        if key in groups:
            groups[key].copies.append(req)
        else:
            groups[key] = Group(req)
    return sorted(groups.values(), key=lambda g: g.req.created_at, reverse=True)


def copies_of(request: HttpRequest, req: AccessRequest) -> list[AccessRequest]:
    """The pending copies the card named (`same`), locked, and only those that really ask what `req` asks."""
    ids = [i for i in request.POST.getlist("same") if i != req.pk][:50]
    key = sameness(req)
    return [other for other in AccessRequest.objects.select_for_update().filter(
        pk__in=ids, status=AccessRequest.Status.PENDING) if sameness(other) == key]


@require_GET
@person_may(Perm.VAULT_READ)
def entries(request: HttpRequest, companion: bool = False) -> HttpResponse:
    qs = Entry.objects.live().filter(space__access=MemorySpace.Access.VAULT).select_related("space")
    chosen = [c for c in request.GET.getlist("category") if c in CATEGORIES]
    if companion:
        qs = qs.filter(category="companion")
    elif chosen:
        qs = qs.filter(category__in=chosen)
    query = request.GET.get("q", "").strip()[:200]
    for word in query.split():
        qs = qs.filter(Q(title__icontains=word) | Q(body__icontains=word))
    page = Paginator(qs.order_by("-at", "-id"), 50).get_page(request.GET.get("page"))
    mark_seen()
    context = {"page": page, "query": query, "chosen": chosen, "categories": EVENT_CATEGORIES,
               "companion": companion, "tab": "companion" if companion else "entries", "nav": "vault-memories",
               "workspaces": Workspace.objects.all()}
    return render_page(request, "vault/entries.html", "entry-list", context)


@require_GET
@person_may(Perm.VAULT_READ)
def entry(request: HttpRequest, entry_id: int) -> HttpResponse:
    item = get_object_or_404(Entry.objects.live().select_related("space"), pk=entry_id)
    names = row_ids(item.related)
    named = Entry.objects.live().filter(pk__in=names).select_related("space")
    citing = [e for e in Entry.objects.live().filter(related__icontains=f'"{item.pk}"').select_related("space")
              if str(item.pk) in e.related]
    return render(request, "vault/entry.html",
                  {"entry": item, "named": named, "citing": citing, "nav": "vault-memories"})


@require_GET
@person_may(Perm.VAULT_DECIDE)
def requests(request: HttpRequest) -> HttpResponse:
    grants.expire_idle()
    pending = with_entries(AccessRequest.objects.filter(status=AccessRequest.Status.PENDING)).prefetch_related(
        "entries")
    mark_seen()
    return render(request, "vault/requests.html", {"groups": grouped(pending), "tab": "requests", "nav": "vault"})


def decided(request: HttpRequest, req: AccessRequest, message: str, level: int = messages.SUCCESS) -> HttpResponse:
    """htmx: the request's card becomes a one-line outcome; otherwise back to the list with a message."""
    return after_action(request, "vault/requests.html#decided", {"req": req, "message": message, "level": level},
                        "dashboard:vault_requests", message=message, level=level)


def refused(request: HttpRequest, req: AccessRequest, message: str) -> HttpResponse:
    """htmx: the same card again with the reason; otherwise back to the list with a message."""
    card = with_entries(AccessRequest.objects.filter(pk=req.pk)).get()
    group = Group(card, list(AccessRequest.objects.filter(pk__in=request.POST.getlist("same"),
                                                          status=AccessRequest.Status.PENDING)))
    return after_action(request, "vault/requests.html#request-card", {"group": group, "error": message},
                        "dashboard:vault_requests", message=message, level=messages.ERROR)


@require_POST
@person_may(Perm.VAULT_DECIDE)
def approve(request: HttpRequest, request_id: str) -> HttpResponse:
    with transaction.atomic():
        req = request_or_404(request_id)
        if req.status != AccessRequest.Status.PENDING:
            return decided(request, req, _("This request was already decided."), messages.WARNING)
        if request.POST.get("all") == "1":
            ids = None
        else:
            try:
                ids = [int(v) for v in request.POST.getlist("entries")]
            except ValueError:
                return HttpResponseBadRequest("entries must be entry ids")
            if not ids:
                return refused(request, req, _("Tick at least one entry, or press Deny."))
        copies = copies_of(request, req)
        try:
            grant = grants.approve(req, ids, request.user)
            for copy in copies:
                grants.approve(copy, ids, request.user)
        except grants.OutsideRequest:
            return HttpResponseBadRequest("an approval can only name entries that matched the request")
    count = grant.entries.count()
    return decided(request, req, ngettext("Allowed %(n)d entry for session %(s)s.",
                                          "Allowed %(n)d entries for session %(s)s.", count)
                   % {"n": count, "s": req.session_id} + answered(copies))


def answered(copies: list[AccessRequest]) -> str:
    """The decision's note on the copies it answered too."""
    if not copies:
        return ""
    return " " + ngettext("The same decision answers %(n)d repeat of the request.",
                          "The same decision answers %(n)d repeats of the request.", len(copies)) % {"n": len(copies)}


@require_POST
@person_may(Perm.VAULT_DECIDE)
def deny(request: HttpRequest, request_id: str) -> HttpResponse:
    with transaction.atomic():
        req = request_or_404(request_id)
        if req.status != AccessRequest.Status.PENDING:
            return decided(request, req, _("This request was already decided."), messages.WARNING)
        copies = copies_of(request, req)
        for each in [req, *copies]:
            grants.deny(each, request.user)
    return decided(request, req, _("Denied; the agent reads nothing.") + answered(copies))


@require_GET
@person_may(Perm.VAULT_DECIDE)
def granted(request: HttpRequest) -> HttpResponse:
    grants.expire_idle()
    live = (Grant.objects.filter(ended_at__isnull=True, revoked_at__isnull=True)
            .select_related("request__token", "request__decided_by")
            .prefetch_related(Prefetch("entries", Entry.objects.live().order_by("-at"), to_attr="live_entries")))
    mark_seen()
    return render(request, "vault/grants.html", {"grants": live, "tab": "grants", "nav": "grants"})


@require_POST
@person_may(Perm.VAULT_DECIDE)
def revoke(request: HttpRequest, request_id: str) -> HttpResponse:
    grant = get_object_or_404(Grant, request_id=request_id)
    if grant.live:
        grants.revoke(grant, request.user)
        message = _("Revoked; the agent can no longer read these entries.")
    else:
        message = _("This grant had already ended.")
    return after_action(request, "vault/grants.html#revoked", {"grant": grant, "message": message},
                        "dashboard:vault_grants", message=message)


@require_GET
@person_may(Perm.EXPORT)
def export_download(request: HttpRequest, slug: str) -> HttpResponse:
    workspace = get_object_or_404(Workspace, slug=slug)
    if not people.may_export(people.person(request), workspace):
        raise Http404("no such export")
    response = HttpResponse(export.render(workspace), content_type="text/markdown; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{export.FILENAME}"'
    return response
