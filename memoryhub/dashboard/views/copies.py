"""Move or copy a space into another (any engine): pick a target, read what would go and what the target cannot keep,
run the copy as a job, read its receipts, and only then, if the person asks, remove what arrived from the source."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from memoryhub.access.people import Perm
from memoryhub.audit.actions import Action
from memoryhub.dashboard.access import audited, person_may, space_context, space_for_user
from memoryhub.dashboard.partials import after_action, render_page
from memoryhub.jobs.models import Job
from memoryhub.memories.maintenance import copies
from memoryhub.memories.models import CopyReceipt, SpaceCopy
from memoryhub.spaces.models import MemorySpace

TEMPLATE = "dashboard/copy.html"
ACTIVE = (Job.Status.QUEUED, Job.Status.RUNNING)
PROBLEMS_SHOWN = 50


def _target(source: MemorySpace, slug: str) -> MemorySpace | None:
    return next((s for s in copies.targets(source) if s.slug == slug), None)


def _pairs(source: MemorySpace) -> list[dict]:
    """This space's earlier copies, each with its receipts' counts and the ones that did not arrive."""
    out = []
    for copy in SpaceCopy.objects.filter(source=source).select_related("target"):
        copies.refresh(copy)
        problems = CopyReceipt.objects.filter(copy=copy).exclude(
            state__in=copies.SENT).order_by("-updated_at")[:PROBLEMS_SHOWN]
        out.append({"copy": copy, "receipts": copies.summary(copy), "problems": problems})
    return out


def _context(request: HttpRequest, source: MemorySpace, **extra) -> dict:
    return {**space_context(source, "copy"), "targets": copies.targets(source), "pairs": _pairs(source), **extra}


@require_GET
@person_may(Perm.SPACES)
def copy_page(request: HttpRequest, slug: str) -> HttpResponse:
    source = space_for_user(request, slug)
    wanted = request.GET.get("to", "").strip()
    context = _context(request, source)
    if wanted:
        target = _target(source, wanted)
        if target is None:
            context["error"] = _("%(space)s cannot take this space's memories.") % {"space": wanted}
        else:
            try:
                context.update(target=target, preview=copies.preview(source, target))
            except copies.CopyRefused as exc:
                context["error"] = str(exc)
    elif not source.is_native and not context["caps"].browse:
        context["error"] = str(_("This provider cannot list its memories, so there is nothing to copy from."))
    return render_page(request, TEMPLATE, "preview", context)


def _job(request: HttpRequest, source: MemorySpace, job: Job) -> HttpResponse:
    job.refresh_from_db()
    context = {**space_context(source, "copy"), "job": job, "active": job.status in ACTIVE}
    if job.status not in ACTIVE:
        context.update(pairs=_pairs(source), refresh=True)
    return after_action(request, f"{TEMPLATE}#job", context, "dashboard:space_copy", slug=source.slug)


@require_POST
@person_may(Perm.SPACES)
def copy_start(request: HttpRequest, slug: str) -> HttpResponse:
    source = space_for_user(request, slug)
    target = _target(source, request.POST.get("to", "").strip())
    if target is None:
        return render_page(request, TEMPLATE, "preview", _context(
            request, source, error=_("Choose a space this one can be copied into.")), status=400)
    job = copies.start(source, target, actor=request.user.get_username(), user=request.user)
    audited(request, Action.SPACE_COPY, f"{source.slug}→{target.slug}", after={"job": job.pk, "target": target.slug})
    return _job(request, source, job)


@require_POST
@person_may(Perm.SPACES)
def copy_forget(request: HttpRequest, slug: str) -> HttpResponse:
    """Remove from this space what the copy into `to` delivered: only after the person ticked that they want it."""
    source = space_for_user(request, slug)
    target = get_object_or_404(MemorySpace, slug=request.POST.get("to", "").strip())
    if request.POST.get("confirm") != "1":
        return render_page(request, TEMPLATE, "preview", _context(
            request, source, error=_("Tick the box to confirm that the copied memories leave this space.")),
            status=400)
    try:
        copy = copies.pair(source, target, request.user.get_username())
    except copies.CopyRefused as exc:
        return render_page(request, TEMPLATE, "preview", _context(request, source, error=str(exc)), status=400)
    before = copies.summary(copy)
    job = copies.forget_source(copy, actor=request.user.get_username(), user=request.user)
    audited(request, Action.SPACE_COPY_FORGET, f"{source.slug}→{target.slug}",
            before={"removable": before["removable"], "forgotten": before["forgotten"]}, after={"job": job.pk})
    return _job(request, source, job)


@require_GET
@person_may(Perm.SPACES)
def copy_job(request: HttpRequest, slug: str, job_id: int) -> HttpResponse:
    """The polled progress of a copy (or of a removal from the source)."""
    source = space_for_user(request, slug)
    return _job(request, source, get_object_or_404(Job, pk=job_id, space=source))

