"""Garbage-collection suggestions with Mnemon's effective importance; it suggests, people decide.

EI = base(importance) × access × decay × edges (mnemon.md A11). Memories with importance ≥ 4
or accessed three times or more are immune and never suggested. The one thing done without
asking is the space's maxEntries cap: after each new entry the weakest are archived (never deleted), by the
write itself when the space is just past its cap, by a worker job when it is far past.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime

from django.db.models import Count
from django.db.models.functions import Coalesce
from django.utils import timezone
from django.utils.translation import gettext_noop

from memoryhub.jobs import runner
from memoryhub.memories.models import Edge, Entry
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
CAP_BATCH = 100  # the most one write archives, and how far past its cap a write may find a space and still do it
CAP_ROOM = 100  # a full space is taken this many times its cap's hundredth below it (a 20,000 cap: 200)
CATCH_UP_CHUNK = 1000  # the worker's catch-up archives this many per transaction (the writer lock is shared)


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

    A space found more than CAP_BATCH past its cap (a bulk load, a lowered cap) is the worker's to bring back
    (`catch_up`, one job for the space): archiving 100 a write, each sorting the space again, cost 0.5–1.4 s a
    write at 100,000 entries five times over a 20,000 cap, for 800 writes. Meanwhile writes count again only
    every CAP_BATCH entries. Whatever makes entries recallable again without new ids calls
    MemorySpace.recount_cap().
    """
    space = entry.space
    if entry.pk < space.cap_check_from:
        return 0
    count = Entry.objects.recallable().filter(space=space).count()
    archived = 0
    if count - cap > CAP_BATCH:
        runner.enqueue_unless_waiting("enforce_cap", space=space)
        next_check = entry.pk + CAP_BATCH
    else:
        if count > cap:
            archived = archive_weakest(space, count - cap + cap // CAP_ROOM, cap, keep=entry.pk)
        next_check = entry.pk + max(cap - (count - archived), 1)
    if space.cap_check_from < next_check:  # the catch-up, run at once without a worker, may have reset it
        space.cap_check_from = next_check
        MemorySpace.objects.filter(pk=space.pk, cap_check_from__lt=next_check).update(cap_check_from=next_check)
    return archived


def archive_weakest(space: MemorySpace, over: int, cap: int, *, keep: int | None = None) -> int:
    """Archive up to CAP_BATCH of the weakest entries (never an immune one, never deleted).

    The weakest are looked for among the CAP_SAMPLE least recently used non-immune entries (their edges counted
    for those alone), so a write never has to rate the whole space.
    """
    now = timezone.now()
    pool = list(_weak_candidates(space).exclude(pk=keep).annotate(last_use=Coalesce("last_accessed_at", "at"))
                .order_by("last_use").values_list("pk", "importance", "hits", "last_use")[:CAP_SAMPLE])
    edges = dict(Edge.objects.filter(source_id__in=[pk for pk, *_ in pool]).values("source_id")
                 .annotate(n=Count("id")).values_list("source_id", "n"))
    rated = sorted((_rating(importance, hits, last, edges.get(pk, 0), now)[0], pk)
                   for pk, importance, hits, last in pool)
    ids = [pk for _, pk in rated[:min(over, CAP_BATCH)]]
    if ids:
        marks.archive(space, ids, actor="hub", operation="prune",
                      detail=f"archived {len(ids)} over maxEntries={cap}: {ids}")
    return len(ids)


def catch_up(space: MemorySpace, progress=None) -> dict:
    """The worker's half of the cap: bring a space far over maxEntries back a hundredth of its cap below it, the
    weakest first (every non-immune recallable entry rated once, from a few columns), CATCH_UP_CHUNK at a time.

    Returns what it did. A space it could not bring under (too few entries that are not immune) is left to the
    writes' next count, CAP_BATCH entries later."""
    report = progress or (lambda pct, msg, **args: None)
    cap = space_settings.effective(space)["maxEntries"]
    count = Entry.objects.recallable().filter(space=space).count()
    if not cap or count <= cap:
        space.recount_cap()
        return {"cap": cap, "recallable": count, "archived": 0}
    now = timezone.now()
    rows = (_weak_candidates(space).annotate(edge_count=Count("edges_out"))
            .values_list("pk", "importance", "hits", "last_accessed_at", "at", "edge_count"))
    rated = sorted((_rating(importance, hits, last or at, edges, now)[0], pk)
                   for pk, importance, hits, last, at, edges in rows)
    ids = [pk for _, pk in rated[:count - cap + cap // CAP_ROOM]]
    archived = 0
    for start in range(0, len(ids), CATCH_UP_CHUNK):
        report(5 + 90 * start // len(ids), gettext_noop("%(done)d of %(total)d archived over maxEntries"),
               done=archived, total=len(ids))
        chunk = ids[start:start + CATCH_UP_CHUNK]
        archived += len(marks.archive(space, chunk, actor="hub", operation="prune",
                                      detail=f"archived {len(chunk)} over maxEntries={cap} (catch-up)"))
    left = count - archived
    if left <= cap:
        space.recount_cap()  # back under: the next write counts again, and finds room
    return {"cap": cap, "recallable": left, "archived": archived}


def _weak_candidates(space: MemorySpace):
    """What the cap may archive: recallable entries that are not immune."""
    return Entry.objects.recallable().filter(space=space, importance__lt=4, hits__lt=3)
