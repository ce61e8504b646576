"""The open export from the dashboard: one space (its Maintenance tab) or every native space (the Export page), as
JSON lines or Markdown, streamed. A vault space goes into the file only after the person ticks that they want its
memories outside the hub; the export is in the audit log."""

from __future__ import annotations

from django.contrib import messages
from django.db.models import Count
from django.http import HttpRequest, HttpResponse, StreamingHttpResponse
from django.shortcuts import redirect, render
from django.utils import timezone
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST

from memoryhub.access.people import Perm, person
from memoryhub.audit.actions import Action
from memoryhub.dashboard.access import audited, person_may, space_for_user
from memoryhub.memories.maintenance import open_export
from memoryhub.memories.models import Entry
from memoryhub.spaces.models import MemorySpace

FORMATS = {"jsonl": ("application/x-ndjson; charset=utf-8", "jsonl"), "markdown": ("text/markdown; charset=utf-8", "md")}


def _download(spaces: list[MemorySpace], fmt: str, name: str) -> StreamingHttpResponse:
    content_type, suffix = FORMATS[fmt]
    lines = open_export.markdown(spaces) if fmt == "markdown" else open_export.jsonl(spaces)
    response = StreamingHttpResponse(lines, content_type=content_type)
    response["Content-Disposition"] = f'attachment; filename="{name}.memoryhub.{suffix}"'
    return response


def _format(request: HttpRequest) -> str:
    fmt = request.POST.get("format", "jsonl")
    return fmt if fmt in FORMATS else "jsonl"


@require_POST
@person_may(Perm.EXPORT)
def space_export(request: HttpRequest, slug: str) -> HttpResponse:
    space = space_for_user(request, slug, native=True)
    fmt, confirmed = _format(request), request.POST.get("confirm_vault") == "1"
    try:
        spaces = open_export.exportable([space], include_vault=confirmed)
    except open_export.VaultNotConfirmed:
        messages.error(request, _("Tick the box to confirm that this vault space's memories may leave the hub."))
        return redirect("dashboard:maintenance", slug=space.slug)
    audited(request, Action.SPACE_EXPORT, space.slug, after={"format": fmt, "vault": space.is_vault})
    return _download(spaces, fmt, space.slug)


@require_http_methods(["GET", "POST"])
@person_may(Perm.EXPORT)
def export_all(request: HttpRequest) -> HttpResponse:
    """Every native space in one file; vault spaces only when the person may read them and ticks that they go."""
    may_vault = person(request).may(Perm.VAULT_READ)
    spaces = open_export.all_spaces()
    if request.method == "POST":
        include_vault = may_vault and request.POST.get("include_vault") == "1"
        fmt = _format(request)
        chosen = open_export.exportable(spaces, include_vault=include_vault)
        audited(request, Action.SPACE_EXPORT, "all", after={"format": fmt, "spaces": [s.slug for s in chosen]})
        return _download(chosen, fmt, f"memoryhub-{timezone.localdate().isoformat()}")
    counts = dict(Entry.objects.live().filter(space__in=spaces).values("space").order_by().annotate(n=Count("id"))
                  .values_list("space", "n"))
    rows = [(s, counts.get(s.pk, 0)) for s in spaces if may_vault or not s.is_vault]
    return render(request, "dashboard/export.html", {"rows": rows, "may_vault": may_vault,
                                                     "vaults": [s for s, _n in rows if s.is_vault], "nav": "spaces"})
