"""The graph tab, only where the provider really has a graph: entities and typed edges, drawn in the browser."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from memoryhub.dashboard.access import capabilities, space_context, space_for_user
from memoryhub.memories.native import NativeProvider
from memoryhub.spaces.models import MemorySpace
from memoryhub.spaces.services import provider_for, record_space_error
from providers.base import ProviderError

LIMIT = 200


def graph_space(request: HttpRequest, slug: str) -> MemorySpace:
    space = space_for_user(request, slug)
    if not capabilities(space).graph:
        raise Http404("this provider has no graph")
    return space


@require_GET
@login_required
def graph_page(request: HttpRequest, slug: str) -> HttpResponse:
    space = graph_space(request, slug)
    return render(request, "dashboard/graph.html", space_context(space, "graph"))


@require_GET
@login_required
def graph_data(request: HttpRequest, slug: str) -> JsonResponse:
    """Nodes and edges as the provider reports them; a provider failure comes back as {"error": ...}."""
    space = graph_space(request, slug)
    try:
        provider = NativeProvider(space=space) if space.is_native else provider_for(space)
        data = provider.graph(limit=LIMIT)
    except ProviderError as exc:
        record_space_error(space, exc)
        return JsonResponse({"nodes": [], "edges": [], "error": exc.message})
    return JsonResponse({"nodes": data.get("nodes", []), "edges": data.get("edges", []), "native": space.is_native})
