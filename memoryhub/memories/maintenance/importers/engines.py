"""Other memory engines' exports, as notes that keep their original dates and metadata (in `provenance`).

- Mem0: what `get_all` answers and what people save of it, Platform or self-hosted (docs.mem0.ai,
  api-reference/memory/get-memory and cookbooks/essentials/exporting-memories): a list of memories, or an object
  with `results` (and, on the Platform, `count`/`next`), or JSON lines of either; a memory is `{id, memory, hash,
  metadata, categories, user_id, agent_id, app_id, run_id, created_at, updated_at}`. Memories this hub wrote carry
  its title, category, tags and date in `metadata`, and get them back.
- OpenMemory: its backup export (mem0ai/mem0, openmemory/api/app/routers/backup.py), a zip of `memories.json`
  (`user`, `apps`, `categories`, `memories` with `content`, `state`, `category_ids`, `app_id`, `export_meta.version`)
  and `memories.jsonl.gz` (one `{id, content, metadata, created_at, updated_at, state, app, categories}` a line);
  either file alone too. Deleted memories stay out, archived ones come in archived.
- Letta: an agent's archival memory as the export script of docs.letta.com/guides/agents/archival-export writes it,
  a JSON list of passages `{id, text, created_at, updated_at, tags, metadata, agent_id, archive_id}` (or JSON lines,
  or `{"passages": [...]}`). An agent file (.af) holds the agent, not its archival memory, and is refused with the
  way to export it.
"""

from __future__ import annotations

from django.utils.translation import gettext_noop

from memoryhub.memories.maintenance.importers import reading
from memoryhub.memories.maintenance.importers.base import Batch, category_of, note, source_key
from memoryhub.memories.models import CATEGORIES

DELETED = gettext_noop("memories deleted in the source")
MEM0_KEPT = ("user_id", "agent_id", "app_id", "run_id", "hash", "metadata", "categories", "created_at", "updated_at",
             "expiration_date", "immutable")


def _records(source: reading.Source, batch: Batch, list_keys: tuple[str, ...]) -> list[tuple[str, dict]]:
    """(where, record) of a JSON document (a list, or an object holding one under `list_keys`) or of JSON lines (a
    record, or such an object, a line)."""
    found: list[tuple[str, dict]] = []

    def take(value, where: str) -> None:
        if isinstance(value, dict) and any(isinstance(value.get(k), list) for k in list_keys):
            value = next(value[k] for k in list_keys if isinstance(value.get(k), list))
        if isinstance(value, list):
            for i, item in enumerate(value):
                if isinstance(item, dict):
                    found.append((f"{where}[{i}]", item))
                else:
                    batch.errors.append(f"{where}[{i}]: not an object")
        elif isinstance(value, dict):
            found.append((where, value))

    if source.suffix == ".jsonl":
        for n, record in reading.lines(source, batch.errors):
            take(record, f"{source.name}:{n}")
    else:
        take(source.document(), source.name)
    return found


def _sample(source: reading.Source, list_keys: tuple[str, ...]) -> list[dict]:
    try:
        found = _records(source, Batch(), list_keys)
    except reading.Unreadable:
        return []
    return [r for _w, r in found[:5]]


def _tags(*values) -> list[str]:
    tags: list[str] = []
    for value in values:
        if isinstance(value, list):
            tags += [str(v).strip() for v in value if isinstance(v, (str, int, float)) and str(v).strip()]
        elif isinstance(value, str) and value.strip():
            tags += [t.strip() for t in value.split(",") if t.strip()]
    return list(dict.fromkeys(tags))[:20]


# --- Mem0 ----------------------------------------------------------------------------------------------------

def looks_like_mem0(source: reading.Source) -> bool:
    if source.suffix not in (".json", ".jsonl"):
        return False
    return reading.mostly(_sample(source, ("results", "memories")),
                          lambda r: isinstance(r.get("memory"), str) and "id" in r)


def load_mem0(sources: list[reading.Source], batch: Batch, origin: str) -> None:
    for source in sources:
        for where, item in _records(source, batch, ("results", "memories")):
            text = item.get("memory")
            if not isinstance(text, str) or not text.strip() or not item.get("id"):
                batch.errors.append(f"{where}: a Mem0 memory needs an id and its memory text")
                continue
            if not reading.clean(item, where, batch.errors):
                continue
            metadata = item.get("metadata") if isinstance(item.get("metadata"), dict) else {}
            batch.add(note(source_key("mem0", item["id"]), text, title=str(metadata.get("title") or "")[:300],
                           category=category_of(metadata.get("category"), text),
                           tags=_tags(metadata.get("tags"), item.get("categories")),
                           at=reading.when(metadata.get("at")) or reading.when(item.get("created_at")),
                           origin=origin, provenance={"source": "mem0", "id": str(item["id"]),
                                                      **{k: item[k] for k in MEM0_KEPT if item.get(k) is not None}}),
                      where=where)


# --- OpenMemory ----------------------------------------------------------------------------------------------

def looks_like_openmemory(source: reading.Source) -> bool:
    if source.suffix == ".json":
        data = source.document()
        return isinstance(data, dict) and isinstance(data.get("memories"), list) and (
            "export_meta" in data or "apps" in data)
    if source.suffix == ".jsonl":
        return reading.mostly(source.head(5), lambda r: "content" in r and "state" in r and "id" in r)
    return False


def load_openmemory(sources: list[reading.Source], batch: Batch, origin: str) -> None:
    """memories.json when the export has it (it names apps and categories); else its JSON lines."""
    relational = [s for s in sources if s.suffix == ".json"]
    for source in relational or sources:
        if source.suffix == ".json":
            _openmemory_json(source, batch, origin)
        else:
            for n, row in reading.lines(source, batch.errors):
                _openmemory_memory(row, f"{source.name}:{n}", batch, origin, row.get("app"),
                                   _tags(row.get("categories")))


def _openmemory_json(source: reading.Source, batch: Batch, origin: str) -> None:
    data = source.document()
    if not isinstance(data, dict) or not isinstance(data.get("memories"), list):
        raise reading.Unreadable(f"{source.name} is not an OpenMemory export (no memories list)")
    version = (data.get("export_meta") or {}).get("version") if isinstance(data.get("export_meta"), dict) else None
    if version not in (None, "1", 1):
        batch.errors.append(f"{source.name}: export version {version!r} is newer than this reader (version 1); "
                            "read as version 1")
    names = {str(c.get("id")): str(c.get("name")) for c in data.get("categories") or []
             if isinstance(c, dict) and c.get("name")}
    apps = {str(a.get("id")): str(a.get("name")) for a in data.get("apps") or [] if isinstance(a, dict)}
    for i, row in enumerate(data["memories"]):
        where = f"{source.name}: memories[{i}]"
        if not isinstance(row, dict):
            batch.errors.append(f"{where}: not an object")
            continue
        categories = [names[str(c)] for c in row.get("category_ids") or [] if str(c) in names]
        _openmemory_memory(row, where, batch, origin, apps.get(str(row.get("app_id"))), categories)


def _openmemory_memory(row: dict, where: str, batch: Batch, origin: str, app, categories: list[str]) -> None:
    text = row.get("content")
    if not isinstance(text, str) or not text.strip() or not row.get("id"):
        batch.errors.append(f"{where}: an OpenMemory memory needs an id and its content")
        return
    if not reading.clean(row, where, batch.errors):
        return
    state = str(row.get("state") or "active")
    if state == "deleted" or row.get("deleted_at"):
        batch.skip(DELETED)
        return
    metadata = row.get("metadata") if isinstance(row.get("metadata"), dict) else {}
    key = source_key("openmemory", row["id"])
    kept = {k: row[k] for k in ("metadata", "updated_at", "archived_at") if row.get(k)}
    batch.add(note(key, text, category=category_of(metadata.get("category"), text), tags=categories,
                   at=reading.when(row.get("created_at")), origin=origin,
                   provenance={"source": "openmemory", "id": str(row["id"]), "state": state,
                               **({"app": str(app)} if app else {}), **kept}), where=where)
    if state == "archived":
        batch.archived.add(key)


# --- Letta ---------------------------------------------------------------------------------------------------

def _is_passage(record: dict) -> bool:
    return isinstance(record.get("text"), str) and (str(record.get("id", "")).startswith("passage-") or any(
        k in record for k in ("archive_id", "embedding_config", "file_id", "source_id")))


def looks_like_letta(source: reading.Source) -> bool:
    if source.suffix not in (".json", ".jsonl", ".af"):
        return False
    if source.suffix in (".json", ".af"):
        data = source.document()
        if isinstance(data, dict) and isinstance(data.get("agents"), list):
            return True  # an agent file: refused by the reader with a sentence
    return reading.mostly(_sample(source, ("passages",)), _is_passage)


def load_letta(sources: list[reading.Source], batch: Batch, origin: str) -> None:
    for source in sources:
        if source.suffix in (".json", ".af"):
            data = source.document()
            if isinstance(data, dict) and isinstance(data.get("agents"), list):
                raise reading.Unreadable(
                    f"{source.name} is a Letta agent file: it holds the agent, not its archival memory. Export the "
                    "archival memory as docs.letta.com/guides/agents/archival-export shows and import that file")
        for where, item in _records(source, batch, ("passages",)):
            text = item.get("text")
            if not isinstance(text, str) or not text.strip():
                batch.errors.append(f"{where}: a Letta passage needs its text")
                continue
            if not reading.clean(item, where, batch.errors):
                continue
            if item.get("is_deleted"):
                batch.skip(DELETED)
                continue
            metadata = item.get("metadata") if isinstance(item.get("metadata"), dict) else {}
            passage_id = str(item.get("id") or "")
            key = source_key("letta", passage_id) if passage_id else source_key("letta", item.get("created_at"), text)
            kept = {k: item[k] for k in ("agent_id", "archive_id", "metadata", "updated_at") if item.get(k)}
            batch.add(note(key, text, category=metadata.get("category") if metadata.get("category") in CATEGORIES
                           else "", tags=_tags(item.get("tags")), at=reading.when(item.get("created_at")),
                           origin=origin, provenance={"source": "letta", "id": passage_id, **kept}), where=where)
