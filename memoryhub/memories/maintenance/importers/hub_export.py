"""The open export read back (open_export.py writes it): restored as it was, not re-derived, so a space exported and
imported again keeps every entry, fact, topic and link exactly.

Each record is checked against the fields and types its version writes; one that does not fit is reported by its
line and left out, the rest restored. Importing the same file again adds nothing: an entry the space already holds
(the same origin, text and time, or the same idempotency key) is matched, not copied, and what points at it (facts,
links, topics) points at the one already there. Memories of a vault space go only into a vault space.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django.db import transaction
from django.utils.translation import gettext_noop

from memoryhub.core.redaction import redact, redact_value
from memoryhub.memories.maintenance import open_export
from memoryhub.memories.maintenance.importers import reading
from memoryhub.memories.models import CATEGORIES, EDGE_TYPES, Edge, Entry, Fact, Kind, Method, Source, Topic
from memoryhub.memories.write import gateway
from memoryhub.memories.write.drafts import content_hash
from memoryhub.spaces.models import MemorySpace

TEXT, INT, NUM, BOOL, LIST, DICT, TIME, REF = "text", "int", "number", "bool", "list", "dict", "time", "ref"
FIELDS: dict[str, dict[str, str]] = {
    "space": {"slug": TEXT, "name": TEXT, "description": TEXT, "access": TEXT, "settings": DICT, "workspace": DICT},
    "topic": {"id": INT, "origin": TEXT, "session_id": TEXT, "title": TEXT, "kind": TEXT, "started_at": TIME,
              "ended_at": TIME, "turn_count": INT, "entities": LIST, "keywords": LIST},
    "entry": {"id": INT, "kind": TEXT, "at": TIME, "category": TEXT, "title": TEXT, "body": TEXT, "summary": TEXT,
              "tags": LIST, "entities": LIST, "related": LIST, "session_id": TEXT, "source": TEXT, "origin": TEXT,
              "channel": TEXT, "chat": DICT, "importance": INT, "hits": INT, "last_accessed_at": TIME,
              "archived": BOOL, "is_test": BOOL, "digest": REF, "merged_into": REF, "topic": REF,
              "idempotency_key": TEXT, "provenance": DICT, "created_at": TIME},
    "fact": {"id": INT, "subject": TEXT, "predicate": TEXT, "value": TEXT, "negative": BOOL, "status": TEXT,
             "origin": TEXT, "source_entry": REF, "method": TEXT, "confidence": NUM, "created_at": TIME,
             "refreshed_at": TIME, "invalidated_at": TIME, "invalidated_by": REF},
    "link": {"source": INT, "target": INT, "edge_type": TEXT, "weight": NUM, "metadata": DICT, "created_at": TIME},
}
REQUIRED = {"space": ("slug",), "topic": ("id", "started_at", "ended_at"), "entry": ("id", "body"),
            "fact": ("id", "predicate", "value"), "link": ("source", "target", "edge_type")}
CHOICES = {("entry", "kind"): set(Kind.values), ("entry", "category"): set(CATEGORIES),
           ("entry", "source"): set(Source.values), ("topic", "kind"): set(CATEGORIES),
           ("fact", "status"): set(Fact.Status.values), ("fact", "method"): set(Method.values),
           ("link", "edge_type"): set(EDGE_TYPES)}
LIMITS = {"title": 300, "summary": 500, "session_id": 200, "channel": 200, "origin": 60, "idempotency_key": 200,
          "subject": 100, "predicate": 60, "value": 500}


@dataclass
class Export:
    """An open export as read: its header and, per exported space, its records by type."""

    header: dict
    spaces: dict[str, dict[str, list[dict]]] = field(default_factory=dict)

    def of(self, kind: str) -> list[dict]:
        return [r for records in self.spaces.values() for r in records.get(kind, [])]


def is_export(source: reading.Source) -> bool:
    head = source.head(1)
    return bool(head) and head[0].get("format") == open_export.FORMAT


def read(source: reading.Source, problems: list[str]) -> Export:
    """The file's records by space; the first line must name the format and a version this hub reads."""
    records = reading.lines(source, problems)
    first = next(records, None)
    header = first[1] if first else {}
    if header.get("format") != open_export.FORMAT:
        raise reading.Unreadable(f"{source.name} is not a memoryhub export: its first line must be "
                                 f'{{"format": "{open_export.FORMAT}", "version": {open_export.VERSION}, …}}')
    if header.get("version") not in open_export.READABLE_VERSIONS:
        raise reading.Unreadable(f"{source.name} is a memoryhub export of version {header.get('version')!r}; this "
                                 f"hub reads version {', '.join(map(str, open_export.READABLE_VERSIONS))}")
    export = Export(header)
    for n, record in records:
        problem = _problem(record)
        if problem:
            problems.append(f"{source.name}:{n}: {problem}")
            continue
        slug = record["slug"] if record["type"] == "space" else str(record.get("space") or "")
        if record["type"] != "space" and slug not in export.spaces:
            problems.append(f"{source.name}:{n}: a {record['type']} of a space not described before it ({slug!r})")
            continue
        export.spaces.setdefault(slug, {}).setdefault(record["type"], []).append(record)
    return export


def _problem(record: dict) -> str:
    """What is wrong with one record, or ""."""
    kind = record.get("type")
    if kind not in FIELDS:
        return f"unknown record type {kind!r}"
    fields = FIELDS[kind]
    unknown = set(record) - set(fields) - {"type", "space"}
    if unknown:
        return f"a {kind} with fields this version does not write: {', '.join(sorted(unknown))}"
    for name in REQUIRED[kind]:
        if record.get(name) in (None, ""):
            return f"a {kind} without {name}"
    for name, value in record.items():
        if name in fields and value is not None and not _fits(fields[name], value):
            return f"{kind}.{name} should be {fields[name]}, not {type(value).__name__}"
        if (kind, name) in CHOICES and value not in CHOICES[(kind, name)]:
            return f"{kind}.{name} {value!r} is not one of this hub's"
    return ""


def _fits(kind: str, value: Any) -> bool:
    if kind in (INT, REF):
        return isinstance(value, int) and not isinstance(value, bool)
    if kind == NUM:
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if kind == TIME:
        return isinstance(value, str) and _time(value) is not None
    return isinstance(value, {TEXT: str, BOOL: bool, LIST: list, DICT: dict}[kind])


def _time(value: Any):
    return reading.when(value) if isinstance(value, str) else None


def restore(space: MemorySpace, export: Export, *, dry_run: bool, actor: str, progress) -> dict:
    """The export's records into `space` (every exported space's, merged), matched against what it holds."""
    vaults = [slug for slug, records in export.spaces.items()
              if any(r.get("access") == MemorySpace.Access.VAULT for r in records.get("space", []))]
    if vaults and not space.is_vault:
        raise reading.Unreadable(f"the file holds vault memories (space {vaults[0]}); import it into a vault space, "
                                 "so agents still cannot read them")
    entries, topics, facts, links = (export.of(k) for k in ("entry", "topic", "fact", "link"))
    known = _known_entries(space)
    fresh = [e for e in entries if _identity(e) not in known["text"] and
             (e.get("origin") or "local", e.get("idempotency_key") or "") not in known["keys"]]
    result = {"spaces": list(export.spaces), "items": len(entries), "turns": sum(e["kind"] == Kind.TURN
                                                                                  for e in entries),
              "sessions": len({e.get("session_id") for e in entries if e["kind"] == Kind.TURN}),
              "notes": sum(e["kind"] != Kind.TURN for e in entries), "new": len(fresh),
              "existing": len(entries) - len(fresh), "facts": len(facts), "links": len(links), "topics": len(topics),
              "skipped": {}, "preview": [{"kind": e["kind"], "at": e.get("at") or "", "session": e.get("session_id",
                                                                                                      ""),
                                          "text": " ".join((e.get("title") or e["body"]).split())[:120]}
                                         for e in fresh[:20]],
              "targets": [{"space": space.slug, "name": space.name, "path": "", "made": False, "new": len(fresh),
                           "turns": sum(e["kind"] == Kind.TURN for e in fresh),
                           "sessions": len({e.get("session_id") for e in fresh if e["kind"] == Kind.TURN})}]}
    if dry_run:
        return result
    progress(10, gettext_noop("restoring %(total)d entries"), total=len(fresh))
    with transaction.atomic():
        topic_ids = _restore_topics(space, topics)
        ids = _matched(entries, known)
        ids.update(gateway.restore(space, [_entry_row(e, topic_ids) for e in fresh]))
        _restore_marks(fresh, ids)
        fact_count = _restore_facts(space, facts, ids)
        progress(90, gettext_noop("facts and links"))
        Edge.objects.bulk_create([
            Edge(source_id=ids[r["source"]], target_id=ids[r["target"]], edge_type=r["edge_type"],
                 weight=float(r.get("weight", 1.0)), metadata=redact_value(r.get("metadata") or {}),
                 **({"created_at": _time(r["created_at"])} if r.get("created_at") else {}))
            for r in links if r["source"] in ids and r["target"] in ids], ignore_conflicts=True)
    return {**result, "added": len(fresh), "unchanged": 0, "linked": len(links), "facts_added": fact_count,
            "failed": 0}


def _known_entries(space: MemorySpace) -> dict:
    text, keys = {}, {}
    for pk, origin, digest, at, key in Entry.objects.live().filter(space=space).values_list(
            "pk", "origin", "content_hash", "at", "idempotency_key").iterator(chunk_size=5000):
        text[(origin, digest, at)] = pk
        if key:
            keys[(origin, key)] = pk
    return {"text": text, "keys": keys}


def _identity(entry: dict) -> tuple:
    title, body = redact(entry.get("title") or "").text, redact(entry["body"]).text
    return entry.get("origin") or "local", content_hash(title, body), _time(entry.get("at") or "")


def _matched(entries: list[dict], known: dict) -> dict[int, int]:
    """Exported entry id -> the entry this space already holds for it."""
    out = {}
    for e in entries:
        pk = known["text"].get(_identity(e)) or known["keys"].get((e.get("origin") or "local",
                                                                  e.get("idempotency_key") or ""))
        if pk:
            out[e["id"]] = pk
    return out


def _entry_row(e: dict, topic_ids: dict[int, int]) -> dict:
    """An export entry as gateway.restore takes it: model fields, times as datetimes, text within its limits."""
    row = {"id": e["id"], "kind": e["kind"], "body": e["body"], "topic_id": topic_ids.get(e.get("topic"))}
    for name in ("category", "title", "summary", "session_id", "source", "origin", "channel", "idempotency_key"):
        if e.get(name) is not None:
            row[name] = e[name][:LIMITS.get(name, 10**6)]
    for name in ("tags", "entities", "related", "chat", "provenance", "importance", "hits", "archived", "is_test"):
        if e.get(name) is not None:
            row[name] = e[name]
    for name in ("at", "last_accessed_at", "created_at"):
        if e.get(name):
            row[name] = _time(e[name])
    row["importance"] = max(1, min(5, row.get("importance", 3)))
    row["content_hash"] = content_hash(row.get("title", ""), row["body"])
    return row


def _restore_marks(fresh: list[dict], ids: dict[int, int]) -> None:
    """Digest and merge marks between restored entries (an entry points at one restored after it, or one already
    here)."""
    for e in fresh:
        marks = {f"{name}_id": ids.get(e.get(name)) for name in ("digest", "merged_into") if e.get(name)}
        marks = {k: v for k, v in marks.items() if v}
        if marks and e["id"] in ids:
            Entry.objects.filter(pk=ids[e["id"]]).update(**marks)


def _restore_topics(space: MemorySpace, topics: list[dict]) -> dict[int, int]:
    here = {(t.origin, t.session_id, t.started_at): t.pk for t in Topic.objects.filter(space=space)}
    out = {}
    for t in topics:
        started = _time(t["started_at"])
        key = (t.get("origin") or "local", t.get("session_id") or "", started)
        if key not in here:
            here[key] = Topic.objects.create(
                space=space, origin=key[0], session_id=key[1][:200], title=redact(t.get("title") or "").text[:300],
                kind=t.get("kind") or "general", started_at=started, ended_at=_time(t["ended_at"]),
                turn_count=t.get("turn_count") or 0, entities=t.get("entities") or [],
                keywords=t.get("keywords") or []).pk
        out[t["id"]] = here[key]
    return out


def _restore_facts(space: MemorySpace, facts: list[dict], ids: dict[int, int]) -> int:
    here = {(f.subject, f.predicate, f.value, f.origin, f.status, f.created_at): f.pk
            for f in Fact.objects.filter(space=space)}
    made: dict[int, int] = {}
    added = 0
    for f in facts:
        subject, value = redact(f.get("subject") or "user").text[:100], redact(f["value"]).text[:500]
        created = _time(f.get("created_at") or "")
        key = (subject, f["predicate"][:60], value, f.get("origin") or "local", f.get("status") or "active", created)
        if key in here:
            made[f["id"]] = here[key]
            continue
        fields = {"subject": subject, "predicate": key[1], "value": value, "origin": key[3], "status": key[4],
                  "negative": bool(f.get("negative")), "method": f.get("method") or Method.MANUAL,
                  "confidence": float(f.get("confidence", 1.0)), "source_entry_id": ids.get(f.get("source_entry"))}
        fields.update({name: _time(f[name]) for name in ("created_at", "refreshed_at", "invalidated_at")
                       if f.get(name)})
        here[key] = made[f["id"]] = Fact.objects.create(space=space, **fields).pk
        added += 1
    for f in facts:
        by = made.get(f.get("invalidated_by"))
        if by and f["id"] in made:
            Fact.objects.filter(pk=made[f["id"]], invalidated_by__isnull=True).update(invalidated_by_id=by)
    return added
