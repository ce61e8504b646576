"""graph.json: nodes with their colours, typed edges, the legend, and which edge types start hidden."""

from __future__ import annotations

import pytest
from django.urls import reverse

from memoryhub.dashboard.palette import CATEGORY_COLORS
from memoryhub.dashboard.views.graph import node_color, shape
from memoryhub.memories.models import Edge, Entry
from memoryhub.spaces.models import MemorySpace, ProviderService
from memoryhub.spaces.workspaces import default_space

pytestmark = pytest.mark.django_db

NOTES = [
    ("decision", "Keep SQLite in WAL mode for the hub"),
    ("pitfall", "WAL files grow while a reader holds a snapshot"),
    ("progress", "scripts/deploy.sh now restarts the worker"),
    ("general", "Lunch was pizza"),
]


def write_notes(api) -> list[str]:
    return [api.tool("memory_save", category=c, title=t, body=t).json()["result"]["id"] for c, t in NOTES]


def test_graph_json_says_which_edge_types_start_hidden_and_draws_a_legend(client, staff, api):
    ids = write_notes(api)
    first, last = Entry.objects.get(pk=ids[0]), Entry.objects.get(pk=ids[3])
    Edge.objects.create(source=first, target=last, edge_type="causal", weight=0.5)
    data = client.get(reverse("dashboard:graph_data", args=["default"])).json()
    types = {t["type"]: t for t in data["edge_types"]}
    assert types["temporal"]["shown"] is False and types["temporal"]["label"] == "Close in time"
    assert types["entity"]["shown"] is True and types["entity"]["count"] >= 1  # the two WAL memories
    assert types["causal"] == {"type": "causal", "label": "Cause and effect", "count": 1, "color": "#c0392b",
                               "shown": True}
    assert sum(t["count"] for t in data["edge_types"]) == len(data["edges"])
    assert len({e["id"] for e in data["edges"]}) == len(data["edges"])
    nodes = {n["id"]: n for n in data["nodes"]}
    assert nodes[ids[1]]["color"] == CATEGORY_COLORS["pitfall"] and nodes[ids[1]]["label"] == NOTES[1][1]
    assert sorted((g["name"], g["count"]) for g in data["groups"]) == sorted((c, 1) for c, _ in NOTES)


def test_graph_json_in_chinese_labels_the_edge_types_in_chinese(client, staff, api):
    write_notes(api)
    client.cookies.load({"django_language": "zh-hans"})
    data = client.get(reverse("dashboard:graph_data", args=["default"])).json()
    labels = {t["type"]: t["label"] for t in data["edge_types"]}
    assert labels["temporal"] == "时间相近" and labels["entity"] == "同名"


def test_a_provider_graph_keeps_its_own_types_and_drops_edges_to_missing_nodes():
    data = shape({"nodes": [{"id": 1, "label": "root", "type": "folder"}, {"id": "b", "label": "", "type": "memory"}],
                  "edges": [{"source": 1, "target": "b", "type": "contains"},
                            {"source": 1, "target": "gone", "type": "contains"},
                            {"source": "b", "target": 1}]})
    assert [n["id"] for n in data["nodes"]] == ["1", "b"] and data["nodes"][1]["label"] == "b"
    assert [(e["source"], e["target"], e["type"]) for e in data["edges"]] == [("1", "b", "contains"), ("b", "1", "link")]
    assert {t["type"]: t["shown"] for t in data["edge_types"]} == {"contains": True, "link": True}
    assert node_color({"type": "folder"}) == node_color({"type": "folder"}) != node_color({"type": "memory"})


def test_graph_tab_is_only_where_the_provider_has_a_graph(client, staff):
    default_space()
    ProviderService.objects.create(kind="mem0")
    MemorySpace.objects.create(slug="m", name="M", provider="mem0")
    assert client.get(reverse("dashboard:graph", args=["m"])).status_code == 404
    page = client.get(reverse("dashboard:graph", args=["default"])).content.decode()
    assert "vendor/cytoscape.min.js" in page and "js/graph.js" in page
