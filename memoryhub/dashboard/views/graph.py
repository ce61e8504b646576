"""The graph tab, only where the provider really has a graph: memories and typed edges, drawn in the browser
by Cytoscape.js (static/vendor) with a legend and a filter per edge type.

graph.json carries what the page needs to draw without guessing: each node's colour and link, and each edge
type's label, count and whether it starts shown. Time-proximity edges start hidden: every memory has some
within 24 hours, so drawn by default they tie the whole space into one knot.
"""

from __future__ import annotations

import zlib
from collections import Counter

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from memoryhub.access.people import Perm
from memoryhub.dashboard import labels
from memoryhub.dashboard.access import person_may, space_context, space_for_user
from memoryhub.dashboard.palette import CATEGORY_COLORS, edge_color
from memoryhub.memories.native import NativeProvider
from memoryhub.spaces.provider_services import provider_for, record_space_error
from providers.base import ProviderError

LIMIT = 200
HIDDEN_AT_FIRST = {"temporal"}


def node_color(node: dict) -> str:
    """The category's colour; a node without one (an entity, a folder) gets a stable hue for its type."""
    category = node.get("category")
    if category in CATEGORY_COLORS:
        return CATEGORY_COLORS[category]
    hue = zlib.crc32(str(node.get("type") or "node").encode()) % 360
    return f"hsl({hue}, 45%, 50%)"


def shape(data: dict) -> dict:
    """Nodes with their colour, edges with an id, and the legend: node groups and edge types with counts."""
    nodes, groups = [], Counter()
    for node in data.get("nodes", []):
        group = node.get("category") or node.get("type") or "node"
        groups[group] += 1
        nodes.append({**node, "id": str(node["id"]), "label": str(node.get("label") or node["id"]), "group": group,
                      "color": node_color(node), "group_label": labels.label("category", group)})
    known = {n["id"] for n in nodes}
    edges = []
    for i, edge in enumerate(data.get("edges", [])):
        if str(edge["source"]) in known and str(edge["target"]) in known:
            kind = edge.get("type") or "link"
            edges.append({**edge, "id": f"e{i}", "source": str(edge["source"]), "target": str(edge["target"]),
                          "type": kind, "color": edge_color(kind)})
    types = Counter(e["type"] for e in edges)
    return {
        "nodes": nodes, "edges": edges,
        "groups": [{"name": name, "label": labels.label("category", name), "count": count,
                    "color": node_color({"category": name, "type": name})} for name, count in groups.most_common()],
        "edge_types": [{"type": t, "label": labels.label("link", t), "count": count, "color": edge_color(t),
                        "shown": t not in HIDDEN_AT_FIRST} for t, count in types.most_common()],
    }


@require_GET
@person_may(Perm.MEMORY_READ)
def graph_page(request: HttpRequest, slug: str) -> HttpResponse:
    space = space_for_user(request, slug, can="graph")
    return render(request, "dashboard/graph.html", {**space_context(space, "graph"), "limit": LIMIT})


@require_GET
@person_may(Perm.MEMORY_READ)
def graph_data(request: HttpRequest, slug: str) -> JsonResponse:
    """Nodes and edges as the provider reports them; a provider failure comes back as {"error": ...}."""
    space = space_for_user(request, slug, can="graph")
    try:
        provider = NativeProvider(space=space) if space.is_native else provider_for(space)
        data = provider.graph(limit=LIMIT)
    except ProviderError as exc:
        record_space_error(space, exc)
        return JsonResponse({"nodes": [], "edges": [], "groups": [], "edge_types": [], "error": exc.message})
    return JsonResponse({**shape(data), "native": space.is_native})
