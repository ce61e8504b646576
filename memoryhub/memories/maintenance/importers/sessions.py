"""Session logs: JSONL, one message per line (`{"role", "content", "timestamp", "session_id"}` or the same inside
`"message"`), plain or as many concatenated zstd frames."""

from __future__ import annotations

import zstandard
from django.utils.translation import gettext_noop

from memoryhub.memories.maintenance.importers import base, reading
from memoryhub.memories.maintenance.importers.base import Batch, key_of

ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"
NO_ANSWER = gettext_noop("prompts that got no answer")


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
        raise reading.Unreadable(f"undecodable zstd data at byte {begin}")
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


def looks_like(source: reading.Source) -> bool:
    return any(isinstance(_message(r).get("role"), str) for r in source.head())


def _message(event: dict) -> dict:
    return event.get("message") if isinstance(event.get("message"), dict) else event


def read(source: reading.Source, batch: Batch, origin: str) -> None:
    """Pair each user message with the assistant messages after it into one turn per pair."""
    pending: dict[str, dict] = {}
    for n, event in reading.lines(source, batch.errors):
        message = _message(event)
        role, text = message.get("role"), _text(message.get("content"))
        session = str(event.get("session_id") or event.get("sessionId") or message.get("session_id") or source.stem)
        at = reading.when(event.get("timestamp") or event.get("at") or event.get("created_at")
                          or message.get("timestamp"))
        if role == "user" and text:
            _flush(batch, pending.pop(session, None), origin)
            pending[session] = {"user": text, "assistant": [], "at": at, "session": session,
                                "where": f"{source.name}:{n}"}
        elif role == "assistant" and text and session in pending:
            pending[session]["assistant"].append(text)
    for turn in pending.values():
        _flush(batch, turn, origin)


def _flush(batch: Batch, turn: dict | None, origin: str) -> None:
    if not turn:
        return
    if not turn["assistant"]:
        batch.skip(NO_ANSWER)
        return
    assistant = "\n\n".join(turn["assistant"])
    batch.add(base.turn(
        key_of("turn", turn["session"], turn["at"] and turn["at"].isoformat(), turn["user"], assistant),
        turn["user"], assistant, at=turn["at"], session_id=turn["session"], origin=origin,
    ), where=turn["where"])


def load_jsonl(sources: list[reading.Source], batch: Batch, origin: str) -> None:
    for source in sources:
        read(source, batch, origin)


def load_zstd(sources: list[reading.Source], batch: Batch, origin: str) -> None:
    for source in sources:
        text = b"".join(split_frames(source.data())).decode("utf-8", errors="replace")
        read(reading.Source(source.name, blob=text.encode()), batch, origin)
