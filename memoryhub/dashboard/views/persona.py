"""A native space's persona: the derived frame, the editable profile, and an AI rebuild as a watched job."""

from __future__ import annotations

from django.conf import settings
from django.db import transaction
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from memoryhub.access.people import Perm
from memoryhub.agents.models import LOCAL_ORIGIN
from memoryhub.audit.actions import Action
from memoryhub.audit.changes import fingerprint
from memoryhub.dashboard.access import audited, person_call, person_may, space_context, space_for_user
from memoryhub.dashboard.forms.memories import ProfileForm
from memoryhub.dashboard.partials import htmx_partial, render_page
from memoryhub.dashboard.views.jobs import ACTIVE
from memoryhub.jobs import runner
from memoryhub.jobs.models import Job
from memoryhub.memories.models import Persona
from memoryhub.memories.growth.persona import frame_lines, project_frame, user_dislikes, user_facts
from memoryhub.spaces.models import MemorySpace


def persona_context(space: MemorySpace, form: ProfileForm | None = None, saved: bool = False) -> dict:
    persona, _created = Persona.objects.get_or_create(space=space, origin=LOCAL_ORIGIN)
    lines = frame_lines(list(user_facts(space, LOCAL_ORIGIN)), list(user_dislikes(space, LOCAL_ORIGIN)))
    return {**space_context(space, "persona"), "persona": persona, "frame": project_frame(space), "lines": lines,
            "profile_form": form or ProfileForm(initial={"profile": persona.profile}), "saved": saved,
            "job": Job.objects.filter(space=space, kind="persona_rebuild").first(),
            "model": bool(settings.MEMORYHUB.get("LLM_BASE_URL"))}


@require_http_methods(["GET", "POST"])
@person_may(Perm.MEMORY_READ, post=Perm.MEMORY_CHANGE)
def persona(request: HttpRequest, slug: str) -> HttpResponse:
    space = space_for_user(request, slug, native=True)
    if request.method == "POST":
        form = ProfileForm(request.POST)
        if form.is_valid():
            with transaction.atomic():
                mine = Persona.objects.filter(space=space, origin=LOCAL_ORIGIN)
                before = mine.values_list("profile", flat=True).first()
                profile = form.perform(person_call(request), space)["profile"]  # memory_profile, as the person
                audited(request, Action.PERSONA_EDIT, space.slug, before={"profile": fingerprint(before)},
                        after={"profile": fingerprint(profile)})
            if not htmx_partial(request):
                return redirect("dashboard:persona", slug)
            return render(request, "dashboard/persona.html#profile-form", persona_context(space, saved=True))
        return render_page(request, "dashboard/persona.html", "profile-form", persona_context(space, form))
    partial = "frame" if getattr(request.htmx, "target", None) == "persona-frame" else "profile-form"
    return render_page(request, "dashboard/persona.html", partial, persona_context(space))


@require_POST
@person_may(Perm.MEMORY_CHANGE)
def rebuild(request: HttpRequest, slug: str) -> HttpResponse:
    """Queue a rebuild (one at a time per space) and answer with its progress row."""
    space = space_for_user(request, slug, native=True)
    job = Job.objects.filter(space=space, kind="persona_rebuild", status__in=ACTIVE).first()
    if job is None:
        job = runner.enqueue("persona_rebuild", space=space, user=request.user)
        audited(request, Action.PERSONA_REBUILD, space.slug, after={"job": job.pk})
    if not htmx_partial(request):
        return redirect("dashboard:persona", slug)
    return render(request, "dashboard/persona.html#job-status", {**space_context(space, "persona"), "job": job})


@require_GET
@person_may(Perm.MEMORY_READ)
def job_status(request: HttpRequest, slug: str, job_id: int) -> HttpResponse:
    """The polled progress row; once the job ends it renders without the poll and tells the frame to reload."""
    space = space_for_user(request, slug, native=True)
    job = get_object_or_404(Job, pk=job_id, space=space, kind="persona_rebuild")
    response = render(request, "dashboard/persona.html#job-status", {**space_context(space, "persona"), "job": job})
    if job.status not in ACTIVE:
        response["HX-Trigger"] = "personaRebuilt"
    return response
