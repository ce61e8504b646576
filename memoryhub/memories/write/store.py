"""The native store's write side: one transaction per write, op log, soft delete (edges: enrich.py).

Everything that changes native entries goes through here, so the full-text index, the
graph and the op log never drift from the entries themselves.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import NamedTuple

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import F
from django.utils import timezone

from memoryhub.core import sql
from memoryhub.memories.growth import enrich, topics
from memoryhub.memories.search import fulltext as search, vectors
from memoryhub.memories.models import Edge, EntityRef, Entry, OpLog
from memoryhub.memories.text import capitalised_words, clip, extract_entities, first_sentence
from memoryhub.spaces.models import MemorySpace

LAST_WRITE_PRECISION = 5  # seconds


@dataclass
class Draft:
    """A validated, redacted entry waiting to be written."""

    body: str
    kind: str = "note"
    title: str = ""
    summary: str = ""
    category: str = "general"
    tags: list[str] = field(default_factory=list)
    related: list[str] = field(default_factory=list)
    at: datetime | None = None
    session_id: str = ""
    source: str = "agent"
    origin: str = "local"
    channel: str = ""
    importance: int = 3
    idempotency_key: str = ""
    redactions: int = 0
    entities: list[str] = field(default_factory=list)


def content_hash(draft: Draft) -> str:
    return hashlib.sha256(f"{draft.title}\x00{draft.body}".encode()).hexdigest()


def log_op(space: MemorySpace, operation: str, entry_id: str = "", detail: str = "", actor: str = "") -> None:
    """Append to the space's op log and keep only its last OPLOG_KEEP rows."""
    (op_id,) = sql.one("INSERT INTO memories_oplog (space_id, operation, entry_id, detail, actor, created_at) "
                       "VALUES (%s, %s, %s, %s, %s, %s) RETURNING id",
                       [space.pk, operation, entry_id, clip(detail, 2000), actor, sql.moment(timezone.now())])
    if op_id % 50 == 0:
        keep = settings.MEMORYHUB["OPLOG_KEEP"]
        cutoff = OpLog.objects.filter(space=space).order_by("-id").values_list("id", flat=True)[keep : keep + 1]
        if cutoff:
            OpLog.objects.filter(space=space, id__lte=cutoff[0]).delete()


def _earlier(space: MemorySpace, digest: str, key: str) -> tuple[int, bool] | None:
    """(id, holds the key) of the entry a write repeats: the one holding its key, else a live byte-identical one."""
    same_text = ("SELECT id, 1 AS rank FROM memories_entry "
                 "WHERE space_id = %s AND content_hash = %s AND deleted_at IS NULL")
    params: list = [space.pk, digest]
    if key:
        same_text = f"SELECT id, 0 AS rank FROM memories_entry WHERE space_id = %s AND idempotency_key = %s UNION ALL {same_text}"
        params = [space.pk, key, *params]
    row = sql.one(f"SELECT id, rank FROM ({same_text}) found ORDER BY rank, id LIMIT 1", params)
    return (row[0], row[1] == 0) if row else None


def known_entities(space: MemorySpace, text: str) -> set[str]:
    """Capitalised words of the text that are already entities in the space (so they count even mid-sentence)."""
    candidates = list(capitalised_words(text))[:200]
    if not candidates:
        return set()
    found = sql.rows(f"SELECT DISTINCT name FROM memories_entityref WHERE space_id = %s "
                     f"AND name IN ({sql.placeholders(candidates)})", [space.pk, *candidates])
    return {name for (name,) in found}


class Prepared(NamedTuple):
    """A draft worked out before its transaction: the unsaved entry and its index tokens."""

    entry: Entry
    tokens: list[str]


def prepare(space: MemorySpace, draft: Draft) -> Prepared:
    """Everything a write needs that takes no lock: hash, entities, summary, index tokens."""
    text = f"{draft.title}\n{draft.body}"
    entities = list(dict.fromkeys(draft.entities + extract_entities(text, known_entities(space, text))))[:50]
    entry = Entry(
        space=space, kind=draft.kind, at=draft.at or timezone.now(), category=draft.category,
        title=clip(draft.title, 300), body=draft.body,
        summary=clip(draft.summary or draft.title or first_sentence(draft.body), 500),
        tags=draft.tags, related=draft.related, entities=entities, session_id=draft.session_id,
        source=draft.source, origin=draft.origin or "local", channel=draft.channel,
        importance=draft.importance, content_hash=content_hash(draft), idempotency_key=draft.idempotency_key,
        redactions=draft.redactions, enrich_pending=True,
    )
    return Prepared(entry, search.document_tokens(entry))


def write(space: MemorySpace, draft: Draft, actor: str = "", prepared: Prepared | None = None) -> tuple[Entry, bool]:
    """Write one entry exactly; returns (entry, created).

    A byte-identical live entry (same title and body) is not written twice, and a repeated
    idempotency key returns the entry it first created.
    """
    entry, tokens = prepared or prepare(space, draft)
    key = draft.idempotency_key
    with transaction.atomic(savepoint=False):
        earlier = _earlier(space, entry.content_hash, key)
        if earlier is not None:
            entry = Entry.objects.select_related("space").get(pk=earlier[0])
            if not earlier[1]:  # the same text again, not the same key: a visible no-op
                log_op(space, "diff-skip", str(entry.pk), clip(draft.body, 200), actor)
            return entry, False
        if key:
            try:
                with transaction.atomic():
                    sql.insert(entry)
            except IntegrityError:
                # Two writers raced on one idempotency key: the first one won.
                return Entry.objects.get(space=space, idempotency_key=key), False
        else:
            sql.insert(entry)
        sql.run_many("INSERT INTO memories_entityref (space_id, entry_id, name) VALUES (%s, %s, %s)",
                     [(space.pk, entry.pk, name) for name in entry.entities])
        search.index(entry, new=True, tokens=tokens)
        log_op(space, "remember", str(entry.pk), clip(draft.body, 500), actor)
        touch_space(space)
        enrich.schedule(space)
    return entry, True


def touch_space(space: MemorySpace) -> None:
    """Record the last write time; a burst of writes updates it once every few seconds, not per write.

    A vault's time is exact: it lights the "new since you looked" dot.
    """
    now = timezone.now()
    stale = space.last_write_at is None or now - space.last_write_at > timedelta(seconds=LAST_WRITE_PRECISION)
    if stale or space.is_vault:
        MemorySpace.objects.filter(pk=space.pk).update(last_write_at=now)
        space.last_write_at = now


def link(source: Entry, target: Entry, edge_type: str, weight: float, actor: str = "", reason: str = "") -> None:
    """A link someone asked for: both directions, re-linking overwrites weight and metadata."""
    meta = {"created_by": actor or "hub", **({"reason": reason} if reason else {})}
    with transaction.atomic():
        for a, b in ((source, target), (target, source)):
            Edge.objects.update_or_create(source=a, target=b, edge_type=edge_type,
                                          defaults={"weight": weight, "metadata": meta})
        log_op(source.space, "link", str(source.pk), f"{source.pk}→{target.pk} type={edge_type} weight={weight}", actor)


def forget(entry: Entry, actor: str = "") -> None:
    """Soft delete: the row stays for history, its edges and index rows go."""
    with transaction.atomic():
        Entry.objects.filter(pk=entry.pk).update(deleted_at=timezone.now())
        Edge.objects.filter(source=entry).delete()
        Edge.objects.filter(target=entry).delete()
        EntityRef.objects.filter(entry=entry).delete()
        search.unindex([entry.pk])
        log_op(entry.space, "forget", str(entry.pk), clip(entry.summary, 200), actor)
        if entry.topic_id:
            topics.refresh(entry.topic)
    entry.deleted_at = timezone.now()


def update(entry: Entry, *, title: str | None = None, body: str | None = None, category: str | None = None,
           tags: list[str] | None = None, actor: str = "") -> Entry:
    """Edit an entry in place (dashboard), keeping index and hash in step."""
    with transaction.atomic():
        if title is not None:
            entry.title = clip(title, 300)
        if body is not None:
            entry.body = body
        if category is not None:
            entry.category = category
        if tags is not None:
            entry.tags = tags
        entry.summary = clip(entry.title or first_sentence(entry.body), 500)
        entry.content_hash = hashlib.sha256(f"{entry.title}\x00{entry.body}".encode()).hexdigest()
        entry.save()
        search.index(entry)
        vectors.drop([entry.pk])
        if vectors.enabled():
            enrich.schedule(entry.space)  # its run embeds the new text; the five-minute sweep if the service fails
        log_op(entry.space, "update", str(entry.pk), clip(entry.summary, 200), actor)
    return entry


def record_recall(space_entries: dict[MemorySpace, list[Entry]], query: str, actor: str) -> None:
    """An agent's recall counts as access and is logged; the hub's own browsing never calls this."""
    now = timezone.now()
    for space, entries in space_entries.items():
        ids = [e.pk for e in entries]
        if ids:
            Entry.objects.filter(pk__in=ids).update(hits=F("hits") + 1, last_accessed_at=now)
        log_op(space, "recall", "", f"q={clip(query, 300)} hits={len(ids)}", actor)


def archive(entries: list[Entry], archived: bool = True, actor: str = "") -> int:
    """Archive or unarchive entries: they stay searchable by hand but leave automatic recall."""
    if not entries:
        return 0
    space = entries[0].space
    with transaction.atomic():
        count = Entry.objects.filter(pk__in=[e.pk for e in entries]).update(archived=archived)
        if not archived:
            space.recount_cap()
        log_op(space, "archive" if archived else "unarchive", "", f"ids={','.join(str(e.pk) for e in entries)}"[:2000], actor)
    return count
