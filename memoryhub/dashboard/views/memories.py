"""A space's memories tab: browse, search, expand, edit, forget, note, bulk actions; and its activity log.

Browsing is the hub's own reading: it never bumps access counts. Native pages use keyset
cursors on (at, id), so a page costs the same at 100,000 entries as at 100.
"""

from __future__ import annotations

import json
from datetime import datetime, time, timedelta

from django.contrib import messages
from django.db import connection, transaction
from django.db.models import Q, QuerySet
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_GET, require_http_methods, require_POST
from django_htmx.http import trigger_client_event

from memoryhub.access.people import Perm
from memoryhub.access.policy import Target
from memoryhub.audit.actions import Action
from memoryhub.audit.changes import differing, entry_state
from memoryhub.core.errors import ApiError
from memoryhub.core.ids import row_id, row_ids
from memoryhub.dashboard.access import (audited, capabilities, person_call, person_may, query_with, space_context,
                                        space_for_user)
from memoryhub.dashboard.forms.graph import RecordForm
from memoryhub.dashboard.forms.memories import EntryForm, MemoryFilterForm, NoteForm
from memoryhub.dashboard.forms.rules import perform
from memoryhub.dashboard.partials import after_action, htmx_partial, render_page
from memoryhub.memories.write import gateway, marks
from memoryhub.memories.write.access_counts import recall_ids
from memoryhub.memories.search import fulltext as fts
from memoryhub.memories.models import Entry, Kind, OpLog, Source
from memoryhub.memories.text.categories import classify
from memoryhub.spaces.models import MemorySpace
from memoryhub.spaces.provider_services import provider_for, record_space_error
from providers.base import ProviderError

PAGE = 50
RECALLS_SHOWN = 20  # the newest recalls a memory's page lists
SEARCH_LIMIT = PAGE  # best matches shown for a search (a page of them)
CHANGED = "memoriesChanged"
BULK_ACTIONS = ("archive", "unarchive", "forget")


def space_origins(space: MemorySpace) -> list[str]:
    """The origins present in a space, for the filter: one index probe per origin (a loose index scan
    on entry_space_origin) instead of reading every entry, which took 120 ms at 100k on PostgreSQL."""
    table = Entry._meta.db_table
    with connection.cursor() as cur:
        cur.execute(
            f"WITH RECURSIVE o(origin) AS (SELECT min(origin) FROM {table} WHERE space_id = %s UNION ALL "
            f"SELECT (SELECT min(origin) FROM {table} WHERE space_id = %s AND origin > o.origin) FROM o "
            "WHERE o.origin IS NOT NULL) SELECT origin FROM o WHERE origin IS NOT NULL LIMIT 50",
            [space.pk, space.pk])
        return [row[0] for row in cur.fetchall()]


def filtered(space: MemorySpace, form: MemoryFilterForm) -> QuerySet:
    """Live entries of the space narrowed by every filter but the text query."""
    entries = Entry.objects.live().filter(space=space)
    if form.value("category"):
        entries = entries.filter(category__in=form.value("category"))
    if form.value("tag"):
        # Tags are a JSON list; match one whole, JSON-encoded element.
        entries = entries.filter(tags__icontains=json.dumps(form.value("tag").strip()))
    if form.value("origin"):
        entries = entries.filter(origin=form.value("origin"))
    tz = timezone.get_current_timezone()
    if form.value("since"):
        entries = entries.filter(at__gte=datetime.combine(form.value("since"), time.min, tzinfo=tz))
    if form.value("until"):
        entries = entries.filter(at__lt=datetime.combine(form.value("until") + timedelta(days=1), time.min, tzinfo=tz))
    archived = form.value("archived")
    if archived == "only":
        entries = entries.filter(archived=True)
    elif archived != "all":
        entries = entries.filter(archived=False)
    return entries


def keyset_page(entries: QuerySet, space: MemorySpace, before: int | None, after: int | None) -> dict:
    """One page, newest first, from a cursor entry: (older than `before`) or (newer than `after`)."""
    cursor = before or after
    pivot = Entry.objects.filter(space=space, pk=cursor).values_list("at", flat=True).first() if cursor else None
    if pivot is not None and after:
        rows = list(entries.filter(Q(at__gt=pivot) | Q(at=pivot, pk__gt=after)).order_by("at", "id")[: PAGE + 1])
        has_newer = len(rows) > PAGE
        return {"entries": rows[:PAGE][::-1], "has_newer": has_newer, "has_older": True}
    if pivot is not None:
        rows = list(entries.filter(Q(at__lt=pivot) | Q(at=pivot, pk__lt=before)).order_by("-at", "-id")[: PAGE + 1])
        return {"entries": rows[:PAGE], "has_older": len(rows) > PAGE, "has_newer": True}
    rows = list(entries.order_by("-at", "-id")[: PAGE + 1])
    return {"entries": rows[:PAGE], "has_older": len(rows) > PAGE, "has_newer": False}


def native_listing(request: HttpRequest, space: MemorySpace, form: MemoryFilterForm) -> dict:
    entries = filtered(space, form).defer("body")  # a row shows the headline; "Show full text" fetches the body
    query = (form.value("q") or "").strip()
    if query:
        hits = fts.query([space.pk], query, limit=SEARCH_LIMIT, recallable_only=False,
                         origin=form.value("origin") or None, categories=form.value("category") or None)
        found = entries.in_bulk([h.entry_id for h in hits])
        return {"entries": [found[h.entry_id] for h in hits if h.entry_id in found], "searching": True}
    page = keyset_page(entries, space, form.value("before"), form.value("after"))
    rows = page["entries"]
    if rows:
        page["older_url"] = query_with(request, drop=("after",), before=rows[-1].pk)
        page["newer_url"] = query_with(request, drop=("before",), after=rows[0].pk)
    return page


def remote_listing(space: MemorySpace, form: MemoryFilterForm) -> dict:
    """A third-party space: its own search or browse; a failure is shown, never raised."""
    caps = capabilities(space)
    query = (form.value("q") or "").strip()
    page = form.value("page") or 0
    try:
        provider = provider_for(space)
        if query and caps.search:
            return {"records": provider.search(query, limit=SEARCH_LIMIT), "searching": True}
        if caps.browse:
            rows = provider.browse(limit=PAGE + 1, offset=page * PAGE)
            return {"records": rows[:PAGE], "page": page, "has_older": len(rows) > PAGE, "has_newer": page > 0}
    except ProviderError as exc:
        record_space_error(space, exc)
        return {"records": [], "provider_error": exc.message}
    return {"records": [], "cannot_browse": True}


def listing_context(request: HttpRequest, space: MemorySpace, note_form: NoteForm | None = None) -> dict:
    origins = space_origins(space) if space.is_native else []
    form = MemoryFilterForm(request.GET, origins=origins)
    form.is_valid()
    context = {**space_context(space, "memories"), "form": form, "origins": origins,
               "note_form": note_form or NoteForm(), "query": (form.value("q") or "").strip()}
    if space.is_native:
        context.update(native_listing(request, space, form))
    else:
        context.update(remote_listing(space, form))
        if "page" in context:
            context["older_url"] = query_with(request, page=context["page"] + 1)
            context["newer_url"] = query_with(request, page=context["page"] - 1)
    return context


@require_GET
@person_may(Perm.MEMORY_READ)
def memories(request: HttpRequest, slug: str) -> HttpResponse:
    space = space_for_user(request, slug)
    return render_page(request, "dashboard/memories.html", "results", listing_context(request, space))


def native_entry(space: MemorySpace, pk: int) -> Entry:
    """A live entry of this (native) space, or 404."""
    entry = Entry.objects.live().filter(space=space, pk=pk).first()
    if entry is None:
        raise Http404("no such entry")
    return entry


@require_GET
@person_may(Perm.MEMORY_READ)
def entry_detail(request: HttpRequest, slug: str, pk: int) -> HttpResponse:
    """The full text of one entry (expanded in place, or as its own page)."""
    space = space_for_user(request, slug, native=True)
    entry = native_entry(space, pk)
    expanded = request.GET.get("collapse") != "1"
    context = {**space_context(space, "memories"), "entry": entry, "entries": [entry], "expanded": expanded}
    if not htmx_partial(request):
        context["recalls"] = recalls_of(entry)
        context["facts"] = entry.facts.order_by("subject", "predicate", "-created_at")[:50]  # what it taught the hub
    return render_page(request, "dashboard/entry.html", "entries", context)


def recalls_of(entry: Entry, shown: int = RECALLS_SHOWN) -> list[OpLog]:
    """The op log's recalls that brought this entry back to an agent, newest first: who, when, for which words
    (the query after its "q="). Only as far back as the op log keeps, and only rows that name their entries."""
    rows = OpLog.objects.filter(space_id=entry.space_id, operation="recall", detail__contains=str(entry.pk))
    found = []
    for row in rows.order_by("-id")[:shown * 5]:
        if entry.pk in recall_ids(row.detail):
            row.query = row.detail.removeprefix("q=").rsplit(" hits=", 1)[0]
            found.append(row)
            if len(found) == shown:
                break
    return found


@require_http_methods(["GET", "POST"])
@person_may(Perm.MEMORY_CHANGE)
def entry_edit(request: HttpRequest, slug: str, pk: int) -> HttpResponse:
    """Correct an entry; the new text is redacted like any write before it is stored."""
    space = space_for_user(request, slug, native=True)
    entry = native_entry(space, pk)
    initial = {"title": entry.title, "body": entry.body, "category": entry.category, "tags": ", ".join(entry.tags)}
    form = EntryForm(request.POST or None, initial=initial)
    context = {**space_context(space, "memories"), "entry": entry, "form": form}
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        before = entry_state(entry)
        with transaction.atomic():
            redacted = gateway.edit(entry, title=data["title"], body=data["body"], category=data["category"],
                                    tags=data["tags"], actor=request.user.get_username()).redactions
            audited(request, Action.ENTRY_EDIT, f"{space.slug}:{pk}", *differing(before, entry_state(entry)))
        if htmx_partial(request):
            return render(request, "dashboard/entry.html#entries",
                          {**context, "entries": [entry], "expanded": True, "redacted": redacted})
        return redirect("dashboard:entry", slug, pk)
    return render_page(request, "dashboard/entry.html", "edit-form", context)


@require_POST
@person_may(Perm.MEMORY_CHANGE)
def entry_forget(request: HttpRequest, slug: str, pk: int) -> HttpResponse:
    """memory_forget, as the person: the entry of this page, forgotten by the operation agents call."""
    space = space_for_user(request, slug, native=True)
    entry = native_entry(space, pk)
    with transaction.atomic():
        perform(person_call(request), "memory_forget", {"id": str(entry.pk)}, Target(space, entry=entry))
        audited(request, Action.ENTRY_FORGET, f"{space.slug}:{pk}", before=entry_state(entry))
    return after_action(request, None, {}, "dashboard:space", slug)


@require_POST
@person_may(Perm.MEMORY_CHANGE)
def record_forget(request: HttpRequest, slug: str) -> HttpResponse:
    """Forget one record of a third-party space, where its provider can: memory_forget, as the person, so every
    record a write became goes (the id a person sees is the provider's; an agent's carries the space's slug)."""
    space = space_for_user(request, slug, can="forget")
    form = RecordForm(request.POST)
    if space.is_native or not form["id"].value():
        raise Http404("nothing to forget here")
    if not form.is_valid():
        return render(request, "dashboard/memories.html#refusal", {"message": form.refusal()}, status=400)
    record_id = form.cleaned_data["id"]
    try:
        perform(person_call(request), "memory_forget", {"id": f"{space.slug}:{record_id}"})
    except ProviderError as exc:
        record_space_error(space, exc)
        return render(request, "dashboard/memories.html#inline-error", {"message": exc.message, "provider_error": ""})
    except ApiError as exc:  # the operation's refusal: no such record, or one its provider will not forget
        return render(request, "dashboard/memories.html#refusal", {"message": exc.message})
    audited(request, Action.RECORD_FORGET, f"{space.slug}:{record_id}", before={"id": record_id})
    return after_action(request, None, {}, "dashboard:space", slug)


@require_POST
@person_may(Perm.MEMORY_CHANGE)
def note(request: HttpRequest, slug: str) -> HttpResponse:
    """"Note something": a person's write, through the same write gateway (redaction, facts) as an agent's."""
    space = space_for_user(request, slug, can="remember")
    form = NoteForm(request.POST)
    context = {**space_context(space, "memories"), "note_form": form}
    if form.is_valid():
        data = form.cleaned_data
        draft = gateway.Draft(kind=Kind.NOTE, category=data["category"] or classify(data["text"]), title=data["title"],
                              body=data["text"], tags=data["tags"], source=Source.USER)
        try:
            written = gateway.write(space, draft, actor=request.user.get_username())
        except ProviderError as exc:
            form.add_error(None, exc.message)
        else:
            context.update(note_form=NoteForm(), written=written)
            stored = entry_state(written.entry) if written.entry else {"category": draft.category}
            target = f"{space.slug}:{written.entry.pk}" if written.entry else written.id
            audited(request, Action.ENTRY_NOTE, target, after={"id": written.id, "created": written.created, **stored})
    if not htmx_partial(request):
        if "written" in context:
            messages.success(request, _("Noted."))
            return redirect("dashboard:space", slug)
        return render(request, "dashboard/memories.html", listing_context(request, space, note_form=form))
    response = render(request, "dashboard/memories.html#note-form", context)
    if "written" in context:
        trigger_client_event(response, CHANGED)
    return response


@require_POST
@person_may(Perm.MEMORY_CHANGE)
def bulk(request: HttpRequest, slug: str) -> HttpResponse:
    """Archive, unarchive or forget the selected entries, after a confirmation that says how many."""
    space = space_for_user(request, slug, native=True)
    action = request.POST.get("action", "")
    ids = row_ids(request.POST.getlist("ids"))
    entries = list(Entry.objects.live().filter(space=space, pk__in=ids))
    context = {**space_context(space, "memories"), "action": action, "entries": entries}
    if action not in BULK_ACTIONS or not entries:
        context["message"] = _("Select some entries and an action first.")
        return render(request, "dashboard/memories.html#bulk-confirm", context)
    if request.POST.get("confirm") != "1":
        return render(request, "dashboard/memories.html#bulk-confirm", context)
    actor = request.user.get_username()
    with transaction.atomic():
        if action == "forget":
            before, after = {str(e.pk): entry_state(e) for e in entries}, None
            for entry in entries:
                gateway.forget(entry, actor=actor)
        else:
            before = {str(e.pk): {"archived": e.archived} for e in entries}
            after = {str(e.pk): {"archived": action == "archive"} for e in entries}
            marks.archive(space, [e.pk for e in entries], archived=(action == "archive"), actor=actor)
        audited(request, f"entry.bulk_{action}", space.slug, before=before, after=after)
    context["done"] = {
        "archive": ngettext("Archived %(count)d entry.", "Archived %(count)d entries.", len(entries)),
        "unarchive": ngettext("Unarchived %(count)d entry.", "Unarchived %(count)d entries.", len(entries)),
        "forget": ngettext("Forgot %(count)d entry.", "Forgot %(count)d entries.", len(entries)),
    }[action] % {"count": len(entries)}
    if not htmx_partial(request):
        return redirect("dashboard:space", slug)
    return trigger_client_event(render(request, "dashboard/memories.html#bulk-confirm", context), CHANGED)


@require_GET
@person_may(Perm.MEMORY_READ)
def activity(request: HttpRequest, slug: str) -> HttpResponse:
    """The space's op log, newest first, paged by id."""
    space = space_for_user(request, slug, native=True)
    ops = OpLog.objects.filter(space=space).order_by("-id")
    before = request.GET.get("before", "")
    if row_id(before) is not None:
        ops = ops.filter(pk__lt=row_id(before))
    rows = list(ops[: PAGE + 1])
    context = {**space_context(space, "activity"), "ops": rows[:PAGE], "has_older": len(rows) > PAGE}
    if context["has_older"]:
        context["older_url"] = reverse("dashboard:activity", args=[slug]) + f"?before={rows[PAGE - 1].pk}"
    return render_page(request, "dashboard/activity.html", "ops", context)
