"""Every tool an agent can call, in the order tools/list shows them; a new tool is one more line here."""

from __future__ import annotations

from memoryhub.core.errors import ApiError
from memoryhub.tools import graph, memory, notebooks, vault
from memoryhub.tools.base import Tool

TOOLS: dict[str, Tool] = {t.name: t for t in (
    memory.memory_save, memory.memory_note, memory.memory_note_batch, memory.memory_search, memory.memory_recall,
    memory.memory_forget, memory.memory_profile, memory.memory_facts, graph.memory_link, graph.memory_feedback,
    vault.memory_request, vault.memory_status, vault.memory_read,
    notebooks.memory,
)}


def get(name: str) -> Tool:
    if name not in TOOLS:
        raise ApiError("not_found", f"no tool {name!r}")
    return TOOLS[name]
