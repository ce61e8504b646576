"""Jobs: every background task with its progress, polled while any is queued or running."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from memoryhub.audit.models import record
from memoryhub.dashboard.partials import htmx_partial, render_page
from memoryhub.jobs import runner
from memoryhub.jobs.models import Job

SHOWN = 200
ACTIVE = ("queued", "running")


def _elapsed(job: Job) -> str:
    """How long a job ran, or has been running so far; blank before it starts."""
    if job.started_at is None:
        return ""
    seconds = max(0.0, ((job.finished_at or timezone.now()) - job.started_at).total_seconds())
    if seconds < 60:
        return _("%(seconds).1f s") % {"seconds": seconds}
    minutes, rest = divmod(int(seconds), 60)
    return _("%(minutes)d min %(seconds)d s") % {"minutes": minutes, "seconds": rest}


def _table() -> dict:
    """Context for the job table; `polling` keeps the table refreshing while work is pending."""
    jobs = list(Job.objects.select_related("space")[:SHOWN])
    for job in jobs:
        job.elapsed = _elapsed(job)
    return {"jobs": jobs, "total": Job.objects.count(), "shown": SHOWN,
            "polling": Job.objects.filter(status__in=ACTIVE).exists(), "nav": "jobs"}


def _respond(request: HttpRequest) -> HttpResponse:
    if htmx_partial(request):
        return render(request, "dashboard/jobs.html#job-table", _table())
    return redirect("dashboard:jobs")


@require_GET
@login_required
def job_list(request: HttpRequest) -> HttpResponse:
    runner.fail_stale()
    return render_page(request, "dashboard/jobs.html", "job-table", _table())


@require_POST
@login_required
def job_selftest(request: HttpRequest) -> HttpResponse:
    """Enqueue the self-test job, so people can see that the worker picks up work."""
    job = runner.enqueue("selftest", user=request.user)
    record(request.user.get_username(), "job.enqueue", f"job:{job.pk}", user=request.user, kind=job.kind)
    if not htmx_partial(request):
        messages.success(request, _("Self test queued."))
    return _respond(request)


@require_POST
@login_required
def job_retry(request: HttpRequest, job_id: int) -> HttpResponse:
    """Run a failed job again as a new row; the failed one stays for the record."""
    job = get_object_or_404(Job, pk=job_id)
    if job.status != "failed":
        if not htmx_partial(request):
            messages.error(request, _("Only failed jobs can be retried."))
        return _respond(request)
    new = runner.retry(job, user=request.user)
    record(request.user.get_username(), "job.retry", f"job:{job.pk}", user=request.user, kind=job.kind, new=new.pk)
    if not htmx_partial(request):
        messages.success(request, _("%(label)s queued again.") % {"label": job.label or job.kind})
    return _respond(request)
