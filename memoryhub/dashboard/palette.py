"""One colour per memory category and per edge type, shared by the charts, the sparklines and the graph.

The six categories the stylesheet already colours keep its colours (app.css --cat-*); the rest are picked
to stay apart from them; "general" and anything unknown are grey.
"""

from __future__ import annotations

OTHER = "#7a808a"
CATEGORY_COLORS = {
    "progress": "#2e9e5b", "pitfall": "#d64545", "decision": "#2f6fd6", "structure": "#8a4fd1",
    "experience": "#e07b24", "companion": "#e05a9b", "preference": "#b8960c", "fact": "#1f9bb4",
    "insight": "#6d8f1f", "context": "#8c6d46", "general": OTHER,
}
EDGE_COLORS = {
    "entity": "#8a4fd1", "causal": "#c0392b", "supersedes": "#c0392b", "semantic": "#2f5bd3",
    "temporal": "#a9adb4",
}
WRITES = "#2f5bd3"
RECALLS = "#e07b24"


def category_color(name: str) -> str:
    return CATEGORY_COLORS.get(name, OTHER)


def edge_color(name: str) -> str:
    return EDGE_COLORS.get(name, OTHER)
