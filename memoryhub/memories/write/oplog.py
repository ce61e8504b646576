"""The space's op log (what changed, by whom) and its clock; every change the gateway makes ends here."""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.utils import timezone

from memoryhub.core import sql
from memoryhub.core.redaction import redact
from memoryhub.memories.models import Entry
from memoryhub.memories.text.prose import clip
from memoryhub.memories.write import events
from memoryhub.spaces.models import MemorySpace

LAST_WRITE_PRECISION = 5  # seconds


def record_change(space: MemorySpace, operation: str, ids: list[int], actor: str, *, entry_id: str = "",
             detail: str = "") -> None:
    log_op(space, operation, entry_id, detail, actor)
    events.entries_changed.send(Entry, space=space, operation=operation, entry_ids=ids, actor=actor)


def log_op(space: MemorySpace, operation: str, entry_id: str = "", detail: str = "", actor: str = "") -> None:
    """Append to the space's op log and trim it to its last OPLOG_KEEP operations (two indexed statements).

    The detail is redacted here, whoever wrote it (a search's query, a fact's subject): the op log is shown on the
    Activity page and carried in packs and backups.

    Each row takes the space's next `seq`, so the rows to drop are those more than OPLOG_KEEP
    behind the new one, whatever other spaces write in between. Two PostgreSQL writers of one
    space at the same instant may share a seq; the log is then one row off its cap until the next.
    """
    (seq,) = sql.one("INSERT INTO memories_oplog (space_id, seq, operation, entry_id, detail, actor, created_at) "
                     "SELECT %s, COALESCE(MAX(seq), 0) + 1, %s, %s, %s, %s, %s FROM memories_oplog "
                     "WHERE space_id = %s RETURNING seq",
                     [space.pk, operation, entry_id, clip(redact(detail).text, 2000), actor, sql.moment(timezone.now()),
                      space.pk])
    keep_rows = settings.MEMORYHUB["OPLOG_KEEP"]
    if seq > keep_rows:
        sql.run("DELETE FROM memories_oplog WHERE space_id = %s AND seq <= %s", [space.pk, seq - keep_rows])


def touch_space(space: MemorySpace) -> None:
    """Record the last write time; a burst of writes updates it once every few seconds, not per write.

    A vault's time is exact: it lights the "new since you looked" dot.
    """
    now = timezone.now()
    stale = space.last_write_at is None or now - space.last_write_at > timedelta(seconds=LAST_WRITE_PRECISION)
    if stale or space.is_vault:
        MemorySpace.objects.filter(pk=space.pk).update(last_write_at=now)
        space.last_write_at = now

