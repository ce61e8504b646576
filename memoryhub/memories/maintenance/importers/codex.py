"""Codex CLI's session logs, the rollout files: `~/.codex/sessions/YYYY/MM/DD/rollout-<time>-<session id>.jsonl`.

Each line is `{"timestamp", "type", "payload"}` (the shape of openai/codex, codex-rs/protocol: RolloutLine): the first
is `session_meta` (the session's `id` and `cwd`), `turn_context` and `event_msg` `task_started` open a turn and name
its `turn_id`, `event_msg` lines carry the conversation as the person saw it (`user_message`, `agent_message`,
`task_complete` with the last answer), and `response_item` lines are the model's wire format (which also holds the
injected AGENTS.md and environment context, reasoning and tool calls), so they are not read. Rollouts written before
the envelope existed (no `payload`; a first line with the session's `id`, then bare `message` items) are read by
their `role`, the injected `<user_instructions>` and `<environment_context>` left out.

A turn is read as the hook reads it (clients/python/memoryhub_client/hooks/codex.py) and has its key,
`codex:<session id>:<turn id>`, so a turn archived live is not written twice. `~/.codex/history.jsonl` holds only
the prompts, not the answers; it is refused with a sentence that says where the sessions are.
"""

from __future__ import annotations

import re

from django.utils.translation import gettext_noop

from memoryhub.memories.maintenance.importers import reading
from memoryhub.memories.maintenance.importers.base import Batch, source_key, turn
from memoryhub.memories.maintenance.importers.sessions import NO_ANSWER

NAME = "codex"
SESSION_IN_NAME = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")
INJECTED = ("<user_instructions>", "<environment_context>", "<permissions instructions>", "# AGENTS.md")
WIRE = gettext_noop("the model's wire records (tool calls, reasoning, injected instructions)")
OWN = gettext_noop("the agent's own lines (turn contexts, token counts, task events)")


def looks_like(source: reading.Source) -> bool:
    head = source.head()
    if any(r.get("type") == "session_meta" and isinstance(r.get("payload"), dict) for r in head):
        return True
    enveloped = [r for r in head if isinstance(r.get("payload"), dict) and "timestamp" in r]
    legacy = head and "instructions" in head[0] and "id" in head[0] and any(r.get("type") == "message" for r in head)
    return bool(head) and (len(enveloped) == len(head) or bool(legacy))


def is_history(source: reading.Source) -> bool:
    head = source.head(5)
    return bool(head) and all(set(r) == {"session_id", "ts", "text"} for r in head)


def refuse_history(sources: list[reading.Source], batch: Batch, origin: str) -> None:
    raise reading.Unreadable(f"{sources[0].name} is Codex's prompt history: it holds what you typed, not the "
                             "answers. Import the session files instead (~/.codex/sessions, one rollout-*.jsonl each)")


def load(sources: list[reading.Source], batch: Batch, origin: str) -> None:
    for source in sources:
        read(source, batch, origin)


def read(source: reading.Source, batch: Batch, origin: str) -> None:
    named = SESSION_IN_NAME.search(source.stem)
    session, cwd, turn_id = named.group() if named else source.stem, "", ""
    turns: list[dict] = []
    for n, record in reading.lines(source, batch.errors):
        payload = record.get("payload")
        if not isinstance(payload, dict):
            _legacy(record, n, source, batch, turns, session)
            if n == 1 and record.get("id"):
                session = str(record["id"])
            continue
        kind = payload.get("type") if record.get("type") == "event_msg" else record.get("type")
        if kind == "session_meta":
            session, cwd = str(payload.get("id") or session), str(payload.get("cwd") or cwd)
        elif kind in ("turn_context", "task_started"):
            turn_id = str(payload.get("turn_id") or turn_id)
            cwd = cwd or str(payload.get("cwd") or "")
            if turns and not turns[-1]["turn"] and not turns[-1]["said"]:
                turns[-1]["turn"] = turn_id  # the prompt was logged before its turn began
            batch.skip(OWN)
        elif kind == "user_message" and isinstance(payload.get("message"), str) and payload["message"].strip():
            if turns and turns[-1]["turn"] == turn_id and turn_id and not turns[-1]["said"]:
                turns[-1]["user"] += "\n\n" + payload["message"].strip()  # said twice in one turn
            else:
                turns.append({"turn": turn_id, "user": payload["message"].strip(), "said": [], "line": n,
                              "at": reading.when(record.get("timestamp")), "where": f"{source.name}:{n}"})
        elif kind == "agent_message" and turns and isinstance(payload.get("message"), str):
            if payload["message"].strip():
                turns[-1]["said"].append(payload["message"].strip())
        elif kind == "task_complete":
            if turns and not turns[-1]["said"] and isinstance(payload.get("last_agent_message"), str):
                turns[-1]["said"].append(payload["last_agent_message"].strip())
            turn_id = ""
        elif record.get("type") == "response_item":
            batch.skip(WIRE)
        else:
            batch.skip(OWN)
    for t in turns:
        said = [s for s in t["said"] if s]
        if not said:
            batch.skip(NO_ANSWER)
            continue
        key = source_key(NAME, session, t["turn"]) if t["turn"] else source_key(NAME, session, f"line-{t['line']}")
        batch.add(turn(key, t["user"], "\n\n".join(said), at=t["at"], session_id=session, origin=origin),
                  where=t["where"], workspace=cwd)


def _legacy(record: dict, n: int, source: reading.Source, batch: Batch, turns: list[dict], session: str) -> None:
    """A rollout from before the envelope: bare response items, read by role."""
    if record.get("type") != "message":
        if n > 1:
            batch.skip(WIRE)
        return
    text = "\n".join(b.get("text", "") for b in record.get("content") or []
                     if isinstance(b, dict) and b.get("type") in ("input_text", "output_text")).strip()
    if not text:
        return
    if record.get("role") == "user":
        if text.startswith(INJECTED):
            batch.skip(WIRE)
        else:
            turns.append({"turn": "", "user": text, "said": [], "line": n, "at": reading.when(record.get("timestamp")),
                          "where": f"{source.name}:{n}"})
    elif record.get("role") == "assistant" and turns:
        turns[-1]["said"].append(text)
