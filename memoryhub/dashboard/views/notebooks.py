"""The Notebook page: read and edit a workspace's (or the hub's) MEMORY.md / USER.md under the agents' rules."""

from __future__ import annotations

from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from memoryhub.access.people import Perm
from memoryhub.audit.models import AuditEvent
from memoryhub.dashboard.access import person_may
from memoryhub.dashboard.forms.notebooks import NotebookChangeForm
from memoryhub.dashboard.partials import htmx_partial
from memoryhub.memories.notebooks import hot as nb
from memoryhub.spaces.models import Workspace

MAX_UPLOAD_BYTES = 1024 * 1024
TEMPLATE = "dashboard/notebook.html"


def scope_workspace(scope: str) -> Workspace | None:
    """`global` is the hub's pair; anything else must be a workspace slug (404 otherwise)."""
    return None if scope == "global" else get_object_or_404(Workspace, slug=scope)


def checked_target(target: str) -> str:
    if target not in nb.TARGETS:
        raise Http404("no such notebook")
    return target


def panel(workspace: Workspace | None, target: str, **extra) -> dict:
    entries = nb.entries_of(workspace)[target]
    return {"target": target, "filename": nb.FILENAMES[target], "entries": entries, "limit": nb.limit(target),
            "chars": len(nb.joined(entries)), "percent": nb.percent(target, entries), **extra}


def done_message(applied: nb.Applied) -> str:
    """What a change did, in the reader's language (the agents' tool answers in English: hot.py)."""
    file = nb.FILENAMES[applied.target]
    return {
        "added": _("Added to %(file)s."), "duplicate": _("%(file)s already has this entry; nothing was added."),
        "removed": _("Removed from %(file)s."), "replaced": _("Replaced in %(file)s."),
    }.get(applied.status, _("%(file)s is unchanged.")) % {"file": file}


def page_context(workspace: Workspace | None, panels: dict[str, dict] | None = None) -> dict:
    scope = nb.scope_key(workspace)
    panels = panels or {}
    return {
        "nav": "notebook", "workspace": workspace, "scope": scope,
        "workspaces": Workspace.objects.order_by("name"),
        "panels": [panels.get(t) or panel(workspace, t) for t in nb.TARGETS],
        "history": AuditEvent.objects.filter(action__startswith="notebook.", target__startswith=f"{scope}/")[:20],
    }


def answer(request: HttpRequest, workspace: Workspace | None, target: str, error: nb.Refused | None = None,
           form: dict | None = None, done: str = "") -> HttpResponse:
    """htmx gets the file's panel (plus the history, out of band); a plain form post gets the page or a redirect."""
    current = panel(workspace, target, error=error, form=form or {})
    if htmx_partial(request):
        context = {**page_context(workspace, {target: current}), "panel": current, "done": done}
        return render(request, "dashboard/notebook_swap.html", context)
    if error is None:
        messages.success(request, done)
        return redirect("dashboard:notebook", scope=nb.scope_key(workspace))
    return render(request, TEMPLATE, page_context(workspace, {target: current}), status=400)


@require_GET
@person_may(Perm.MEMORY_READ)
def notebook_page(request: HttpRequest, scope: str) -> HttpResponse:
    return render(request, TEMPLATE, page_context(scope_workspace(scope)))


@require_POST
@person_may(Perm.MEMORY_CHANGE)
def notebook_change(request: HttpRequest, scope: str, target: str, action: str) -> HttpResponse:
    """Add, replace or remove one entry: the `memory` operation's rules (NotebookChangeForm), then the notebooks'
    own apply() its run() calls, here with the person's account for the audit log."""
    workspace, target = scope_workspace(scope), checked_target(target)
    if action not in nb.ACTIONS:
        raise Http404("no such change")
    form = NotebookChangeForm(request.POST, fixed={"action": action, "target": target})
    content, old_text = str(form["content"].value() or ""), str(form["old_text"].value() or "")
    typed = {"action": action, "content": content, "old_text": old_text}
    if not form.is_valid():
        return answer(request, workspace, target, nb.Refused(form.refusal(), target=target), form=typed)
    try:
        outcome = nb.apply(workspace, form.arguments.changes(), actor=request.user.get_username(), user=request.user)
    except nb.Refused as exc:
        return answer(request, workspace, target, exc, form=typed)
    return answer(request, workspace, target, done=done_message(outcome.applied[0]))


@require_POST
@person_may(Perm.IMPORT)
def notebook_import(request: HttpRequest, scope: str, target: str) -> HttpResponse:
    """Replace a notebook with an uploaded `§` file; validated like any change, refused whole when over the limit."""
    workspace, target = scope_workspace(scope), checked_target(target)
    upload = request.FILES.get("file")
    try:
        if upload is None:
            raise nb.Refused(_("Choose a file to upload."), target=target)
        if upload.size > MAX_UPLOAD_BYTES:
            raise nb.Refused(_("The file is over 1 MiB; a notebook is a few thousand characters."), target=target)
        try:
            text = upload.read().decode("utf-8")
        except UnicodeDecodeError:
            raise nb.Refused(_("The file is not UTF-8 text."), target=target) from None
        outcome = nb.import_text(workspace, target, text, actor=request.user.get_username(), user=request.user)
    except nb.Refused as exc:
        return answer(request, workspace, target, exc, form={"action": "import"})
    done = _("Imported %(file)s: %(count)d entries.") % {"file": nb.FILENAMES[target],
                                                         "count": len(outcome.entries[target])}
    return answer(request, workspace, target, done=done)


@require_GET
@person_may(Perm.EXPORT)
def notebook_download(request: HttpRequest, scope: str, target: str) -> HttpResponse:
    """The file as stored in the database (the source of truth), in the plain `§` format."""
    workspace, target = scope_workspace(scope), checked_target(target)
    text = nb.render_file(nb.entries_of(workspace)[target])
    response = HttpResponse(text, content_type="text/markdown; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{nb.FILENAMES[target]}"'
    return response
