"""The `memory` tool: the agent's MEMORY.md / USER.md notebooks (memoryhub.memories.notebooks.hot holds the rules)."""

from __future__ import annotations

from memoryhub.access import policy
from memoryhub.access.call import Call
from memoryhub.core.errors import ApiError, bad
from memoryhub.memories.notebooks import hot as nb
from memoryhub.tools import args as A
from memoryhub.tools.base import WORKSPACE, tool

MAX_OPERATIONS = 50

DESCRIPTION = (
    "Your notebooks, injected at the start of every session: target 'memory' (MEMORY.md: your notes on the "
    "environment, conventions, lessons) or 'user' (USER.md: who the user is, preferences). Entries are short "
    "texts; the limit counts characters of the whole file (MEMORY.md 2,200, USER.md 1,375 by default). "
    "action add | replace | remove; replace and remove name the entry by old_text, which must be the whole "
    "entry or a substring of exactly one entry. operations = [{action, target, content?, old_text?}] runs a "
    "batch all-or-nothing (limits checked on the result). Success: {ok: true, results, usage, entry_count}; "
    "an exact duplicate add is ok with status 'duplicate'. When the change breaks a notebook rule (over the "
    "limit, no or several matches, text that looks like prompt injection) the answer is still 200 with "
    "{ok: false, error, target, entries or matches, usage} and NOTHING changed: consolidate and retry. Malformed "
    "arguments are a 400 bad_request. Edits show from the next session; this one keeps its snapshot. "
    "workspace: the notebooks of that workspace; none = the global pair."
)
OPERATION = {
    "type": "object",
    "properties": {"action": {"type": "string", "enum": list(nb.ACTIONS)},
                   "target": {"type": "string", "enum": list(nb.TARGETS)},
                   "content": {"type": "string"}, "old_text": {"type": "string"}},
    "required": ["action", "target"],
    "additionalProperties": False,
}


def operation(item: dict, where: str) -> nb.Op:
    try:
        action = A.choice(item, "action", nb.ACTIONS, required=True)
        target = A.choice(item, "target", nb.TARGETS, required=True)
        content = A.text(item, "content", required=action != "remove")
        old_text = A.text(item, "old_text", required=action != "add")
    except ApiError as exc:
        if where == "arguments":
            raise
        raise bad(f"{where}: {exc.message}", "operations") from exc
    return nb.Op(action, target, content, old_text)


def operations(args: dict) -> list[nb.Op]:
    value = args.get("operations")
    if value in (None, []):
        return [operation(args, "arguments")]
    if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
        raise bad("operations must be a list of {action, target, content?, old_text?}", "operations")
    if len(value) > MAX_OPERATIONS:
        raise bad(f"operations takes at most {MAX_OPERATIONS} items", "operations")
    if args.get("action") not in (None, ""):
        raise bad("give either action or operations, not both", "operations")
    return [operation(item, f"operations[{i}]") for i, item in enumerate(value)]


@tool("memory", DESCRIPTION,
      {"action": {"type": "string", "enum": list(nb.ACTIONS)}, "target": {"type": "string", "enum": list(nb.TARGETS)},
       "content": {"type": "string", "description": "The entry text (add, replace)."},
       "old_text": {"type": "string",
                    "description": "The whole entry, or a substring of exactly one (replace, remove)."},
       "operations": {"type": "array", "items": OPERATION, "maxItems": MAX_OPERATIONS}, "workspace": WORKSPACE})
def memory(call: Call, session_id: str, args: dict) -> dict:
    ops = operations(args)
    workspace = policy.notebook_workspace(call, args)
    try:
        outcome = nb.apply(workspace, ops, actor=call.actor, session_id=session_id, origin=call.origin)
    except nb.Refused as exc:
        return exc.as_dict(nb.usages(nb.entries_of(workspace)))
    entries = nb.entries_of(workspace)
    return {
        "ok": True,
        "workspace": workspace.slug if workspace else None,
        "results": [{"action": a.action, "target": a.target, "status": a.status, "message": a.message}
                    for a in outcome.applied],
        "message": "; ".join(a.message for a in outcome.applied),
        "usage": nb.usages(entries),
        "entry_count": {t: len(entries[t]) for t in nb.TARGETS},
        "redactions": outcome.redactions,
    }


def pinned(call: Call, session, body: dict) -> list[dict]:
    """The notebooks /context puts first: the session's frozen global pair, then the workspace's (those the token
    may use), as recall.context_block takes them."""
    scopes = [None] + ([w] if (w := policy.workspace_arg(call, body)) else [])
    scopes = [w for w in scopes if policy.may_use_notebooks(call, w)]
    return nb.freeze(session, scopes) if scopes else []
