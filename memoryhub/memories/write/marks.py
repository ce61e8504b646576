"""Marks on entries that consolidation and the cap set and undo: archived, merged into, digested by.

A mark changes no text; each sets only what is as it should be before (a mark someone else set meanwhile is
left alone), logs the change and tells the subscribers, like every gateway change."""

from __future__ import annotations

from collections.abc import Iterable

from django.db import transaction

from memoryhub.memories.models import Entry
from memoryhub.memories.write.oplog import record_change
from memoryhub.spaces.models import MemorySpace


def archive(space: MemorySpace, ids: Iterable[int], *, archived: bool = True, actor: str = "",
            operation: str = "", detail: str = "") -> list[int]:
    """Archive (or unarchive) entries: they stay searchable by hand but leave automatic recall.

    Returns the ids whose mark changed; `operation` and `detail` name the reason in the op log
    (the cap logs "prune")."""
    with transaction.atomic():
        changed = _mark(space, ids, {"archived": not archived}, archived=archived)
        if changed and not archived:
            space.recount_cap()
        if changed:
            record_change(space, operation or ("archive" if archived else "unarchive"), changed, actor,
                     detail=detail or f"ids={','.join(map(str, changed))}"[:2000])
    return changed


def merge(space: MemorySpace, losers: Iterable[int], winner: int, *, actor: str = "") -> list[int]:
    """Mark near-duplicates as merged into the entry that keeps the subject; their text stays as it was."""
    with transaction.atomic():
        changed = _mark(space, losers, {"merged_into__isnull": True}, merged_into_id=winner)
        for loser in changed:
            record_change(space, "merge", [loser], actor, entry_id=str(loser), detail=f"{loser}→{winner}")
    return changed


def unmerge(space: MemorySpace, pairs: dict[int, int], *, actor: str = "") -> list[int]:
    """Undo merges: {loser: the winner it was merged into} (a mark set since then is left alone)."""
    with transaction.atomic():
        changed = [loser for loser, winner in pairs.items()
                   if _mark(space, [loser], {"merged_into_id": winner}, merged_into_id=None)]
        if changed:
            record_change(space, "unmerge", changed, actor, detail=f"ids={','.join(map(str, changed))}"[:2000])
    return changed


def digest(space: MemorySpace, digest_entry: Entry, turn_ids: Iterable[int], *, topic_id: int,
           actor: str = "") -> list[int]:
    """Mark a topic's turns as summarised by a digest entry (turns already in another digest are left alone)."""
    with transaction.atomic():
        changed = _mark(space, turn_ids, {"digest__isnull": True}, digest_id=digest_entry.pk)
        record_change(space, "digest", changed, actor, entry_id=str(digest_entry.pk),
                 detail=f"topic={topic_id} turns={len(changed)}")
    return changed


def undigest(space: MemorySpace, digest_id: int, turn_ids: Iterable[int], *, actor: str = "") -> list[int]:
    with transaction.atomic():
        changed = _mark(space, turn_ids, {"digest_id": digest_id}, digest_id=None)
        if changed:
            record_change(space, "undigest", changed, actor, entry_id=str(digest_id))
    return changed


def _mark(space: MemorySpace, ids: Iterable[int], where: dict, **values) -> list[int]:
    """Set `values` on the space's entries among `ids` that match `where` (the mark as it should be before);
    returns the ids set, so a mark someone else set meanwhile is left alone and not claimed."""
    changed = list(Entry.objects.filter(space=space, pk__in=list(ids), **where).order_by("pk")
                   .values_list("pk", flat=True))
    if changed:
        Entry.objects.filter(pk__in=changed).update(**values)
    return changed

