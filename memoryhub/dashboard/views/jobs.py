"""Jobs: every background task with its progress (polled while any is queued or running), and one job's page with
its timings, log and result."""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from memoryhub.access.people import Perm
from memoryhub.audit.actions import Action
from memoryhub.dashboard.access import audited, person_may
from memoryhub.dashboard.partials import after_action, htmx_partial, render_page
from memoryhub.jobs import runner
from memoryhub.jobs.models import Job
from memoryhub.memories.models import ConsolidationRun

SHOWN = 200
ACTIVE = (Job.Status.QUEUED, Job.Status.RUNNING)  # a job in these states is polled


def _table() -> dict:
    """Context for the job table; `polling` keeps the table refreshing while work is pending."""
    return {"jobs": Job.objects.select_related("space")[:SHOWN], "total": Job.objects.count(),
            "shown": SHOWN, "polling": Job.objects.filter(status__in=ACTIVE).exists(), "nav": "jobs"}


def outcome(job: Job) -> dict:
    """What the job's result refers to, for its result sentence: a consolidation's run with what it touched."""
    if job.kind != "consolidate" or job.status != Job.Status.SUCCEEDED:
        return {}
    run = ConsolidationRun.objects.filter(pk=job.result.get("run"), space_id=job.space_id).first()
    if run is None:
        return {}
    merges: dict[int, list[int]] = {}
    for loser, winner in sorted(run.merged.items(), key=lambda pair: int(pair[0])):
        merges.setdefault(int(winner), []).append(int(loser))
    digests = [(int(digest), len(turns)) for digest, turns in sorted(run.digested.items(), key=lambda p: int(p[0]))]
    return {"run": run, "merges": sorted(merges.items()), "merged": len(run.merged), "digests": digests,
            "archived": run.archived}


def _respond(request: HttpRequest) -> HttpResponse:
    return after_action(request, "dashboard/jobs.html#job-table", _table(), "dashboard:jobs")


@require_GET
@person_may(Perm.OBSERVE)
def job_list(request: HttpRequest) -> HttpResponse:
    runner.fail_stale()
    return render_page(request, "dashboard/jobs.html", "job-table", _table())


@require_GET
@person_may(Perm.OBSERVE)
def job_detail(request: HttpRequest, job_id: int) -> HttpResponse:
    """One job: when it was queued, started and finished, its log, its result or error; polled while active."""
    runner.fail_stale()
    job = get_object_or_404(Job.objects.select_related("space", "created_by"), pk=job_id)
    context = {"job": job, "outcome": outcome(job), "active": job.status in ACTIVE, "nav": "jobs"}
    return render_page(request, "dashboard/job.html", "job-detail", context)


@require_POST
@person_may(Perm.MAINTAIN)
def job_selftest(request: HttpRequest) -> HttpResponse:
    """Enqueue the self-test job, so people can see that the worker picks up work."""
    job = runner.enqueue("selftest", user=request.user)
    audited(request, Action.JOB_ENQUEUE, f"job:{job.pk}", after={"job": job.pk, "kind": job.kind})
    if not htmx_partial(request):
        messages.success(request, _("Self test queued."))
    return _respond(request)


@require_POST
@person_may(Perm.MAINTAIN)
def job_retry(request: HttpRequest, job_id: int) -> HttpResponse:
    """Run a failed job again as a new row; the failed one stays for the record."""
    job = get_object_or_404(Job, pk=job_id)
    if job.status != Job.Status.FAILED:
        if not htmx_partial(request):
            messages.error(request, _("Only failed jobs can be retried."))
        return _respond(request)
    new = runner.retry(job, user=request.user)
    audited(request, Action.JOB_RETRY, f"job:{job.pk}", before={"job": job.pk, "status": job.status},
            after={"job": new.pk, "kind": new.kind})
    if not htmx_partial(request):
        messages.success(request, _("%(label)s queued again.") % {"label": _(job.label or job.kind)})
    return _respond(request)


@require_POST
@person_may(Perm.MAINTAIN)
def job_cancel(request: HttpRequest, job_id: int) -> HttpResponse:
    """Cancel a queued or running job (seed 000): it stops at its next step, or at once when it waits on a
    provider or a model, and then says cancelled. From the job's own page, back to it; else the job table."""
    job = get_object_or_404(Job, pk=job_id)
    status = job.status
    if runner.cancel(job):
        job.refresh_from_db(fields=["status", "cancel_requested_at"])
        audited(request, Action.JOB_CANCEL, f"job:{job.pk}", before={"status": status},
                after={"status": job.status, "cancel_requested": bool(job.cancel_requested_at)}, kind=job.kind)
        if not htmx_partial(request):
            messages.success(request, _("%(label)s: cancelling.") % {"label": _(job.label or job.kind)})
    elif not htmx_partial(request):
        messages.error(request, _("This job has already finished."))
    if request.POST.get("next") == "job":
        return redirect("dashboard:job", job_id=job.pk)
    return _respond(request)
