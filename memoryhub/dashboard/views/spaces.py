"""Dashboard pages (server-rendered, htmx where it helps)."""

from django.contrib.auth.decorators import login_required
from django.db.models import Count, Q
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from memoryhub.spaces.models import MemorySpace


@require_GET
@login_required
def home(request: HttpRequest) -> HttpResponse:
    spaces = MemorySpace.objects.annotate(
        entry_count=Count("entries", filter=Q(entries__deleted_at__isnull=True))
    ).order_by("slug")
    return render(request, "dashboard/home.html", {"spaces": spaces, "nav": "spaces"})
