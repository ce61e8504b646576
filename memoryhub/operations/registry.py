"""Every agent operation, in the order tools/list shows them; a new operation is one more line here.

`run()` is the one entry point every face uses: the agent API's tools and endpoints, MCP's tools, prompt and
resource. The dashboard runs an operation as a person without an agent session (access/call.PersonCall,
dashboard/forms/rules.perform: the same read, permission and run()).
"""

from __future__ import annotations

from typing import Any

from memoryhub.access.call import Call
from memoryhub.agents import sessions
from memoryhub.core.errors import ApiError
from memoryhub.operations import context, graph, hub, memory, notebooks, turns, vault
from memoryhub.operations.base import Operation

OPERATIONS: dict[str, Operation] = {op.name: op for op in (
    memory.memory_save, memory.memory_note, memory.memory_note_batch, memory.memory_search, memory.memory_recall,
    memory.memory_forget, memory.memory_profile, memory.memory_facts, graph.memory_link, graph.memory_feedback,
    vault.memory_request, vault.memory_status, vault.memory_read,
    notebooks.memory,
    turns.memory_turn, context.memory_context,
    hub.spaces_list, hub.space_create, hub.providers_list, hub.session_end,
)}
TOOLS = {name: op for name, op in OPERATIONS.items() if op.tool}  # GET /api/v1/tools, POST /api/v1/tools/{name}
MCP_TOOLS = {name: op for name, op in OPERATIONS.items() if op.mcp}  # MCP tools/list and tools/call


def read_only_paths() -> frozenset[str]:
    """The HTTP paths of the operations that only read: the agent API's tools and endpoints (asgi.py's guard)."""
    paths = {f"/api/v1/tools/{name}" for name, op in TOOLS.items() if op.reads}
    return frozenset(paths | {op.endpoint.split()[1] for op in OPERATIONS.values() if op.reads and op.endpoint})


def get(name: str) -> Operation:
    if name not in OPERATIONS:
        raise ApiError("not_found", f"no operation {name!r}")
    return OPERATIONS[name]


def tool(name: str, offered: dict[str, Operation] = TOOLS) -> Operation:
    """The tool `name` among those a face offers; another operation's name is not one of its tools."""
    if name not in offered:
        elsewhere = OPERATIONS.get(name)
        hint = f"; it is {elsewhere.endpoint}" if elsewhere is not None and elsewhere.endpoint else ""
        raise ApiError("not_found", f"no tool {name!r}{hint}")
    return offered[name]


def run(name: str, call: Call, session_id: str, arguments: Any) -> tuple[dict, int]:
    """Operation `name` for `call`, in the agent session `session_id` (seen first, for operations that run in
    the call's session): (the answer, its HTTP status), or raises the ApiError to tell."""
    operation = get(name)
    if operation.in_session:
        return sessions.run(call.token, session_id, lambda: operation.answer(call, session_id, arguments))
    return operation.answer(call, session_id, arguments)
