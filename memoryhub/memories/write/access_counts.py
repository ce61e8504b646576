"""How often and how lately agents recalled an entry (gc and consolidation keep what is used).

An agent's recall counts as access and is logged; the hub's own browsing never counts."""

from __future__ import annotations

from datetime import datetime

from django.db import transaction
from django.db.models import F
from django.utils import timezone

from memoryhub.core import background
from memoryhub.core.redaction import redact
from memoryhub.memories.models import Entry
from memoryhub.memories.text.prose import clip
from memoryhub.memories.write.oplog import record_change
from memoryhub.spaces.models import MemorySpace


def record_recall(space_entries: dict[MemorySpace, list[Entry]], query: str, actor: str) -> None:
    """An agent's recall counts as access and is logged; the hub's own browsing never calls this.

    Bookkeeping (core/background.best_effort): written at once when no other writer holds the lock, else
    a moment later; it never holds up or fails the search it notes."""
    noted = [(space, [e.pk for e in entries]) for space, entries in space_entries.items()]
    background.best_effort(_note_recall, noted, query, actor, timezone.now())


def _note_recall(noted: list[tuple[MemorySpace, list[int]]], query: str, actor: str, now: datetime) -> None:
    for space, ids in noted:
        if ids:
            Entry.objects.filter(pk__in=ids).update(hits=F("hits") + 1, last_accessed_at=now)
        # Redacted before the cut to 300 (a key cut in two might no longer look like one; what lies past 1,000
        # characters is never shown, so it is not read). The ids last: a memory's page lists who recalled it from
        # them (recall_ids reads them back).
        record_change(space, "recall", ids, actor,
                      detail=f"q={clip(redact(query[:1000]).text, 300)} hits={len(ids)} ids={','.join(map(str, ids))}")


def recall_ids(detail: str) -> set[int]:
    """The entry ids a recall row of the op log names (rows written before ids were kept name none)."""
    _head, found, ids = detail.rpartition(" ids=")
    return {int(i) for i in ids.split(",") if i.isdigit()} if found else set()


def keep(entry: Entry, *, bump: int, actor: str = "") -> Entry:
    """A person wants this one kept: its access count goes up by `bump` and it is fresh again."""
    with transaction.atomic():
        Entry.objects.filter(pk=entry.pk).update(hits=F("hits") + bump, last_accessed_at=timezone.now())
        entry.refresh_from_db()
        record_change(entry.space, "gc_keep", [entry.pk], actor, entry_id=str(entry.pk), detail=f"access={entry.hits}")
    return entry

