"""Mnemon: its JSON import file (schema_version "1") and an existing mnemon.db, opened read-only."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from memoryhub.memories.maintenance.importers.base import Batch, Link, category_of, key_of, note, when
from memoryhub.memories.models import EDGE_TYPES, EdgeType
from memoryhub.memories.text.prose import rule_summary
from memoryhub.memories.write.gateway import Draft


def _list(value: object) -> list[str]:
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError:
            value = [v for v in value.split(",")]
    return [str(v).strip() for v in value or [] if str(v).strip()] if isinstance(value, list) else []


def _item(key: str, row: dict, origin: str) -> Draft:
    content = str(row.get("content") or "")
    return note(key, content, title=rule_summary(content, 120), category=category_of(row.get("category"), content),
                tags=_list(row.get("tags"))[:20], at=when(row.get("created_at")),
                importance=int(row.get("importance") or 3), origin=origin)


def load_json(path: Path, origin: str = "local") -> Batch:
    data = json.loads(path.read_text(encoding="utf-8"))
    if str(data.get("schema_version")) != "1":
        raise ValueError("not a Mnemon import file (schema_version must be \"1\")")
    batch = Batch()
    for n, row in enumerate(data.get("insights") or []):
        if not isinstance(row, dict) or not str(row.get("content") or "").strip():
            batch.errors.append(f"insights[{n}]: no content")
            batch.items.append(None)  # keeps edge indexes aligned; dropped below
            continue
        batch.items.append(_item(key_of("mnemon", row.get("content"), row.get("created_at")), row, origin))
    for edge in data.get("edges") or []:
        try:
            source, target = batch.items[int(edge["source_index"])], batch.items[int(edge["target_index"])]
        except (KeyError, IndexError, TypeError, ValueError):
            batch.errors.append(f"edge {edge!r}: bad index")
            continue
        edge_type = edge.get("edge_type", EdgeType.SEMANTIC)
        if source and target and edge_type in EDGE_TYPES:
            batch.links.append(Link(source.idempotency_key, target.idempotency_key, edge_type,
                                    float(edge.get("weight", 0.5)), str(edge.get("reason") or "")))
    batch.items = [i for i in batch.items if i]
    return batch


def load_db(path: Path, origin: str = "local") -> Batch:
    """Live insights and their explicit edges; the file is opened with mode=ro and never written."""
    conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    conn.row_factory = sqlite3.Row
    try:
        rows = conn.execute("SELECT * FROM insights WHERE deleted_at IS NULL ORDER BY created_at").fetchall()
        edges = conn.execute("SELECT source_id, target_id, edge_type, weight, metadata FROM edges "
                             "WHERE edge_type IN ('causal', 'semantic', 'supersedes')").fetchall()
    finally:
        conn.close()
    batch = Batch(items=[_item(key_of("mnemon.db", r["id"]), dict(r), origin) for r in rows])
    live = {r["id"] for r in rows}
    for e in edges:
        if e["source_id"] in live and e["target_id"] in live:
            reason = ""
            try:
                reason = str(json.loads(e["metadata"] or "{}").get("reason", ""))
            except (ValueError, AttributeError):
                pass
            batch.links.append(Link(key_of("mnemon.db", e["source_id"]), key_of("mnemon.db", e["target_id"]),
                                    e["edge_type"], float(e["weight"]), reason))
    return batch
