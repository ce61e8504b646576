"""Memory-vault projects/<slug>/memories.jsonl and Mnemosyne's entries/*.jsonl + facts.jsonl."""

from __future__ import annotations

from memoryhub.memories.maintenance.importers import reading
from memoryhub.memories.maintenance.importers.base import Batch, FactOp, Link, category_of, key_of, note, turn
from memoryhub.memories.models import EdgeType
from memoryhub.memories.write.gateway import Draft


def _session(source: object) -> str:
    if isinstance(source, dict):
        return str(source.get("sessionId") or source.get("session_id") or source.get("session") or "")
    return str(source or "")


def looks_like(source: reading.Source) -> bool:
    return reading.mostly(source.head(5), lambda r: "body" in r and "category" in r and "id" in r)


def load_vault(sources: list[reading.Source], batch: Batch, origin: str) -> None:
    """One entry per line: id, at, category, title, body, tags, related (vault ids, remapped by key), source."""
    for source in sources:
        for n, row in reading.lines(source, batch.errors):
            body = str(row.get("body") or "")
            if not body.strip() or not row.get("id"):
                batch.errors.append(f"{source.name}:{n}: no id or body")
                continue
            batch.add(note(
                key_of("vault", row["id"]), body, title=str(row.get("title") or ""),
                category=category_of(row.get("category"), body), tags=[str(t) for t in row.get("tags") or []][:20],
                related=[str(r) for r in row.get("related") or []], at=reading.when(row.get("at")),
                session_id=_session(row.get("source")), origin=origin,
            ), where=f"{source.name}:{n}")
            batch.links += [Link(key_of("vault", row["id"]), key_of("vault", r), EdgeType.SEMANTIC, 0.5, "related")
                            for r in row.get("related") or []]


def is_mnemosyne(sources: list[reading.Source]) -> bool:
    return any(s.name.startswith("entries/") and s.suffix == ".jsonl" for s in sources)


def load_mnemosyne(sources: list[reading.Source], batch: Batch, origin: str) -> None:
    """entries/*.jsonl are append-only revisions (the last line per id wins); facts.jsonl is an op stream."""
    latest: dict[str, tuple[dict, str]] = {}
    shards = sorted((s for s in sources if s.name.startswith("entries/") and s.suffix == ".jsonl"),
                    key=lambda s: s.name)
    for shard in shards:
        for n, row in reading.lines(shard, batch.errors):
            if row.get("id"):
                latest[str(row["id"])] = (row, f"{shard.name}:{n}")
    for entry_id, (row, where) in latest.items():
        if row.get("deleted") or row.get("deletedAt"):
            continue
        item = _mnemosyne_item(entry_id, row, origin)
        if item:
            batch.add(item, where=where)
    for facts_file in (s for s in sources if s.name == "facts.jsonl"):
        for _n, row in reading.lines(facts_file, batch.errors):
            op = str(row.get("op") or row.get("action") or "assert")
            if op in ("assert", "invalidate", "refresh") and row.get("predicate"):
                batch.facts.append(FactOp(op, str(row.get("subject") or "user"), str(row["predicate"]),
                                          str(row.get("value") or ""), bool(row.get("negative")),
                                          str(row.get("origin") or origin)))


def _mnemosyne_item(entry_id: str, row: dict, origin: str) -> Draft | None:
    key = key_of("mnemosyne", entry_id)
    common = dict(at=reading.when(row.get("at") or row.get("ts") or row.get("time")),
                  session_id=str(row.get("sessionId") or row.get("session_id") or ""),
                  origin=str(row.get("origin") or origin), channel=str(row.get("umo") or ""),
                  tags=[str(t) for t in row.get("tags") or []][:20])
    if row.get("user") and row.get("assistant"):
        return turn(key, str(row["user"]), str(row["assistant"]), **common)
    body = str(row.get("body") or row.get("text") or row.get("content") or "")
    if not body.strip() or row.get("type") == "digest":
        return None
    return note(key, body, title=str(row.get("title") or row.get("summary") or ""),
                category=category_of(row.get("category") or row.get("type"), body), **common)
