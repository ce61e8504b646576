"""A native space's topics: the runs of turns on one subject that recall groups its hits under, and each one's turns."""

from __future__ import annotations

from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.views.decorators.http import require_GET

from memoryhub.access.people import Perm
from memoryhub.dashboard.access import person_may, space_context, space_for_user
from memoryhub.dashboard.partials import render_page
from memoryhub.memories.models import Entry, Topic

PAGE = 50
TURNS_SHOWN = 500


@require_GET
@person_may(Perm.MEMORY_READ)
def topic_list(request: HttpRequest, slug: str) -> HttpResponse:
    """Topics newest first, with their span, size, kind and keywords."""
    space = space_for_user(request, slug, native=True)
    page = Paginator(Topic.objects.filter(space=space).order_by("-ended_at", "-id").defer("signal"),
                     PAGE).get_page(request.GET.get("page"))
    return render_page(request, "dashboard/topics.html", "topics", {**space_context(space, "topics"), "page": page})


@require_GET
@person_may(Perm.MEMORY_READ)
def topic_detail(request: HttpRequest, slug: str, pk: int) -> HttpResponse:
    """One topic and its turns in order (the recall preview links its `t<id>` cards here)."""
    space = space_for_user(request, slug, native=True)
    topic = get_object_or_404(Topic.objects.defer("signal"), pk=pk, space=space)
    turns = list(Entry.objects.live().filter(topic=topic).defer("body").order_by("at", "id")[: TURNS_SHOWN + 1])
    context = {**space_context(space, "topics"), "topic": topic, "entries": turns[:TURNS_SHOWN],
               "more": len(turns) > TURNS_SHOWN, "expanded": False}
    return render(request, "dashboard/topic.html", context)
