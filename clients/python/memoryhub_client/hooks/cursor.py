"""Cursor's agent hooks (https://cursor.com/docs/agent/hooks): `hooks.json` version 1, JSON on stdin and stdout.

What Cursor lets a hook do, and so what this does:
- sessionStart: its `additional_context` goes into the conversation's context, so the block (the pinned notebooks
  and who the user is) is injected once, at the start.
- beforeSubmitPrompt can only let a prompt through or block it (`continue`), not add to it: the block cannot be
  injected per prompt. The hook remembers the prompt (by `generation_id`) and answers `{"continue": true}`; the
  agent reaches recall through the MCP tools (`memory_context`, `memory_search`), which the rules file in
  integrations/cursor asks it to use.
- afterAgentResponse: keeps each of the agent's messages (`text`); stop, at the end of the agent loop, archives the
  prompt with them, keyed by the generation (one prompt may get several messages around its tool calls).
- sessionEnd: archives what stop did not, then ends the hub session (and its vault grants).

`conversation_id` is the hub's session id, the first of `workspace_roots` its workspace.
"""

from __future__ import annotations

import json
import logging
from typing import Any

from memoryhub_client.hooks.claude_code import clip
from memoryhub_client.hooks.engine import Hub, Turn
from memoryhub_client.hooks.state import session_state

log = logging.getLogger("memoryhub.hook")
NAME = "cursor"
EVENTS = ("sessionStart", "beforeSubmitPrompt", "afterAgentResponse", "stop", "sessionEnd")
LET_THROUGH = json.dumps({"continue": True})


def handle(event: str, payload: dict[str, Any], hub: Hub) -> str:
    session_id = str(payload.get("conversation_id") or payload.get("session_id") or "")
    if not session_id:
        log.warning("%s without a conversation_id: nothing to do", event)
        return LET_THROUGH if event == "beforeSubmitPrompt" else ""
    roots = payload.get("workspace_roots")
    workspace = hub.settings.workspace_for(roots[0] if isinstance(roots, list) and roots else None)
    generation = str(payload.get("generation_id") or "")
    if event == "sessionStart":
        text = hub.context(session_id, "", workspace=workspace)
        return json.dumps({"additional_context": text}, ensure_ascii=False) if text else ""
    if event == "beforeSubmitPrompt":
        if generation and isinstance(payload.get("prompt"), str):
            with session_state(hub.settings.state_dir, NAME, session_id) as state:
                state.prompts[generation] = clip(payload["prompt"])
        return LET_THROUGH
    with session_state(hub.settings.state_dir, NAME, session_id) as state:
        if event == "afterAgentResponse" and generation in state.prompts:
            said, before = str(payload.get("text") or "").strip(), state.answers.get(generation, "")
            if said and said not in before.split("\n\n"):  # the same message twice: the hook ran twice
                state.answers[generation] = clip("\n\n".join(t for t in (before, said) if t))
            return ""
        done = list(state.prompts) if event in ("stop", "sessionEnd") else []  # no prompt starts before stop
        turns = [Turn(f"{NAME}:{session_id}:{g}", state.prompts[g], state.answers.get(g, "")) for g in done
                 if g in state.prompts and f"{NAME}:{session_id}:{g}" not in state.archived]
        if turns or event == "sessionEnd":
            hub.archive(session_id, turns, workspace=workspace, end=event == "sessionEnd")
        for g in done:
            state.archived.add(f"{NAME}:{session_id}:{g}")
            state.prompts.pop(g, None)
            state.answers.pop(g, None)
    return ""
