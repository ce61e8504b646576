"""History import and origin re-tag on a space's Maintenance tab: a dry run says what would come in and what would be
left out (and why, line by line), then the import runs as a job whose progress and cancel the Jobs page shows."""

from __future__ import annotations

import hashlib
from pathlib import Path

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from memoryhub.access.people import Perm
from memoryhub.audit.actions import Action
from memoryhub.dashboard.access import audited, person_may, space_context, space_for_user
from memoryhub.dashboard.partials import after_action
from memoryhub.jobs import runner
from memoryhub.jobs.models import Job
from memoryhub.memories.maintenance import importers
from memoryhub.memories.maintenance.importers import retag
from memoryhub.spaces.models import MemorySpace

RESULT = "dashboard/import_result.html"
ACTIVE = (Job.Status.QUEUED, Job.Status.RUNNING)


def import_form() -> dict:
    """What the Maintenance tab's import section offers: every format, and which ones name their project."""
    return {"formats": importers.choices(), "agent_formats": importers.agent_formats()}


def _import_source(request: HttpRequest) -> Path:
    """An uploaded file (stored under the data dir by its content hash, so the same file is the same path) or a
    path on the server (a file, a folder or a zip archive)."""
    upload = request.FILES.get("file")
    if upload:
        data = upload.read()
        folder = Path(settings.DATA_DIR) / "imports"
        folder.mkdir(exist_ok=True)
        name = Path(upload.name).name
        target = folder / f"{hashlib.sha256(data).hexdigest()[:16]}-{name}"
        target.write_bytes(data)
        return target
    path = Path(request.POST.get("path", "").strip()).expanduser()
    if not request.POST.get("path", "").strip() or not path.exists():
        raise ValueError(_("Choose a file to upload or give a path that exists on the server."))
    return path


def _render(request: HttpRequest, space: MemorySpace, partial: str, context: dict) -> HttpResponse:
    return after_action(request, f"{RESULT}#{partial}", {"space": space, **context}, "dashboard:maintenance",
                        slug=space.slug)


def _job(request: HttpRequest, space: MemorySpace, job: Job) -> HttpResponse:
    """The job's progress bar (the Maintenance tab polls it), or its result when it has already run."""
    job.refresh_from_db()
    return after_action(request, "dashboard/maintenance.html#job",
                        {**space_context(space, "maintenance"), "job": job, "active": job.status in ACTIVE},
                        "dashboard:maintenance", slug=space.slug)


@require_POST
@person_may(Perm.IMPORT)
def import_history(request: HttpRequest, slug: str) -> HttpResponse:
    """A dry run shows what would be imported and left out; "import" starts the job."""
    space = space_for_user(request, slug, native=True)
    fmt, origin = request.POST.get("format", "auto"), request.POST.get("origin", "").strip() or "local"
    by_workspace = request.POST.get("by_workspace") == "1"
    try:
        source = _import_source(request)
        if request.POST.get("action") == "import":
            params = {"path": str(source), "format": fmt, "origin": origin, "by_workspace": by_workspace,
                      "actor": request.user.get_username()}
            job = runner.enqueue("import_history", space=space, user=request.user, params=params)
            audited(request, Action.SPACE_IMPORT, space.slug, after={"job": job.pk, **params})
            return _job(request, space, job)
        result = importers.run(space, importers.load(source, fmt, origin), dry_run=True, by_workspace=by_workspace)
    except (ValueError, OSError, KeyError) as exc:  # importers.Unreadable is a ValueError: a sentence for the person
        return _render(request, space, "import-result", {"error": str(exc)})
    return _render(request, space, "import-result", {"result": result, "source": str(source), "format": fmt,
                                                     "origin": origin, "by_workspace": by_workspace})


@require_POST
@person_may(Perm.IMPORT)
def retag_origin(request: HttpRequest, slug: str) -> HttpResponse:
    """Preview which entries a sessions.json map would re-label; "apply" starts the job."""
    space = space_for_user(request, slug, native=True)
    origin = request.POST.get("origin", "").strip() or "qq"
    try:
        source = _import_source(request)
        if request.POST.get("action") == "apply":
            job = runner.enqueue("retag_origin", space=space, user=request.user,
                                 params={"path": str(source), "origin": origin, "actor": request.user.username})
            audited(request, Action.SPACE_RETAG, space.slug, after={"job": job.pk, "path": str(source),
                                                                   "origin": origin})
            return _job(request, space, job)
        changes = retag.preview(space, retag.load_mapping(source, origin))
    except (ValueError, OSError) as exc:
        return _render(request, space, "retag-result", {"error": str(exc)})
    return _render(request, space, "retag-result", {"changes": changes[:50], "total": len(changes),
                                                    "source": str(source), "origin": origin})
