"""Codex CLI's hooks (https://developers.openai.com/codex/hooks; input schemas in openai/codex,
codex-rs/hooks/schema/generated) and its session log, the rollout file (JSON lines `{timestamp, type, payload}`).

- SessionStart: the pinned notebooks and who the user is; UserPromptSubmit: the recall block for the prompt.
  Both answer `hookSpecificOutput.additionalContext`, which Codex adds as developer context before the model runs.
  UserPromptSubmit also remembers the prompt under its `turn_id`.
- Stop: archives the turn it names (`turn_id`, `last_assistant_message`), and any earlier turn of the rollout not
  archived yet. PreCompact: the rollout's turns before the history is compacted (an automatic one waits for the
  running turn's Stop).
- Codex has no session-end hook: the hub ends the session after MEMORYHUB_SESSION_IDLE_MINUTES of silence.

In the rollout, `event_msg` lines carry the conversation as the person saw it (`user_message`, `agent_message`,
`task_started`/`task_complete` with the turn id); `response_item` lines are the model's wire format, which also
holds injected instructions, so they are not read.
"""

from __future__ import annotations

import logging
from typing import Any

from memoryhub_client.hooks.claude_code import clip, inject
from memoryhub_client.hooks.engine import Hub, Turn, read_jsonl
from memoryhub_client.hooks.state import session_state

log = logging.getLogger("memoryhub.hook")
NAME = "codex"
EVENTS = ("SessionStart", "UserPromptSubmit", "Stop", "PreCompact")
UNNAMED = "unnamed:"  # a rollout turn without a turn id (an older Codex): known by its line, never archived as such


def handle(event: str, payload: dict[str, Any], hub: Hub) -> str:
    session_id = str(payload.get("session_id") or "")
    if not session_id:
        log.warning("%s without a session_id: nothing to do", event)
        return ""
    workspace = hub.settings.workspace_for(payload.get("cwd"))
    turn_id = str(payload.get("turn_id") or "")
    if event == "SessionStart":
        return inject(event, hub.context(session_id, "", workspace=workspace))
    if event == "UserPromptSubmit":
        prompt = str(payload.get("prompt") or "")
        if turn_id and prompt:
            with session_state(hub.settings.state_dir, NAME, session_id) as state:
                state.prompts[turn_id] = clip(prompt)
        return inject(event, hub.context(session_id, prompt, workspace=workspace, notebooks=False))
    path = payload.get("transcript_path")
    with session_state(hub.settings.state_dir, NAME, session_id) as state:
        turns, end = read_rollout(path, session_id, state.offset(path))
        if event == "Stop" and turn_id:
            finished = with_stopped_turn(turns, session_id, turn_id, state.prompts.get(turn_id, ""),
                                         str(payload.get("last_assistant_message") or ""))
        else:
            finished = stable(turns[:-1] if payload.get("trigger") != "manual" else turns)
        new = [t for t in finished if t.key not in state.archived and t.user]
        hub.archive(session_id, new, workspace=workspace)
        state.archived.update(t.key for t in new)
        for t in new:
            state.prompts.pop(t.key.rsplit(":", 1)[-1], None)
        state.read_up_to(path, stable(turns), end)
    return ""


def with_stopped_turn(turns: list[Turn], session_id: str, turn_id: str, prompt: str, answer: str) -> list[Turn]:
    """The rollout's turns with the one Stop names completed from the hook's own payload (the rollout may lag, or
    be off: `transcript_path` is null for an ephemeral session)."""
    key = f"{NAME}:{session_id}:{turn_id}"
    for turn in turns:
        if turn.key == key:
            turn.user = turn.user or prompt
            turn.assistant = clip(answer) if answer else turn.assistant
            return stable(turns)
    prompt = prompt or (turns[-1].user if turns and turns[-1].key.startswith(UNNAMED) else "")
    return [*stable(turns), Turn(key, prompt, clip(answer))] if prompt else stable(turns)


def stable(turns: list[Turn]) -> list[Turn]:
    """The turns a rollout names by their turn id: only those have a key the next Stop will give them too."""
    return [t for t in turns if not t.key.startswith(UNNAMED)]


def read_rollout(path: Any, session_id: str, start: int = 0) -> tuple[list[Turn], int]:
    """The rollout's turns from byte `start` on, and where the next read may begin. A turn starts at its
    turn_context / task_started line, so a read begun there knows its turn id."""
    records, end = read_jsonl(path, start)
    turns: list[Turn] = []
    turn_id, began = "", None
    for offset, record in records:
        payload = record.get("payload")
        if not isinstance(payload, dict):
            continue
        kind = payload.get("type") if record.get("type") == "event_msg" else record.get("type")
        if kind in ("turn_context", "task_started") and payload.get("turn_id"):
            turn_id, began = str(payload["turn_id"]), offset if began is None else began
            if turns and turns[-1].key.startswith(UNNAMED) and not turns[-1].assistant:
                turns[-1].key = f"{NAME}:{session_id}:{turn_id}"  # the prompt was logged before its turn began
        elif kind == "user_message" and isinstance(payload.get("message"), str) and payload["message"].strip():
            key = f"{NAME}:{session_id}:{turn_id}" if turn_id else f"{UNNAMED}{offset}"
            if turns and turns[-1].key == key and not turns[-1].assistant:
                turns[-1].user = clip(f"{turns[-1].user}\n\n{payload['message']}")  # said twice in one turn
            else:
                turns.append(Turn(key, clip(payload["message"].strip()), "", record.get("timestamp"),
                                  offset if began is None else began))
        elif kind == "agent_message" and turns and isinstance(payload.get("message"), str):
            turns[-1].assistant = clip("\n\n".join(t for t in (turns[-1].assistant, payload["message"].strip()) if t))
        elif kind == "task_complete":
            if turns and not turns[-1].assistant:
                turns[-1].assistant = clip(str(payload.get("last_agent_message") or ""))
            turn_id, began = "", None
    return turns, end
