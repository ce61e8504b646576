"""Mnemon: its JSON import file (schema_version "1") and an existing mnemon.db, opened read-only."""

from __future__ import annotations

import json
import sqlite3

from memoryhub.memories.maintenance.importers import reading
from memoryhub.memories.maintenance.importers.base import Batch, Link, category_of, key_of, note
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
    try:
        importance = int(row.get("importance") or 3)
    except (TypeError, ValueError):
        importance = 3
    return note(key, content, title=rule_summary(content, 120), category=category_of(row.get("category"), content),
                tags=_list(row.get("tags"))[:20], at=reading.when(row.get("created_at")), importance=importance,
                origin=origin)


def looks_like(source: reading.Source) -> bool:
    if source.suffix != ".json":
        return False
    data = source.document()
    return isinstance(data, dict) and "schema_version" in data and "insights" in data


def load_json(sources: list[reading.Source], batch: Batch, origin: str) -> None:
    for source in sources:
        _load_json(source, batch, origin)


def _load_json(source: reading.Source, batch: Batch, origin: str) -> None:
    data = source.document()
    if not isinstance(data, dict) or str(data.get("schema_version")) != "1":
        shape = "a JSON list" if isinstance(data, list) else "JSON without schema_version \"1\""
        raise reading.Unreadable(f"{source.name} is {shape}, not a Mnemon import file")
    items: list[Draft | None] = []
    for n, row in enumerate(data.get("insights") or []):
        where = f"{source.name}: insights[{n}]"
        if not isinstance(row, dict) or not str(row.get("content") or "").strip():
            batch.errors.append(f"{where}: no content")
            items.append(None)  # keeps edge indexes aligned
            continue
        if not reading.clean(row, where, batch.errors):
            items.append(None)
            continue
        item = _item(key_of("mnemon", row.get("content"), row.get("created_at")), row, origin)
        items.append(item)
        batch.add(item, where=where)
    for edge in data.get("edges") or []:
        try:
            source_item, target = items[int(edge["source_index"])], items[int(edge["target_index"])]
        except (KeyError, IndexError, TypeError, ValueError):
            batch.errors.append(f"{source.name}: edge {str(edge)[:80]}: bad index")
            continue
        edge_type = edge.get("edge_type", EdgeType.SEMANTIC)
        if source_item and target and edge_type in EDGE_TYPES:
            try:
                weight = float(edge.get("weight", 0.5))
            except (TypeError, ValueError):
                weight = 0.5
            batch.links.append(Link(source_item.idempotency_key, target.idempotency_key, edge_type, weight,
                                    str(edge.get("reason") or "")))


def looks_like_db(source: reading.Source) -> bool:
    return source.path is not None and source.prefix()[:16] == b"SQLite format 3\x00"


def load_db(sources: list[reading.Source], batch: Batch, origin: str) -> None:
    for source in sources:
        if source.path is None:
            raise reading.Unreadable(f"{source.name}: a Mnemon database inside an archive; unpack it and import the "
                                     "file itself")
        _load_db(source, batch, origin)


def _load_db(source: reading.Source, batch: Batch, origin: str) -> None:
    """Live insights and their explicit edges; the file is opened with mode=ro and never written."""
    conn = sqlite3.connect(f"{source.path.resolve().as_uri()}?mode=ro", uri=True)
    conn.row_factory = sqlite3.Row
    try:
        rows = conn.execute("SELECT * FROM insights WHERE deleted_at IS NULL ORDER BY created_at").fetchall()
        edges = conn.execute("SELECT source_id, target_id, edge_type, weight, metadata FROM edges "
                             "WHERE edge_type IN ('causal', 'semantic', 'supersedes')").fetchall()
    except sqlite3.DatabaseError as exc:
        raise reading.Unreadable(f"{source.name} is not a Mnemon database ({exc})") from exc
    finally:
        conn.close()
    live = set()
    for r in rows:
        row, where = dict(r), f"{source.name}: insight {r['id']}"
        if reading.clean(row, where, batch.errors):
            batch.add(_item(key_of("mnemon.db", r["id"]), row, origin), where=where)
            live.add(r["id"])
    for e in edges:
        if e["source_id"] in live and e["target_id"] in live:
            reason = ""
            try:
                reason = str(json.loads(e["metadata"] or "{}").get("reason", ""))
            except (ValueError, AttributeError):
                pass
            batch.links.append(Link(key_of("mnemon.db", e["source_id"]), key_of("mnemon.db", e["target_id"]),
                                    e["edge_type"], float(e["weight"]), reason))
