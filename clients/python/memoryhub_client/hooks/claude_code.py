"""Claude Code's hooks (https://code.claude.com/docs/en/hooks) and its transcript (JSON lines, one per message).

- SessionStart: the pinned notebooks and who the user is (a query-less block), again after a /clear, a resume or a
  compaction (its `source`), since the context they were in is gone.
- UserPromptSubmit: the recall block for the prompt, without the notebooks (SessionStart put them in already).
  Both answer `hookSpecificOutput.additionalContext`, which Claude Code adds to the context before the model runs.
- Stop: archives the turns of the transcript not archived yet (normally the one just finished; also one whose
  Stop never ran, e.g. an interrupted turn). PreCompact: the same before the transcript is summarised (an
  automatic compaction may come mid-turn, so its last turn waits for Stop). SessionEnd: the rest, then the hub
  session ends and its vault grants with it.

`session_id` is the hub's session id, `cwd` its workspace. A turn is one prompt the person typed and every text
block the assistant wrote until the next one; tool calls, tool results, sub-agents' messages (isSidechain),
Claude Code's own lines (isMeta, compaction summaries, slash-command echoes) are not the conversation.
"""

from __future__ import annotations

import json
import logging
from typing import Any

from memoryhub_client.hooks.engine import Hub, Turn, read_jsonl
from memoryhub_client.hooks.state import session_state

log = logging.getLogger("memoryhub.hook")
NAME = "claude-code"
EVENTS = ("SessionStart", "UserPromptSubmit", "Stop", "PreCompact", "SessionEnd")
TEXT_CHARS = 100_000  # per side of a turn: a pasted log never makes a turn the hub would refuse
HARNESS_PREFIXES = ("<command-name>", "<command-message>", "<local-command-", "<command-args>",
                    "[Request interrupted by user")


def handle(event: str, payload: dict[str, Any], hub: Hub) -> str:
    session_id = str(payload.get("session_id") or "")
    if not session_id:
        log.warning("%s without a session_id: nothing to do", event)
        return ""
    workspace = hub.settings.workspace_for(payload.get("cwd"))
    if event == "SessionStart":
        return inject(event, hub.context(session_id, "", workspace=workspace))
    if event == "UserPromptSubmit":
        prompt = str(payload.get("prompt") or "")
        return inject(event, hub.context(session_id, prompt, workspace=workspace, notebooks=False))
    path = payload.get("transcript_path")
    with session_state(hub.settings.state_dir, NAME, session_id) as state:
        turns, end = read_transcript(path, session_id, state.offset(path))
        finished = turns[:-1] if event == "PreCompact" and payload.get("trigger") != "manual" else turns
        new = [t for t in finished if t.key not in state.archived]
        hub.archive(session_id, new, workspace=workspace, end=event == "SessionEnd")
        state.archived.update(t.key for t in new)
        state.read_up_to(path, turns, end)
    return ""


def inject(event: str, text: str) -> str:
    if not text:
        return ""
    return json.dumps({"hookSpecificOutput": {"hookEventName": event, "additionalContext": text}},
                      ensure_ascii=False)


def read_transcript(path: Any, session_id: str, start: int = 0) -> tuple[list[Turn], int]:
    """The conversation's turns from byte `start` on, oldest first, and where the next read may begin; a line
    cut short (Claude Code is still writing it) waits for the next read."""
    records, end = read_jsonl(path, start)
    turns: list[Turn] = []
    said: list[str] = []
    seen: set[tuple[str, str]] = set()
    for offset, record in records:
        if record.get("isSidechain") or record.get("isMeta"):
            continue
        message = record.get("message") if isinstance(record.get("message"), dict) else {}
        if record.get("type") == "user" and not record.get("isCompactSummary"):
            text = prompt_text(message.get("content"))
            if text is not None:
                if turns:
                    turns[-1].assistant = clip("\n\n".join(said))
                said = []
                turns.append(Turn(f"{NAME}:{session_id}:{record.get('uuid') or offset}", clip(text), "",
                                  record.get("timestamp"), offset))
        elif record.get("type") == "assistant" and turns:
            for text in texts(message.get("content")):
                block = (str(message.get("id") or record.get("uuid")), text)
                if block not in seen:  # one message may be written as several lines, one content block each
                    seen.add(block)
                    said.append(text)
    if turns:
        turns[-1].assistant = clip("\n\n".join(said))
    return turns, end


def prompt_text(content: Any) -> str | None:
    """What the person typed, or None for a line that is no prompt (tool results, Claude Code's own echoes)."""
    text = content if isinstance(content, str) else "\n".join(texts(content))
    text = text.strip()
    if not text or text.startswith(HARNESS_PREFIXES):
        return None
    return text


def texts(content: Any) -> list[str]:
    if isinstance(content, str):
        return [content] if content.strip() else []
    if not isinstance(content, list):
        return []
    return [b["text"] for b in content
            if isinstance(b, dict) and b.get("type") == "text" and isinstance(b.get("text"), str) and b["text"].strip()]


def clip(text: str) -> str:
    return text if len(text) <= TEXT_CHARS else text[:TEXT_CHARS] + " …"
