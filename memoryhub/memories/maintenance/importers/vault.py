"""Memory-vault projects/<slug>/memories.jsonl and Mnemosyne's entries/*.jsonl + facts.jsonl."""

from __future__ import annotations

import json
from pathlib import Path

from memoryhub.memories.maintenance.importers.base import Batch, FactOp, Link, category_of, key_of, note, turn, when
from memoryhub.memories.models import EdgeType
from memoryhub.memories.write.gateway import Draft


def _rows(path: Path, batch: Batch) -> list[dict]:
    rows = []
    for n, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except ValueError:
            batch.errors.append(f"{path.name}:{n}: not JSON")
            continue
        if isinstance(row, dict):
            rows.append(row)
    return rows


def _session(source: object) -> str:
    if isinstance(source, dict):
        return str(source.get("sessionId") or source.get("session_id") or source.get("session") or "")
    return str(source or "")


def load_vault(path: Path, origin: str = "local") -> Batch:
    """One entry per line: id, at, category, title, body, tags, related (vault ids, remapped by key), source."""
    batch = Batch()
    for row in _rows(path, batch):
        body = str(row.get("body") or "")
        if not body.strip() or not row.get("id"):
            batch.errors.append(f"{row.get('id', '?')}: no id or body")
            continue
        batch.items.append(note(
            key_of("vault", row["id"]), body, title=str(row.get("title") or ""),
            category=category_of(row.get("category"), body), tags=[str(t) for t in row.get("tags") or []][:20],
            related=[str(r) for r in row.get("related") or []], at=when(row.get("at")),
            session_id=_session(row.get("source")), origin=origin,
        ))
        batch.links += [Link(key_of("vault", row["id"]), key_of("vault", r), EdgeType.SEMANTIC, 0.5, "related")
                        for r in row.get("related") or []]
    return batch


def load_mnemosyne(root: Path, origin: str = "local") -> Batch:
    """entries/*.jsonl are append-only revisions (the last line per id wins); facts.jsonl is an op stream."""
    batch = Batch()
    latest: dict[str, dict] = {}
    for shard in sorted((root / "entries").glob("*.jsonl")) if (root / "entries").is_dir() else []:
        for row in _rows(shard, batch):
            if row.get("id"):
                latest[str(row["id"])] = row
    for entry_id, row in latest.items():
        if row.get("deleted") or row.get("deletedAt"):
            continue
        item = _mnemosyne_item(entry_id, row, origin)
        if item:
            batch.items.append(item)
    facts_file = root / "facts.jsonl"
    if facts_file.is_file():
        for row in _rows(facts_file, batch):
            op = str(row.get("op") or row.get("action") or "assert")
            if op in ("assert", "invalidate", "refresh") and row.get("predicate"):
                batch.facts.append(FactOp(op, str(row.get("subject") or "user"), str(row["predicate"]),
                                          str(row.get("value") or ""), bool(row.get("negative")),
                                          str(row.get("origin") or origin)))
    return batch


def _mnemosyne_item(entry_id: str, row: dict, origin: str) -> Draft | None:
    key = key_of("mnemosyne", entry_id)
    common = dict(at=when(row.get("at") or row.get("ts") or row.get("time")),
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
