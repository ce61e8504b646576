"""Garbage-collection suggestions with Mnemon's effective importance; it suggests, people decide.

EI = base(importance) × access × decay × edges (mnemon.md A11). Memories with importance ≥ 4
or accessed three times or more are immune and never suggested. The one thing done without
asking is the space's maxEntries cap: after each new entry the weakest are archived (never deleted).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime

from django.db.models import Count
from django.db.models.functions import Coalesce
from django.utils import timezone

from memoryhub.memories.models import Entry
from memoryhub.memories.write import access_counts, marks, oplog
from memoryhub.spaces import space_settings
from memoryhub.spaces.models import MemorySpace

BASE = {5: 1.0, 4: 0.8, 3: 0.5, 2: 0.3, 1: 0.15}
HALF_LIFE_DAYS = 30
KEEP_BUMP = 3
DEFAULT_THRESHOLD = 0.5
DEFAULT_LIMIT = 20


@dataclass
class Candidate:
    entry: Entry
    effective_importance: float
    days_since_access: float
    edge_count: int
    immune: bool


def immune(entry: Entry) -> bool:
    return entry.importance >= 4 or entry.hits >= 3


def effective_importance(entry: Entry, edge_count: int, now: datetime) -> tuple[float, float]:
    """(EI, days since last access or creation)."""
    return _rating(entry.importance, entry.hits, entry.last_accessed_at or entry.at, edge_count, now)


def _rating(importance: int, hits: int, last: datetime, edge_count: int, now: datetime) -> tuple[float, float]:
    days = max(0.0, (now - last).total_seconds() / 86400)
    access = max(1.0, math.log1p(hits))
    decay = 0.5 ** (days / HALF_LIFE_DAYS)
    edges = 1 + 0.1 * min(edge_count, 5)
    return round(BASE.get(importance, 0.5) * access * decay * edges, 4), round(days, 1)


def suggest(space: MemorySpace, *, threshold: float = DEFAULT_THRESHOLD, limit: int = DEFAULT_LIMIT,
            now: datetime | None = None) -> list[Candidate]:
    """Non-immune entries under the threshold, weakest first. Never deletes anything.

    Every live entry that is not immune is rated from a few of its columns (no model instances: the
    Maintenance tab's preview rates a whole space of 100,000); only the weakest are read in full."""
    now = now or timezone.now()
    rows = (Entry.objects.live().filter(space=space, importance__lt=4, hits__lt=3)  # the immune never qualify
            .annotate(edge_count=Count("edges_out"))
            .values_list("pk", "importance", "hits", "last_accessed_at", "at", "edge_count"))
    weak = []
    for pk, importance, hits, last, at, edges in rows:
        ei, days = _rating(importance, hits, last or at, edges, now)
        if ei < threshold:
            weak.append((ei, pk, days, edges))
    weak.sort()
    entries = Entry.objects.in_bulk([pk for _, pk, _, _ in weak[:limit]])
    return [Candidate(entries[pk], ei, days, edges, False) for ei, pk, days, edges in weak[:limit]]


def run(space: MemorySpace, *, threshold: float = DEFAULT_THRESHOLD, limit: int = DEFAULT_LIMIT,
        actor: str = "") -> list[Candidate]:
    """suggest() recorded in the op log, as `mnemon gc` does."""
    found = suggest(space, threshold=threshold, limit=limit)
    total = Entry.objects.live().filter(space=space).count()
    oplog.log_op(space, "gc", "", f"threshold={threshold} found={len(found)} total={total}", actor)
    return found


def keep(entry: Entry, *, actor: str = "") -> Candidate:
    """A person wants this one: access +3 and fresh, so it climbs out of the suggestions."""
    entry = access_counts.keep(entry, bump=KEEP_BUMP, actor=actor)
    edge_count = entry.edges_out.count()
    ei, days = effective_importance(entry, edge_count, timezone.now())
    return Candidate(entry, ei, days, edge_count, immune(entry))


CAP_SAMPLE = 400
CAP_BATCH = 100
CAP_ROOM = 100  # a full space is taken this many times its cap's hundredth below it (a 20,000 cap: 200)


def on_entry_written(sender, entry: Entry, **kwargs) -> None:
    """The space's maxEntries cap, after each new entry (0: no cap)."""
    cap = space_settings.effective(entry.space)["maxEntries"]
    if cap:
        enforce_cap(entry, cap)


def enforce_cap(entry: Entry, cap: int) -> int:
    """After a write: archive over maxEntries, counting the space only when it could be over.

    A space `cap - count` entries below its cap needs that many new entries to pass it, and
    every new entry takes a higher id, so the next count waits until ids reach that far
    (counting a big space on every write would cost more than the write). A space over its cap
    is taken a hundredth of its cap below it (up to CAP_BATCH at a time), so a full space is not
    counted and sorted again on every write: at a 2,000 cap that cost 18 ms a write against 0.7.
    Whatever makes entries recallable again without new ids calls MemorySpace.recount_cap().
    """
    space = entry.space
    if entry.pk < space.cap_check_from:
        return 0
    count = Entry.objects.recallable().filter(space=space).count()
    over = count - cap + cap // CAP_ROOM
    archived = archive_weakest(space, over, cap, keep=entry.pk) if count > cap else 0
    space.cap_check_from = entry.pk + max(cap - (count - archived), 1)
    MemorySpace.objects.filter(pk=space.pk).update(cap_check_from=space.cap_check_from)
    return archived


def archive_weakest(space: MemorySpace, over: int, cap: int, *, keep: int | None = None) -> int:
    """Archive up to CAP_BATCH of the weakest entries (never an immune one, never deleted).

    The weakest are looked for among the least recently used non-immune entries, so a write
    never has to rate the whole space.
    """
    recallable = Entry.objects.recallable().filter(space=space)
    now = timezone.now()
    pool = (recallable.filter(importance__lt=4, hits__lt=3).exclude(pk=keep)
            .annotate(edge_count=Count("edges_out"), last_use=Coalesce("last_accessed_at", "at"))
            .order_by("last_use")[:CAP_SAMPLE])
    weakest = sorted(pool, key=lambda e: effective_importance(e, e.edge_count, now)[0])[:min(over, CAP_BATCH)]
    ids = [e.pk for e in weakest]
    if ids:
        marks.archive(space, ids, actor="hub", operation="prune",
                        detail=f"archived {len(ids)} over maxEntries={cap}: {ids}")
    return len(ids)
