"""Packs: one native space as a .tar.gz of JSON files plus a manifest (schema version, sha256 per file).

A pack carries the space's own memory: entries, facts, topics, persona, edges, op log, and the
notebooks (MEMORY.md, USER.md) of its workspace (the hub's own pair with the `default` space).
Provider config, selection, secrets and anything held by a third-party provider never go in.
Importing always makes a new space; every id is remapped. A pack is input from outside: its JSON
is read by the hub's one parser (core/jsonin), its rows must have the fields this version writes,
its text is redacted like any write, and anything malformed is a PackError (a 400), never a crash.
Schema 2 keeps a persona per origin (persona.json is a list); schema 3 adds notebooks.json and the
entries' bridged chat; schema 4 the entries' provenance (where an imported or copied memory came from). Packs
of every older schema still import, their rows read by the fields that schema wrote (FIELDS_SINCE).

A workspace this hub does not have (by its slug, which follows from its path) is made from the pack,
and a workspace's own space comes back as its own; where the hub has the workspace already, it keeps
its spaces and the import stands apart. Notebooks are restored under the notebook rules into those
of their workspace (or the hub's pair) that are empty here; a notebook this hub already has is kept
(the audit log says which). A workspace made from a pack, like any, writes no MEMORY.md until a
person switches its export on.
"""

from __future__ import annotations

import hashlib
import io
import json
import tarfile
from datetime import datetime

from django.conf import settings
from django.core.exceptions import FieldDoesNotExist, ValidationError
from django.db import DatabaseError, models, transaction
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from memoryhub.audit.models import record
from memoryhub.core import jsonin
from memoryhub.core.errors import ApiError
from memoryhub.core.redaction import redact
from memoryhub.memories.models import Edge, Entry, Fact, Notebook, OpLog, Persona, Topic
from memoryhub.memories.notebooks import hot
from memoryhub.memories.write import gateway
from memoryhub.spaces.models import MemorySpace, Workspace
from memoryhub.spaces.workspaces import DEFAULT_SPACE_SLUG
from memoryhub.spaces.space_service import create_space

SCHEMA = "memoryhub.pack"
SCHEMA_VERSION = 4
READABLE_VERSIONS = (1, 2, 3, 4)
SPACE_SETTINGS_KEEP = ("autoConsolidate", "consolidateMinAgeDays", "consolidateDigestAgeDays", "mergeSimilarity")
ENTRY_FIELDS = ["id", "kind", "at", "category", "title", "body", "summary", "tags", "entities", "related",
                "session_id", "source", "origin", "channel", "chat", "provenance", "importance", "hits", "last_accessed_at", "archived",
                "is_test", "digest_id", "merged_into_id", "topic_id", "content_hash", "idempotency_key",
                "redactions", "created_at", "deleted_at"]
TOPIC_FIELDS = ["id", "origin", "session_id", "title", "kind", "started_at", "ended_at", "turn_count", "entities", "keywords"]
FACT_FIELDS = ["id", "subject", "predicate", "value", "negative", "status", "origin", "source_entry_id", "method",
               "confidence", "created_at", "refreshed_at", "invalidated_at", "invalidated_by_id"]
EDGE_FIELDS = ["source_id", "target_id", "edge_type", "weight", "metadata", "created_at"]
OPLOG_FIELDS = ["operation", "entry_id", "detail", "actor", "created_at"]
PERSONA_FIELDS = ["origin", "profile", "frame", "events", "rebuilt_at", "entries_since_rebuild"]
NOTEBOOK_FIELDS = ["target", "entries", "updated_at", "updated_by"]
LISTS = {"entries.json": ENTRY_FIELDS, "topics.json": TOPIC_FIELDS, "facts.json": FACT_FIELDS,
         "edges.json": EDGE_FIELDS, "oplog.json": OPLOG_FIELDS, "persona.json": PERSONA_FIELDS}
OPTIONAL = {"notebooks.json": NOTEBOOK_FIELDS}  # only in packs of a space that has notebooks (schema 3)
KEYED = ("entries.json", "topics.json", "facts.json")  # rows other rows point at by "id"
MODELS = {"entries.json": Entry, "topics.json": Topic, "facts.json": Fact, "edges.json": Edge, "oplog.json": OpLog,
          "persona.json": Persona}
# Fields the import remaps (pack ids to this hub's): each an integer or null, checked as such, not as a value.
POINTERS = ("id", "digest_id", "merged_into_id", "topic_id", "source_entry_id", "invalidated_by_id", "source_id",
            "target_id")
STRING_LISTS = {"entries.json": ("tags", "entities", "related"), "topics.json": ("entities", "keywords"),
                "persona.json": ("events",)}
OBJECTS = {"entries.json": ("chat", "provenance"), "edges.json": ("metadata",)}
# Fields a schema added after the first, by the version that added them: a pack of an older schema has none of
# them (its rows take the model's defaults), and one that claims an older schema while it has them is refused.
FIELDS_SINCE = {"entries.json": {"provenance": 4}}


def max_bytes() -> int:
    """The most a pack may hold, unpacked (MEMORYHUB_PACK_MAX_BYTES): a pack is read in the web process."""
    return int(settings.MEMORYHUB["PACK_MAX_BYTES"])


class PackError(ApiError):
    """The archive is not a pack this hub can read (bad_request, in the API's error shape)."""

    def __init__(self, message: str):
        super().__init__("bad_request", message, "pack")


def _rows(queryset, fields: list[str]) -> list[dict]:
    return [{k: (v.isoformat() if isinstance(v, datetime) else v) for k, v in row.items()}
            for row in queryset.values(*fields)]


def export(space: MemorySpace) -> bytes:
    """The space as pack bytes (deterministic file order; only native spaces have data of their own)."""
    if not space.is_native:
        raise PackError("only native spaces can be packed: a third-party provider's data stays with it")
    carries, workspace = notebook_scope(space)
    files = {
        "entries.json": _rows(Entry.objects.filter(space=space).order_by("id"), ENTRY_FIELDS),
        "topics.json": _rows(Topic.objects.filter(space=space).order_by("id"), TOPIC_FIELDS),
        "facts.json": _rows(Fact.objects.filter(space=space).order_by("id"), FACT_FIELDS),
        "edges.json": _rows(Edge.objects.filter(source__space=space).order_by("id"), EDGE_FIELDS),
        "oplog.json": _rows(OpLog.objects.filter(space=space).order_by("id"), OPLOG_FIELDS),
        "persona.json": _rows(Persona.objects.filter(space=space).order_by("origin"), PERSONA_FIELDS),
    }
    if carries:
        files["notebooks.json"] = _rows(Notebook.objects.filter(workspace=workspace).exclude(entries=[])
                                        .order_by("target"), NOTEBOOK_FIELDS)
    blobs = {name: json.dumps(data, ensure_ascii=False, sort_keys=True, indent=1).encode() for name, data in files.items()}
    manifest = {
        "schema": SCHEMA, "schema_version": SCHEMA_VERSION, "created_at": timezone.now().isoformat(),
        "space": {"slug": space.slug, "name": space.name, "description": space.description, "access": space.access,
                  "settings": {k: v for k, v in (space.settings or {}).items() if k in SPACE_SETTINGS_KEEP},
                  "is_default": space.is_default,
                  **({"workspace": {"slug": workspace.slug, "name": workspace.name, "path": workspace.path}}
                     if workspace is not None else {})},
        "counts": {name.removesuffix(".json"): len(data) for name, data in files.items()},
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


def notebook_scope(space: MemorySpace) -> tuple[bool, Workspace | None]:
    """(whether notebooks travel with the space, whose): its workspace's, or the hub's own pair with `default`."""
    if space.workspace_id:
        return True, space.workspace
    return space.slug == DEFAULT_SPACE_SLUG and space.is_default, None


def read(data: bytes) -> tuple[dict, dict[str, object]]:
    """(manifest, files) after checking the size, the schema, every checksum and every row."""
    blobs = _members(data)
    if "manifest.json" not in blobs:
        raise PackError("the pack has no manifest.json")
    manifest = _json(blobs.pop("manifest.json"), "manifest.json")
    if not isinstance(manifest, dict) or manifest.get("schema") != SCHEMA \
            or manifest.get("schema_version") not in READABLE_VERSIONS:
        found = manifest if isinstance(manifest, dict) else {}
        raise PackError(f"unsupported pack schema {found.get('schema')!r} v{found.get('schema_version')!r}")
    listed = manifest.get("files")
    if (not isinstance(listed, dict) or not set(LISTS) <= set(listed) <= set(LISTS) | set(OPTIONAL)
            or not isinstance(manifest.get("space"), dict)):
        raise PackError(f"the manifest must list these files: {', '.join(LISTS)} (and maybe "
                        f"{', '.join(OPTIONAL)}), and describe the space")
    files = {}
    for name, digest in listed.items():
        blob = blobs.get(name)
        if blob is None or hashlib.sha256(blob).hexdigest() != digest:
            raise PackError(f"{name} is missing or does not match its checksum")
        files[name] = _checked_rows(name, _json(blob, name), manifest["schema_version"])
    return manifest, files


def check_size(size: int) -> None:
    """Refuse a pack file over max_bytes() before reading it (an upload's size is known first)."""
    if size > max_bytes():
        raise PackError(f"the pack is {size / 2**20:.0f} MiB, over this hub's {max_bytes() // 2**20} MiB limit for "
                        "packs (MEMORYHUB_PACK_MAX_BYTES)")


def _members(data: bytes) -> dict[str, bytes]:
    """The archive's files, refused as soon as what they unpack to would pass max_bytes(): each member's size is
    checked from its header before a byte of it is inflated, and again while it is read (headers can lie)."""
    check_size(len(data))
    cap = max_bytes()
    blobs: dict[str, bytes] = {}
    total = 0
    try:
        with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
            for member in tar:
                if not member.isfile():
                    continue
                if member.name not in ("manifest.json", *LISTS, *OPTIONAL) or member.name in blobs:
                    raise PackError(f"the pack holds a file no pack has: {member.name[:100]!r}")
                total += member.size
                if total > cap:
                    raise PackError(f"the pack unpacks to more than this hub's {cap // 2**20} MiB limit for packs "
                                    f"({member.name} alone is {member.size // 2**20} MiB; MEMORYHUB_PACK_MAX_BYTES)")
                blob = tar.extractfile(member).read(member.size + 1)
                if len(blob) != member.size:
                    raise PackError(f"{member.name} is not the size its header says")
                blobs[member.name] = blob
    except (tarfile.TarError, OSError, EOFError) as exc:
        raise PackError(f"not a pack archive: {exc}") from exc
    return blobs


def _json(blob: bytes, name: str):
    try:
        return jsonin.loads(blob, what=name)
    except ApiError as exc:
        raise PackError(f"{name}: {exc.message}" + (f" (at {exc.field})" if exc.field else "")) from exc


def _fields(name: str, version: int) -> set[str]:
    """The fields a file's rows have in packs of schema `version`."""
    since = FIELDS_SINCE.get(name, {})
    return {key for key in LISTS.get(name) or OPTIONAL[name] if since.get(key, 1) <= version}


def _checked_rows(name: str, data, version: int) -> list[dict]:
    """The file's rows, each an object with only the fields its schema writes (ids where rows point at them)."""
    if name == "persona.json" and isinstance(data, dict):  # schema 1: the space's one persona, local
        data = [{**data, "origin": "local"}] if data else []
    if not isinstance(data, list) or not all(isinstance(row, dict) for row in data):
        raise PackError(f"{name} must be a list of objects")
    for i, row in enumerate(data):
        unknown = set(row) - _fields(name, version)
        if unknown:
            raise PackError(f"{name}[{i}] has fields a schema {version} pack does not have: {', '.join(sorted(unknown))}")
        if name in KEYED and not isinstance(row.get("id"), int):
            raise PackError(f"{name}[{i}] needs an integer id")
        if name in MODELS:
            _check_row(name, i, row)
    return data


def _check_row(name: str, i: int, row: dict) -> None:
    """A row's values as its model would hold them, before anything is written: the model's own field rules
    (choices, lengths, numbers, dates, positive counters) plus the shapes of its JSON fields. A pack whose rows
    imported with a kind or a chat of the wrong shape broke the pages that showed them later (a 500)."""
    where = f"{name}[{i}]"
    model = MODELS[name]
    for key in POINTERS:
        if row.get(key) is not None and (not isinstance(row[key], int) or isinstance(row[key], bool)):
            raise PackError(f"{where}.{key} must be an integer id")
    for key in STRING_LISTS.get(name, ()):
        value = row.get(key)
        if value is not None and not (isinstance(value, list) and all(isinstance(v, str) for v in value)):
            raise PackError(f"{where}.{key} must be a list of strings")
    for key in OBJECTS.get(name, ()):
        if row.get(key) is not None and not isinstance(row[key], dict):
            raise PackError(f"{where}.{key} must be an object")
    values = {k: v for k, v in _values(row).items() if k not in POINTERS}
    for key, value in values.items():
        try:
            field = model._meta.get_field(key)
        except FieldDoesNotExist:
            continue
        if isinstance(field, (models.CharField, models.TextField)) and value is not None and not isinstance(value, str):
            raise PackError(f"{where}.{key} must be a string")
    present = set(values)
    others = [f.name for f in model._meta.get_fields() if getattr(f, "concrete", False) and f.name not in present]
    try:
        model(**values).clean_fields(exclude=others)
    except (ValidationError, TypeError, ValueError) as exc:
        detail = "; ".join(f"{key}: {' '.join(str(m) for m in messages)}"
                           for key, messages in exc.message_dict.items()) if hasattr(exc, "message_dict") else str(exc)
        raise PackError(f"{where} does not fit this hub: {detail[:300]}") from exc


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
    try:
        return _import(manifest["space"], files, slug, name, actor)
    except PackError:
        raise
    except ApiError as exc:
        raise PackError(exc.message) from exc
    except (KeyError, TypeError, ValueError, AttributeError, ValidationError, DatabaseError) as exc:
        # A value of the wrong type or shape (the field names were checked); the transaction kept nothing.
        raise PackError(f"the pack's rows do not fit this hub ({type(exc).__name__}: {str(exc)[:200]})") from exc


def _import(meta: dict, files: dict[str, list[dict]], slug: str, name: str, actor: str) -> MemorySpace:
    with transaction.atomic():
        workspace, made = _workspace(meta.get("workspace"), actor)
        space = create_space(
            slug=free_slug(slug or meta["slug"]), name=name or meta.get("name") or meta["slug"],
            description=meta.get("description", ""), access=meta.get("access", "open"),
            settings=meta.get("settings", {}), actor=actor, workspace=workspace if made else None,
            is_default=made and bool(meta.get("is_default")),
        )
        topics = {}
        for row in files["topics.json"]:
            old = row.pop("id")
            row["title"] = redact(row.get("title") or "").text
            topics[old] = Topic.objects.create(space=space, **_values(row)).pk
        entries = gateway.restore(space, [{**_values(row), "topic_id": topics.get(row.get("topic_id"))}
                                          for row in files["entries.json"]])
        facts: dict[int, Fact] = {}
        replaced_by = [(r["id"], r["invalidated_by_id"]) for r in files["facts.json"] if r.get("invalidated_by_id")]
        for row in files["facts.json"]:
            old = row.pop("id")
            row.pop("invalidated_by_id", None)
            row["source_entry_id"] = entries.get(row.pop("source_entry_id", None))
            row.update({key: redact(row[key]).text for key in ("subject", "value") if isinstance(row.get(key), str)})
            facts[old] = Fact.objects.create(space=space, **_values(row))
        for old, by in replaced_by:
            Fact.objects.filter(pk=facts[old].pk).update(invalidated_by=facts.get(by))
        Edge.objects.bulk_create([
            Edge(source_id=entries[r["source_id"]], target_id=entries[r["target_id"]], edge_type=r["edge_type"],
                 weight=r["weight"], metadata=r["metadata"], created_at=parse_datetime(r["created_at"]))
            for r in files["edges.json"] if r["source_id"] in entries and r["target_id"] in entries
        ], ignore_conflicts=True)
        OpLog.objects.bulk_create([
            OpLog(space=space, seq=n, **_values({**r, "detail": redact(r.get("detail") or "").text}))
            for n, r in enumerate(files["oplog.json"], 1)])
        for row in files["persona.json"]:
            texts = {key: redact(row.get(key) or "").text for key in ("profile", "frame")}
            events = [redact(e).text for e in row.get("events") or [] if isinstance(e, str)]
            Persona.objects.create(space=space, **_values({**row, **texts, "events": events}))
        if "notebooks.json" in files:
            _restore_notebooks(workspace, files["notebooks.json"], actor, space)
    return space


def _workspace(meta: dict | None, actor: str) -> tuple[Workspace | None, bool]:
    """(the pack's workspace on this hub, whether the import made it): found by slug, else made from the pack
    (so an agent in the same directory finds it; its MEMORY.md export starts off); (None, False) without one."""
    if meta is None:
        return None, False
    if not isinstance(meta, dict) or not isinstance(meta.get("slug"), str) or not meta["slug"]:
        raise PackError("the manifest's workspace must be {slug, name, path}")
    found = Workspace.objects.filter(slug=meta["slug"]).first()
    if found is not None:
        return found, False
    path = str(meta.get("path") or "")
    if path and not path.startswith("/"):
        raise PackError("the manifest's workspace path must be absolute")
    return Workspace.objects.create(slug=redact(meta["slug"]).text[:80],
                                    name=redact(str(meta.get("name") or meta["slug"])).text[:200],
                                    path=redact(path).text[:1000], created_by=actor), True


def _restore_notebooks(workspace: Workspace | None, rows: list[dict], actor: str, space: MemorySpace) -> None:
    """The pack's notebooks into those of their scope (a workspace, or the hub's pair) that are empty here, under
    the notebook rules (redaction, the injection scan, the size limits); one this hub already has is kept."""
    current = hot.entries_of(workspace)
    restored, kept = [], []
    for row in rows:
        target, entries = row.get("target"), row.get("entries")
        if target not in hot.TARGETS or not isinstance(entries, list) or not all(isinstance(e, str) for e in entries):
            raise PackError("notebooks.json holds a notebook this hub cannot read")
        if current[target]:
            kept.append(hot.FILENAMES[target])
            continue
        try:
            hot.import_text(workspace, target, hot.joined(entries), actor=actor)
        except hot.Refused as exc:
            raise PackError(f"the pack's {hot.FILENAMES[target]}: {exc.message}") from exc
        restored.append(hot.FILENAMES[target])
    record(actor, "pack.notebooks", hot.scope_key(workspace), space=space.slug, restored=restored, kept=kept)

