"""The native store's write side: one transaction per write, edges, op log, soft delete.

Everything that changes native entries goes through here, so the full-text index, the
graph and the op log never drift from the entries themselves.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import Case, F, Q, Value, When
from django.utils import timezone

from memoryhub.memories import search, topics
from memoryhub.memories.models import Edge, EntityRef, Entry, OpLog
from memoryhub.memories.text import capitalised_words, clip, extract_entities, first_sentence
from memoryhub.spaces.models import MemorySpace

PROXIMITY_HOURS = 24
PROXIMITY_MAX = 10
ENTITY_NEIGHBOURS = 5
ENTITY_EDGE_CAP = 50
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
    op = OpLog.objects.create(space=space, operation=operation, entry_id=entry_id, detail=clip(detail, 2000), actor=actor)
    if op.pk % 50 == 0:
        keep = settings.MEMORYHUB["OPLOG_KEEP"]
        cutoff = OpLog.objects.filter(space=space).order_by("-id").values_list("id", flat=True)[keep : keep + 1]
        if cutoff:
            OpLog.objects.filter(space=space, id__lte=cutoff[0]).delete()


def write(space: MemorySpace, draft: Draft, actor: str = "") -> tuple[Entry, bool]:
    """Write one entry exactly; returns (entry, created).

    A byte-identical live entry (same title and body) is not written twice, and a repeated
    idempotency key returns the entry it first created.
    """
    digest = content_hash(draft)
    with transaction.atomic(savepoint=False):
        # One query for both checks; an entry holding the key comes first.
        key = draft.idempotency_key
        same = Q(content_hash=digest, deleted_at__isnull=True) | (Q(idempotency_key=key) if key else Q(pk__in=[]))
        earlier = (Entry.objects.filter(same, space=space)
                   .order_by(Case(When(idempotency_key=key, then=Value(0)), default=Value(1)) if key else "pk").first())
        if earlier and key and earlier.idempotency_key == key:
            return earlier, False
        duplicate = earlier
        if duplicate:
            log_op(space, "diff-skip", str(duplicate.pk), clip(draft.body, 200), actor)
            return duplicate, False
        text = f"{draft.title}\n{draft.body}"
        candidates = list(capitalised_words(text))[:200]
        known = set(EntityRef.objects.filter(space=space, name__in=candidates).values_list("name", flat=True))
        entities = list(dict.fromkeys(draft.entities + extract_entities(text, known)))[:50]
        entry = Entry(
            space=space, kind=draft.kind, at=draft.at or timezone.now(), category=draft.category,
            title=clip(draft.title, 300), body=draft.body,
            summary=clip(draft.summary or draft.title or first_sentence(draft.body), 500),
            tags=draft.tags, related=draft.related, entities=entities, session_id=draft.session_id,
            source=draft.source, origin=draft.origin or "local", channel=draft.channel,
            importance=draft.importance, content_hash=digest, idempotency_key=draft.idempotency_key,
            redactions=draft.redactions,
        )
        if draft.idempotency_key:
            try:
                with transaction.atomic():
                    entry.save()
            except IntegrityError:
                # Two writers raced on one idempotency key: the first one won.
                return Entry.objects.get(space=space, idempotency_key=draft.idempotency_key), False
        else:
            entry.save()
        EntityRef.objects.bulk_create([EntityRef(space=space, entry=entry, name=n) for n in entities])
        search.index(entry, new=True)
        link_automatically(entry)
        log_op(space, "remember", str(entry.pk), clip(draft.body, 500), actor)
        touch_space(space)
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


def _pair(a: int, b: int, edge_type: str, weight: float, forward: dict, backward: dict) -> list[Edge]:
    return [
        Edge(source_id=a, target_id=b, edge_type=edge_type, weight=weight, metadata=forward),
        Edge(source_id=b, target_id=a, edge_type=edge_type, weight=weight, metadata=backward),
    ]


def link_automatically(entry: Entry) -> int:
    """Temporal (same-session backbone, 24 h proximity) and entity edges, as Mnemon makes them.

    Reads ids and times only: the neighbours' texts are never needed to link them.
    """
    edges: list[Edge] = []
    live = Entry.objects.live().filter(space_id=entry.space_id).exclude(pk=entry.pk)
    backbone = None
    if entry.session_id:
        backbone = (live.filter(session_id=entry.session_id, at__lte=entry.at).order_by("-at", "-id")
                    .values_list("pk", flat=True).first())
        if backbone:
            edges += _pair(backbone, entry.pk, "temporal", 1.0,
                           {"sub_type": "backbone", "direction": "precedes"},
                           {"sub_type": "backbone", "direction": "succeeds"})
    window = live.filter(at__gte=entry.at - timedelta(hours=PROXIMITY_HOURS), at__lte=entry.at)
    if backbone:
        window = window.exclude(pk=backbone)
    for other, at in window.order_by("-at").values_list("pk", "at")[:PROXIMITY_MAX]:
        hours = abs((entry.at - at).total_seconds()) / 3600
        meta = {"sub_type": "proximity", "hours_diff": round(hours, 2)}
        edges += _pair(other, entry.pk, "temporal", round(1 / (1 + hours), 4), meta, meta)
    per_name: dict[str, int] = {}
    refs = (EntityRef.objects.filter(space_id=entry.space_id, name__in=entry.entities, entry__deleted_at__isnull=True)
            .exclude(entry_id=entry.pk).order_by("-entry__at").values_list("name", "entry_id")[:ENTITY_EDGE_CAP * 4])
    entity_edges = 0
    for name, other in refs:
        if entity_edges >= ENTITY_EDGE_CAP or per_name.get(name, 0) >= ENTITY_NEIGHBOURS:
            continue
        per_name[name] = per_name.get(name, 0) + 1
        edges += _pair(other, entry.pk, "entity", 1.0, {"entity": name}, {"entity": name})
        entity_edges += 1
    Edge.objects.bulk_create(edges, ignore_conflicts=True)
    return len(edges)


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
