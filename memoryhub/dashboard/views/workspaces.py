"""Workspaces: the directories agents named, who named them, and whether the hub may write MEMORY.md there.

An agent naming a path never makes the hub write into it: a person switches each workspace's
MEMORY.md export on here (memories/notebooks/export.py writes only where it is on), and chooses
whether vault spaces go in it (off by default: the agent can read the file in its own directory).
Each export shows how its last write went (the MEMORY.md job's state, with the reason when it failed).
"""

from __future__ import annotations

import os

from django.contrib import messages
from django.db import transaction
from django.db.models import Count
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from memoryhub.access.people import Perm
from memoryhub.audit.actions import Action
from memoryhub.dashboard.access import audited, person_may
from memoryhub.jobs.models import Job
from memoryhub.memories.notebooks import export
from memoryhub.spaces.models import Workspace

RECENT_EXPORTS = 500  # MEMORY.md jobs looked at for each workspace's latest


def last_exports() -> dict[int, Job]:
    """Each workspace's latest MEMORY.md job, by workspace id."""
    latest: dict[int, Job] = {}
    for job in Job.objects.filter(kind="memory_md").order_by("-id")[:RECENT_EXPORTS]:
        latest.setdefault(job.params.get("workspace"), job)
    return latest


@require_GET
@person_may(Perm.CONFIGURE)
def workspace_list(request: HttpRequest) -> HttpResponse:
    workspaces = list(Workspace.objects.annotate(space_count=Count("spaces")).order_by("name", "slug"))
    exports = last_exports()
    for workspace in workspaces:
        workspace.last_export = exports.get(workspace.pk)
    return render(request, "dashboard/workspaces.html", {"nav": "workspaces", "workspaces": workspaces})


@require_POST
@person_may(Perm.CONFIGURE)
def workspace_export(request: HttpRequest, slug: str) -> HttpResponse:
    """Switch MEMORY.md export on or off (form field `export`: 1 or 0), or vault spaces in it (`vault`: 1 or 0);
    switching on writes the file soon after."""
    workspace = get_object_or_404(Workspace, slug=slug)
    if "vault" in request.POST:
        return include_vault(request, workspace, request.POST.get("vault") == "1")
    on = request.POST.get("export") == "1"
    with transaction.atomic():
        Workspace.objects.filter(pk=workspace.pk).update(export_memory_md=on)
        audited(request, Action.WORKSPACE_EXPORT_ON if on else Action.WORKSPACE_EXPORT_OFF, workspace.slug,
                before={"export_memory_md": workspace.export_memory_md}, after={"export_memory_md": on},
                path=workspace.path)
    workspace.export_memory_md = on
    if on:
        export.enqueue(workspace)
        if not os.path.isdir(workspace.path):
            messages.warning(request, _("Switched on, but %(path)s is not a directory on this machine: nothing can "
                                        "be written there until it is. The export's state below says so.")
                             % {"path": workspace.path})
        else:
            messages.success(request, _("MEMORY.md will be written to %(path)s.") % {"path": workspace.path})
    else:
        messages.success(request, _("The hub no longer writes MEMORY.md to %(path)s.") % {"path": workspace.path})
    return redirect("dashboard:workspaces")


def include_vault(request: HttpRequest, workspace: Workspace, on: bool) -> HttpResponse:
    """Vault spaces in the workspace's MEMORY.md or not (audited); the file is rewritten when the export is on."""
    with transaction.atomic():
        Workspace.objects.filter(pk=workspace.pk).update(export_vault=on)
        audited(request, Action.WORKSPACE_EXPORT_VAULT_ON if on else Action.WORKSPACE_EXPORT_VAULT_OFF,
                workspace.slug, before={"export_vault": workspace.export_vault}, after={"export_vault": on},
                path=workspace.path)
    workspace.export_vault = on
    if workspace.export_memory_md:
        export.enqueue(workspace)
    if on:
        messages.warning(request, _("Vault memories now go into MEMORY.md in %(path)s, where agents working there "
                                    "can read them.") % {"path": workspace.path or workspace.slug})
    else:
        messages.success(request, _("MEMORY.md leaves vault memories out again."))
    return redirect("dashboard:workspaces")
