"""Space maintenance: consolidation preview/apply/undo, gc suggestions, compaction, packs, embeddings (history import,
re-tag and export have their own views: imports.py, exports.py).

Everything that changes data runs as a Job with a progress bar; previews and dry runs change nothing.
"""

from __future__ import annotations

from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from memoryhub.access.people import Perm
from memoryhub.audit.actions import Action
from memoryhub.dashboard.access import audited, person_may, space_context, space_for_user
from memoryhub.dashboard.partials import after_action
from memoryhub.dashboard.views.jobs import ACTIVE, outcome
from memoryhub.dashboard.views.imports import import_form
from memoryhub.jobs import runner
from memoryhub.jobs.models import Job
from memoryhub.memories.maintenance import consolidate, gc, packs, preview
from memoryhub.memories.search import vectors
from memoryhub.memories.models import ConsolidationRun, Entry
from memoryhub.spaces.models import MemorySpace

TEMPLATE = "dashboard/maintenance.html"
CONSOLIDATION = ("consolidate", "consolidate_undo")
PREVIEW = "consolidation_preview"


def _render(request: HttpRequest, partial: str, context: dict) -> HttpResponse:
    """An action's outcome: its partial for htmx; without JavaScript, back to the page (the job shows there)."""
    return after_action(request, f"{TEMPLATE}#{partial}", context, "dashboard:maintenance", slug=context["space"].slug)


def sections(space: MemorySpace, retry: bool = True) -> dict:
    """What the page's sections show; re-rendered out of band when a job of the page finishes."""
    plan, current, waiting, failed = _preview(space, retry)
    return {
        "plan": plan, "plan_current": current, "plan_job": waiting, "plan_failed": failed,
        "candidates": plan["weak"] if plan else [], "limits": consolidate.thresholds(space),
        "runs": ConsolidationRun.objects.filter(space=space)[:10], "embeddings": vectors.status(space),
        "consolidating": Job.objects.filter(space=space, kind__in=CONSOLIDATION, status__in=ACTIVE).first(),
    }


def _preview(space: MemorySpace, retry: bool = True) -> tuple[dict | None, bool, Job | None, Job | None]:
    """(the newest preview, whether it still holds, the preview job on its way, the last one if it failed).

    The plan and the weak memories come from the worker (memories/maintenance/preview.py): computing them
    took seconds at 100k entries. A missing or stale preview queues the next one, unless one is on its way
    or (`retry` False: the poll of the one that just failed) the last one failed."""
    jobs = Job.objects.filter(space=space, kind=PREVIEW)
    done = jobs.filter(status=Job.Status.SUCCEEDED).order_by("-pk").first()
    if done is not None and done.result.get("basis") == preview.basis(space):
        return done.result, True, None, None
    latest = jobs.order_by("-pk").first()
    if latest is not None and latest.status == Job.Status.FAILED and not retry:
        return (done.result if done else None), False, None, latest
    waiting = latest if latest is not None and latest.status in ACTIVE else runner.enqueue(PREVIEW, space=space)
    waiting.refresh_from_db()  # a worker may have run it already (always, in the synchronous test setup)
    if waiting.status == Job.Status.SUCCEEDED:
        return waiting.result, True, None, None
    failed = waiting if waiting.status == Job.Status.FAILED else None
    return (done.result if done else None), False, (waiting if waiting.status in ACTIVE else None), failed


def _job_response(request: HttpRequest, space: MemorySpace, job: Job, started: bool = False) -> HttpResponse:
    """The job's progress while it runs; once it ends, its result, and every section it may have changed.

    A consolidation just started also swaps the plan for a note and hides Undo, so nothing is applied twice;
    the polls in between send only the progress. A preview polls in the plan's place and brings the plan."""
    job.refresh_from_db()  # a worker may have run it already (always, in the synchronous test setup)
    if job.kind == PREVIEW:
        return _render(request, "preview", {**space_context(space, "maintenance"), **sections(space, retry=False)})
    context = {**space_context(space, "maintenance"), "job": job, "active": job.status in ACTIVE}
    if job.status not in ACTIVE:
        context.update(refresh=True, outcome=outcome(job), **sections(space))
    elif started and job.kind in CONSOLIDATION:
        context.update(refresh_plan=True, consolidating=job, runs=ConsolidationRun.objects.filter(space=space)[:10])
    return _render(request, "job", context)


@require_GET
@person_may(Perm.MAINTAIN)
def maintenance(request: HttpRequest, slug: str) -> HttpResponse:
    space = space_for_user(request, slug, native=True)
    context = {**space_context(space, "maintenance"), **sections(space),
               **import_form()}
    return render(request, TEMPLATE, context)


@require_GET
@person_may(Perm.MAINTAIN)
def job_progress(request: HttpRequest, slug: str, job_id: int) -> HttpResponse:
    """The polled progress bar of one job."""
    space = space_for_user(request, slug, native=True)
    job = get_object_or_404(Job, pk=job_id, space=space)
    return _job_response(request, space, job)


@require_POST
@person_may(Perm.MAINTAIN)
def consolidate_apply(request: HttpRequest, slug: str) -> HttpResponse:
    """Start consolidating, unless a consolidation of this space is already queued or running (then that one)."""
    space = space_for_user(request, slug, native=True)
    job = Job.objects.filter(space=space, kind__in=CONSOLIDATION, status__in=ACTIVE).first()
    if job is None:
        job = runner.enqueue("consolidate", space=space, params={"actor": request.user.username}, user=request.user)
        audited(request, Action.CONSOLIDATION_APPLY, space.slug, after={"job": job.pk})
    return _job_response(request, space, job, started=True)


@require_POST
@person_may(Perm.MAINTAIN)
def consolidate_undo(request: HttpRequest, slug: str, run_id: int) -> HttpResponse:
    space = space_for_user(request, slug, native=True)
    run = get_object_or_404(ConsolidationRun, pk=run_id, space=space, status=ConsolidationRun.Status.APPLIED)
    job = runner.enqueue("consolidate_undo", space=space, params={"run": run.pk, "actor": request.user.username},
                         user=request.user)
    audited(request, Action.CONSOLIDATION_UNDO, space.slug, before={"run": run.pk, "status": run.status},
            after={"job": job.pk})
    return _job_response(request, space, job, started=True)


@require_POST
@person_may(Perm.MAINTAIN)
def gc_keep(request: HttpRequest, slug: str, entry_id: int) -> HttpResponse:
    space = space_for_user(request, slug, native=True)
    entry = get_object_or_404(Entry.objects.live(), pk=entry_id, space=space)
    before = entry.hits
    candidate = gc.keep(entry, actor=request.user.username)
    audited(request, Action.ENTRY_KEEP, f"{space.slug}:{entry.pk}", before={"hits": before},
            after={"hits": candidate.entry.hits})
    return _render(request, "kept", {"space": space, "c": candidate})


@require_POST
@person_may(Perm.MAINTAIN)
def compact_start(request: HttpRequest, slug: str) -> HttpResponse:
    space = space_for_user(request, slug, native=True)
    job = runner.enqueue("compact", space=space, user=request.user)
    audited(request, Action.SPACE_COMPACT, space.slug, after={"job": job.pk})
    return _job_response(request, space, job)


@require_POST
@person_may(Perm.MAINTAIN)
def embed_start(request: HttpRequest, slug: str) -> HttpResponse:
    space = space_for_user(request, slug, native=True)
    if not vectors.enabled() or space.is_vault:
        raise Http404("embeddings are off, or this is a vault space")
    job = runner.enqueue("embed", space=space, user=request.user)
    audited(request, Action.SPACE_EMBED, space.slug, after={"job": job.pk})
    return _job_response(request, space, job)


@require_GET
@person_may(Perm.EXPORT)
def pack_export(request: HttpRequest, slug: str) -> HttpResponse:
    space = space_for_user(request, slug, native=True)
    data = packs.export(space)
    audited(request, Action.PACK_EXPORT, space.slug, bytes=len(data))
    response = HttpResponse(data, content_type="application/gzip")
    response["Content-Disposition"] = f'attachment; filename="{space.slug}.memoryhub-pack.tar.gz"'
    return response


@require_POST
@person_may(Perm.IMPORT)
def pack_import(request: HttpRequest) -> HttpResponse:
    """A pack becomes a new native space; the page of that space follows."""
    upload = request.FILES.get("pack")
    if not upload:
        messages.error(request, _("Choose a pack file."))
        return redirect("dashboard:home")
    try:
        packs.check_size(upload.size)  # before it is read into memory
        space = packs.import_pack(upload.read(), slug=request.POST.get("slug", "").strip())
    except packs.PackError as exc:
        messages.error(request, str(exc))
        return redirect("dashboard:home")
    audited(request, Action.PACK_IMPORT, space.slug, after={"space": space.slug,
                                                            "entries": Entry.objects.filter(space=space).count()})
    messages.success(request, _("Imported into the new space %(slug)s.") % {"slug": space.slug})
    return redirect("dashboard:maintenance", slug=space.slug)
