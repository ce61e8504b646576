"""The audit log, read-only: who created, changed, approved, revoked or deleted what, filtered and paged by id."""

from __future__ import annotations

from datetime import datetime, time, timedelta

from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse
from django.utils import timezone
from django.views.decorators.http import require_GET

from memoryhub.access.people import Perm
from memoryhub.audit.models import AuditEvent
from memoryhub.dashboard.access import person_may, query_with
from memoryhub.dashboard.forms.audit import AuditFilterForm
from memoryhub.dashboard.partials import render_page

PAGE = 100


def filtered(form: AuditFilterForm) -> QuerySet:
    events = AuditEvent.objects.order_by("-id")
    if form.value("actor"):
        events = events.filter(actor__icontains=form.value("actor").strip())
    if form.value("action"):
        events = events.filter(action=form.value("action"))
    if form.value("target"):
        events = events.filter(target__icontains=form.value("target").strip())
    tz = timezone.get_current_timezone()
    if form.value("since"):
        events = events.filter(at__gte=datetime.combine(form.value("since"), time.min, tzinfo=tz))
    if form.value("until"):
        events = events.filter(at__lt=datetime.combine(form.value("until") + timedelta(days=1), time.min, tzinfo=tz))
    return events


@require_GET
@person_may(Perm.OBSERVE)
def audit_log(request: HttpRequest) -> HttpResponse:
    actions = list(AuditEvent.objects.order_by("action").values_list("action", flat=True).distinct())
    form = AuditFilterForm(request.GET, actions=actions)
    form.is_valid()
    events = filtered(form)
    if form.value("before"):
        events = events.filter(pk__lt=form.value("before"))
    rows = list(events.select_related("user")[: PAGE + 1])
    context = {"form": form, "events": rows[:PAGE], "nav": "audit", "filtering": form.has_changed()}
    if len(rows) > PAGE:
        context["older_url"] = query_with(request, before=rows[PAGE - 1].pk)
    if form.value("before"):
        context["newest_url"] = query_with(request, drop=("before",))
    return render_page(request, "dashboard/audit.html", "events", context)
