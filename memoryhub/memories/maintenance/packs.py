"""Packs: one native space as a .tar.gz of JSON files plus a manifest (schema version, sha256 per file).

A pack carries the space's own memory only: entries, facts, topics, persona, edges, op log.
Provider config, selection, secrets and anything held by a third-party provider never go in.
Importing always makes a new space; every id is remapped.
"""

from __future__ import annotations

import hashlib
import io
import json
import tarfile
from datetime import datetime

from django.db import transaction
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from memoryhub.core.errors import ApiError
from memoryhub.memories.models import Edge, Entry, Fact, OpLog, Persona, Topic
from memoryhub.memories.write import gateway
from memoryhub.spaces.models import MemorySpace
from memoryhub.spaces.space_service import create_space

SCHEMA = "memoryhub.pack"
SCHEMA_VERSION = 1
SPACE_SETTINGS_KEEP = ("autoConsolidate", "consolidateMinAgeDays", "consolidateDigestAgeDays", "mergeSimilarity")
ENTRY_FIELDS = ["id", "kind", "at", "category", "title", "body", "summary", "tags", "entities", "related",
                "session_id", "source", "origin", "channel", "importance", "hits", "last_accessed_at", "archived",
                "is_test", "digest_id", "merged_into_id", "topic_id", "content_hash", "idempotency_key",
                "redactions", "created_at", "deleted_at"]
TOPIC_FIELDS = ["id", "session_id", "title", "kind", "started_at", "ended_at", "turn_count", "entities", "keywords"]
FACT_FIELDS = ["id", "subject", "predicate", "value", "negative", "status", "origin", "source_entry_id", "method",
               "confidence", "created_at", "refreshed_at", "invalidated_at", "invalidated_by_id"]
EDGE_FIELDS = ["source_id", "target_id", "edge_type", "weight", "metadata", "created_at"]
OPLOG_FIELDS = ["operation", "entry_id", "detail", "actor", "created_at"]
PERSONA_FIELDS = ["profile", "frame", "events", "rebuilt_at", "entries_since_rebuild"]


class PackError(Exception):
    """The archive is not a pack this hub can read."""


def _rows(queryset, fields: list[str]) -> list[dict]:
    return [{k: (v.isoformat() if isinstance(v, datetime) else v) for k, v in row.items()}
            for row in queryset.values(*fields)]


def export(space: MemorySpace) -> bytes:
    """The space as pack bytes (deterministic file order; only native spaces have data of their own)."""
    if not space.is_native:
        raise PackError("only native spaces can be packed: a third-party provider's data stays with it")
    persona = Persona.objects.filter(space=space).values(*PERSONA_FIELDS).first()
    files = {
        "entries.json": _rows(Entry.objects.filter(space=space).order_by("id"), ENTRY_FIELDS),
        "topics.json": _rows(Topic.objects.filter(space=space).order_by("id"), TOPIC_FIELDS),
        "facts.json": _rows(Fact.objects.filter(space=space).order_by("id"), FACT_FIELDS),
        "edges.json": _rows(Edge.objects.filter(source__space=space).order_by("id"), EDGE_FIELDS),
        "oplog.json": _rows(OpLog.objects.filter(space=space).order_by("id"), OPLOG_FIELDS),
        "persona.json": {k: (v.isoformat() if isinstance(v, datetime) else v) for k, v in (persona or {}).items()},
    }
    blobs = {name: json.dumps(data, ensure_ascii=False, sort_keys=True, indent=1).encode() for name, data in files.items()}
    manifest = {
        "schema": SCHEMA, "schema_version": SCHEMA_VERSION, "created_at": timezone.now().isoformat(),
        "space": {"slug": space.slug, "name": space.name, "description": space.description, "access": space.access,
                  "settings": {k: v for k, v in (space.settings or {}).items() if k in SPACE_SETTINGS_KEEP}},
        "counts": {name.removesuffix(".json"): len(data) for name, data in files.items() if isinstance(data, list)},
        "files": {name: hashlib.sha256(blob).hexdigest() for name, blob in blobs.items()},
    }
    blobs = {"manifest.json": json.dumps(manifest, ensure_ascii=False, indent=1).encode(), **blobs}
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w:gz") as tar:
        for name, blob in blobs.items():
            info = tarfile.TarInfo(name)
            info.size, info.mtime, info.mode = len(blob), 0, 0o600
            tar.addfile(info, io.BytesIO(blob))
    return out.getvalue()


def read(data: bytes) -> tuple[dict, dict[str, object]]:
    """(manifest, files) after checking the schema and every checksum."""
    try:
        with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
            blobs = {m.name: tar.extractfile(m).read() for m in tar.getmembers() if m.isfile()}
    except (tarfile.TarError, OSError, EOFError) as exc:
        raise PackError(f"not a pack archive: {exc}") from exc
    try:
        manifest = json.loads(blobs.pop("manifest.json"))
    except (KeyError, ValueError) as exc:
        raise PackError("the pack has no readable manifest.json") from exc
    if manifest.get("schema") != SCHEMA or manifest.get("schema_version") != SCHEMA_VERSION:
        raise PackError(f"unsupported pack schema {manifest.get('schema')!r} v{manifest.get('schema_version')!r}")
    files = {}
    for name, digest in manifest.get("files", {}).items():
        blob = blobs.get(name)
        if blob is None or hashlib.sha256(blob).hexdigest() != digest:
            raise PackError(f"{name} is missing or does not match its checksum")
        files[name] = json.loads(blob)
    return manifest, files


def _values(row: dict) -> dict:
    """JSON values back to model values: the time fields (`at`, `*_at`) become datetimes again."""
    return {k: parse_datetime(v) if isinstance(v, str) and (k == "at" or k.endswith("_at")) else v
            for k, v in row.items()}


def free_slug(base: str) -> str:
    slug, n = base[:70], 2
    while MemorySpace.objects.filter(slug=slug).exists():
        slug, n = f"{base[:70]}-{n}", n + 1
    return slug


def import_pack(data: bytes, *, slug: str = "", name: str = "", actor: str = "hub") -> MemorySpace:
    """A new native space holding the pack's memory, every id remapped; all or nothing."""
    manifest, files = read(data)
    meta = manifest["space"]
    with transaction.atomic():
        try:
            space = create_space(
                slug=free_slug(slug or meta["slug"]), name=name or meta.get("name") or meta["slug"],
                description=meta.get("description", ""), access=meta.get("access", "open"),
                settings=meta.get("settings", {}), actor=actor,
            )
        except ApiError as exc:
            raise PackError(exc.message) from exc
        topics = {}
        for row in files["topics.json"]:
            old = row.pop("id")
            topics[old] = Topic.objects.create(space=space, **_values(row)).pk
        entries = gateway.restore(space, [{**_values(row), "topic_id": topics.get(row["topic_id"])}
                                          for row in files["entries.json"]])
        facts: dict[int, Fact] = {}
        replaced_by = [(r["id"], r["invalidated_by_id"]) for r in files["facts.json"] if r.get("invalidated_by_id")]
        for row in files["facts.json"]:
            old = row.pop("id")
            row.pop("invalidated_by_id")
            row["source_entry_id"] = entries.get(row.pop("source_entry_id"))
            facts[old] = Fact.objects.create(space=space, **_values(row))
        for old, by in replaced_by:
            Fact.objects.filter(pk=facts[old].pk).update(invalidated_by=facts.get(by))
        Edge.objects.bulk_create([
            Edge(source_id=entries[r["source_id"]], target_id=entries[r["target_id"]], edge_type=r["edge_type"],
                 weight=r["weight"], metadata=r["metadata"], created_at=parse_datetime(r["created_at"]))
            for r in files["edges.json"] if r["source_id"] in entries and r["target_id"] in entries
        ], ignore_conflicts=True)
        OpLog.objects.bulk_create([OpLog(space=space, seq=n, **_values(r))
                                   for n, r in enumerate(files["oplog.json"], 1)])
        if files["persona.json"]:
            Persona.objects.create(space=space, **_values(files["persona.json"]))
    return space

