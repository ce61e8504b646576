"""What the Maintenance tab shows of a space, worked out by a job: the consolidation plan in brief, the weak memories.

Planning compares the summaries of every topic and reads every old topic's turns; at 100,000 entries it
takes seconds, and on each page load it made the tab answer in 5.9 s at 5,000 entries and 32 s at
20,000. So the worker computes it (the `consolidation_preview` job) and the page shows the newest
preview whose basis is still the space's: nothing changed since (the op log's last number, the newest
entry and topic), the same thresholds, the same hour (the age limits move with the clock). A stale one is shown as such while
the next is computed. Applying always plans afresh, so a preview never decides what is changed.
"""

from __future__ import annotations

from datetime import datetime

from django.utils import timezone

from memoryhub.core import sql
from memoryhub.memories.maintenance import consolidate, gc
from memoryhub.memories.models import Entry
from memoryhub.spaces.models import MemorySpace

ROWS = 20  # groups and archives listed; the counts say how many there are in all
GROUP_ROWS = 10  # entries listed per group


def basis(space: MemorySpace, now: datetime | None = None) -> dict:
    """What a preview was computed on, in one query of three index lookups; equal bases mean it still holds.

    The op log numbers every change the write gateway makes (recalls too: they decide what is archived); the
    newest entry and topic catch what arrives without a log line (the worker's topics, bulk loads)."""
    seq, entry, topic = sql.one(
        "SELECT (SELECT MAX(seq) FROM memories_oplog WHERE space_id = %s), "
        "(SELECT MAX(id) FROM memories_entry WHERE space_id = %s), "
        "(SELECT MAX(id) FROM memories_topic WHERE space_id = %s)", [space.pk] * 3)
    hour = (now or timezone.now()).replace(minute=0, second=0, microsecond=0)
    limits = consolidate.thresholds(space)
    return {"seq": seq or 0, "entry": entry or 0, "topic": topic or 0, "hour": hour.isoformat(),
            "limits": [limits.min_age_days, limits.digest_age_days, limits.merge_similarity]}


def compute(space: MemorySpace, now: datetime | None = None) -> dict:
    """The preview as the page renders it (plain data: it is kept as the job's result)."""
    now = now or timezone.now()
    at = basis(space, now)  # before planning: a change made meanwhile makes this preview stale, never hides
    plan = consolidate.plan(space, now)
    return {
        "basis": at, "computed_at": now.isoformat(), "counts": plan.counts, "empty": plan.empty,
        "merges": [{"keep": _row(g.keep), "merged": [_row(e) for e in g.merged[:GROUP_ROWS]],
                    "more": max(0, len(g.merged) - GROUP_ROWS), "similarity": g.similarity} for g in plan.merges[:ROWS]],
        "digests": [{"topic": g.topic.title, "count": len(g.turns), "turns": [_row(e) for e in g.turns[:GROUP_ROWS]],
                     "more": max(0, len(g.turns) - GROUP_ROWS)} for g in plan.digests[:ROWS]],
        "archives": [{**_row(e), "day": timezone.localtime(e.at).date().isoformat()} for e in plan.archives[:ROWS]],
        "weak": [{"entry": _row(c.entry), "effective_importance": c.effective_importance,
                  "days_since_access": c.days_since_access} for c in gc.suggest(space, now=now)],
    }


def _row(entry: Entry) -> dict:
    return {"pk": entry.pk, "summary": entry.summary}
