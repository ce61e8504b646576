"""Remote writes: what third-party spaces were sent, with receipts; unproven ones can be re-checked."""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from memoryhub.access.people import Perm
from memoryhub.audit.actions import Action
from memoryhub.dashboard.access import audited, person_may
from memoryhub.dashboard.partials import render_page
from memoryhub.jobs import runner
from memoryhub.memories.models import RemoteWrite

SHOWN = 200
UNPROVEN = (RemoteWrite.State.PENDING_VERIFICATION, RemoteWrite.State.UNKNOWN)  # "pending check"


@require_GET
@person_may(Perm.OBSERVE)
def write_list(request: HttpRequest) -> HttpResponse:
    state = request.GET.get("state", "")
    writes = RemoteWrite.objects.select_related("space")
    if state == "check":
        writes = writes.filter(state__in=UNPROVEN)
    elif state:
        writes = writes.filter(state=state)
    context = {"writes": writes[:SHOWN], "state": state, "nav": "writes",
               "pending": RemoteWrite.objects.filter(state__in=UNPROVEN).count()}
    return render_page(request, "dashboard/writes.html", "write-table", context)


@require_POST
@person_may(Perm.MAINTAIN)
def write_recheck(request: HttpRequest, write_id: int) -> HttpResponse:
    """Queue a new verification of one unproven write; nothing is ever re-sent automatically."""
    write = get_object_or_404(RemoteWrite, pk=write_id, state__in=UNPROVEN)
    job = runner.enqueue("verify_write", space=write.space, params={"write": write.pk}, user=request.user)
    audited(request, Action.REMOTE_WRITE_RECHECK, str(write.pk), before={"state": write.state},
            after={"job": job.pk}, space=write.space.slug)
    messages.info(request, _("Re-check queued; the result shows here when the job finishes."))
    return redirect(f"{reverse('dashboard:writes')}?state=check")
