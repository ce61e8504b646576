"""Claude Code's session transcripts: `~/.claude/projects/<project directory, "/" as "-">/<session id>.jsonl`, one
JSON object a line (its sub-agents' under `<session id>/subagents/agent-*.jsonl`).

The format is Claude Code's own and undocumented beyond its shape (observed, and as described in
https://docs.claude.com/en/docs/claude-code/sdk/sdk-sessions): every line has `type`, `uuid`, `parentUuid`,
`sessionId`, `timestamp` and `cwd`; `type: "user"` lines carry `message.content` as a string or a list of blocks
(`text`, `tool_result`), `type: "assistant"` lines one API message's content blocks (`text`, `thinking`,
`tool_use`, one block a line, the same `message.id`), and `system`, `summary`, `file-history-snapshot`, `progress`
lines are Claude Code's own bookkeeping.

A turn is read exactly as the Stop hook reads it (clients/python/memoryhub_client/hooks/claude_code.py): one prompt
the person typed and every text block the assistant wrote until the next one. Tool calls and results, thinking,
sub-agents' messages (isSidechain), Claude Code's own lines (isMeta, compaction summaries, slash-command echoes)
are not the conversation and are counted as left out. The idempotency key is the hook's,
`claude-code:<session id>:<prompt uuid>`, so a turn the hook archived live is not written again by an import, and
each session's `cwd` is its project directory (the workspace).
"""

from __future__ import annotations

from django.utils.translation import gettext_noop

from memoryhub.memories.maintenance.importers import reading
from memoryhub.memories.maintenance.importers.base import Batch, source_key, turn
from memoryhub.memories.maintenance.importers.sessions import NO_ANSWER

NAME = "claude-code"
HARNESS_PREFIXES = ("<command-name>", "<command-message>", "<local-command-", "<command-args>",
                    "[Request interrupted by user")
TYPES = ("user", "assistant", "system", "summary", "file-history-snapshot", "progress")
TOOLS = gettext_noop("tool calls and tool results")
THINKING = gettext_noop("the assistant's thinking")
SIDECHAIN = gettext_noop("sub-agents' messages")
OWN = gettext_noop("the agent's own lines (slash commands, compaction summaries, hooks, snapshots)")


def looks_like(source: reading.Source) -> bool:
    head = source.head()
    return bool(head) and any(r.get("type") in ("user", "assistant") and "sessionId" in r
                              and isinstance(r.get("message"), dict) for r in head) \
        and all(r.get("type") in TYPES or "sessionId" in r for r in head)


def load(sources: list[reading.Source], batch: Batch, origin: str) -> None:
    for source in sources:
        read(source, batch, origin)


def read(source: reading.Source, batch: Batch, origin: str) -> None:
    turns: list[dict] = []
    seen: set[tuple[str, str]] = set()
    for n, record in reading.lines(source, batch.errors):
        kind = record.get("type")
        message = record.get("message") if isinstance(record.get("message"), dict) else {}
        if record.get("isSidechain"):
            batch.skip(SIDECHAIN)
        elif record.get("isMeta") or record.get("isCompactSummary") or kind not in ("user", "assistant"):
            batch.skip(OWN)
        elif kind == "user":
            text = _prompt(message.get("content"), batch)
            if text is not None:
                turns.append({"session": str(record.get("sessionId") or source.stem),
                              "uuid": str(record.get("uuid") or n), "user": text, "said": [],
                              "at": reading.when(record.get("timestamp")), "cwd": str(record.get("cwd") or ""),
                              "where": f"{source.name}:{n}"})
        elif turns:
            for block_text in _said(message, batch):
                block = (str(message.get("id") or record.get("uuid")), block_text)
                if block not in seen:  # one message is written as several lines, one content block each
                    seen.add(block)
                    turns[-1]["said"].append(block_text)
    for t in turns:
        if not t["said"]:
            batch.skip(NO_ANSWER)
            continue
        batch.add(turn(source_key(NAME, t["session"], t["uuid"]), t["user"], "\n\n".join(t["said"]), at=t["at"],
                       session_id=t["session"], origin=origin), where=t["where"], workspace=t["cwd"])


def _prompt(content, batch: Batch) -> str | None:
    """What the person typed, or None for a line that is no prompt (tool results, Claude Code's own echoes)."""
    if isinstance(content, list) and any(isinstance(b, dict) and b.get("type") == "tool_result" for b in content):
        batch.skip(TOOLS)
        return None
    text = (content if isinstance(content, str) else "\n".join(_texts(content))).strip()
    if not text or text.startswith(HARNESS_PREFIXES):
        batch.skip(OWN)
        return None
    return text


def _said(message: dict, batch: Batch) -> list[str]:
    content = message.get("content")
    if isinstance(content, list):
        for b in content:
            if isinstance(b, dict) and b.get("type") == "tool_use":
                batch.skip(TOOLS)
            elif isinstance(b, dict) and b.get("type") in ("thinking", "redacted_thinking"):
                batch.skip(THINKING)
    return _texts(content)


def _texts(content) -> list[str]:
    if isinstance(content, str):
        return [content] if content.strip() else []
    if not isinstance(content, list):
        return []
    return [b["text"] for b in content
            if isinstance(b, dict) and b.get("type") == "text" and isinstance(b.get("text"), str) and b["text"].strip()]
