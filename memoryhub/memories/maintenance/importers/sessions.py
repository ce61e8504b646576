"""Session logs: JSONL, one message per line, plain or as many concatenated zstd frames."""

from __future__ import annotations

import json
from pathlib import Path

import zstandard

from memoryhub.memories.maintenance.importers import base
from memoryhub.memories.maintenance.importers.base import Batch, key_of, when

ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"


def split_frames(data: bytes) -> list[bytes]:
    """Decompress a multi-frame zstd file: cut at each frame magic, decompress each frame, keep the order.

    A magic that happens to sit inside compressed data makes its piece undecodable; such a
    piece is glued to the next one and tried again.
    """
    starts = [i for i in _find_all(data, ZSTD_MAGIC)] + [len(data)]
    out: list[bytes] = []
    begin = starts[0] if starts else 0
    for end in starts[1:]:
        piece = data[begin:end]
        try:
            out.append(zstandard.ZstdDecompressor().decompressobj().decompress(piece))
        except zstandard.ZstdError:
            continue
        begin = end
    if begin < len(data):
        raise ValueError(f"undecodable zstd data at byte {begin}")
    return out


def _find_all(data: bytes, needle: bytes):
    i = data.find(needle)
    while i >= 0:
        yield i
        i = data.find(needle, i + 1)


def _text(content: object) -> str:
    """Message content as text: a string, or the text parts of a list of blocks."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(p.get("text", "") if isinstance(p, dict) else str(p) for p in content
                         if not isinstance(p, dict) or p.get("type", "text") == "text").strip()
    return ""


def parse_lines(lines: list[str], source: str, origin: str = "local") -> Batch:
    """Pair each user message with the assistant messages after it into one turn per pair."""
    batch = Batch()
    pending: dict[str, dict] = {}
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            event = json.loads(line)
        except ValueError:
            batch.errors.append(f"{source}:{n}: not JSON")
            continue
        if not isinstance(event, dict):
            continue
        message = event.get("message") if isinstance(event.get("message"), dict) else event
        role, text = message.get("role"), _text(message.get("content"))
        session = str(event.get("session_id") or event.get("sessionId") or message.get("session_id") or source)
        at = when(event.get("timestamp") or event.get("at") or event.get("created_at") or message.get("timestamp"))
        if role == "user" and text:
            _flush(batch, pending.pop(session, None), origin)
            pending[session] = {"user": text, "assistant": [], "at": at, "session": session}
        elif role == "assistant" and text and session in pending:
            pending[session]["assistant"].append(text)
    for turn in pending.values():
        _flush(batch, turn, origin)
    return batch


def _flush(batch: Batch, turn: dict | None, origin: str) -> None:
    if not turn or not turn["assistant"]:
        return
    assistant = "\n\n".join(turn["assistant"])
    batch.items.append(base.turn(
        key_of("turn", turn["session"], turn["at"] and turn["at"].isoformat(), turn["user"], assistant),
        turn["user"], assistant, at=turn["at"], session_id=turn["session"], origin=origin,
    ))


def load_jsonl(path: Path, origin: str = "local") -> Batch:
    return parse_lines(path.read_text(encoding="utf-8", errors="replace").splitlines(), path.stem, origin)


def load_zstd(path: Path, origin: str = "local") -> Batch:
    text = b"".join(split_frames(path.read_bytes())).decode("utf-8", errors="replace")
    return parse_lines(text.splitlines(), path.name.split(".")[0], origin)
