"""Storage compaction: drop what only grows (op log past its ring, old task results, finished jobs), then let
SQLite give the space back.

Safe beside live writers: every step is one short transaction that deletes only rows below a
cutoff fixed inside that transaction (ids or times), so a write that lands meanwhile is above
the cutoff and stays. Nothing a person or an agent can see changes: entries, facts, edges,
topics and the search index keep every row. Archived bodies are kept in full on purpose:
consolidation must stay reversible and the text stays searchable (seed weakness #5 is
answered with VACUUM, not truncation).
"""

from __future__ import annotations

import time

from collections.abc import Callable
from datetime import timedelta

from django.conf import settings
from django.db import OperationalError, connection, transaction
from django.utils import timezone
from django.utils.translation import gettext_noop
from django_q.conf import Conf
from django_q.models import Failure, Success

from memoryhub.jobs.models import Job
from memoryhub.memories.search import fulltext as search
from memoryhub.memories.models import OpLog
from memoryhub.spaces.models import MemorySpace

Progress = Callable[..., None]  # (percent, untranslated message, **its args)


def trim_oplog() -> int:
    """Each space's op log down to exactly its last OPLOG_KEEP rows (writes keep it there; this catches up
    after OPLOG_KEEP was lowered, and on logs from before op log rows were numbered per space)."""
    keep, removed = settings.MEMORYHUB["OPLOG_KEEP"], 0
    for space_id in MemorySpace.objects.values_list("pk", flat=True):
        with transaction.atomic():
            cutoff = (OpLog.objects.filter(space_id=space_id).order_by("-id")
                      .values_list("id", flat=True)[keep:keep + 1])
            if cutoff:
                removed += OpLog.objects.filter(space_id=space_id, id__lte=cutoff[0]).delete()[0]
    return removed


def trim_task_results(days: int) -> int:
    """django-q2's successes beyond save_limit, and failures older than `days`."""
    removed = 0
    with transaction.atomic():
        if Conf.SAVE_LIMIT > 0:
            stale = list(Success.objects.order_by("-stopped").values_list("id", flat=True)[Conf.SAVE_LIMIT:])
            removed += Success.objects.filter(id__in=stale).delete()[0]
        removed += Failure.objects.filter(stopped__lt=timezone.now() - timedelta(days=days)).delete()[0]
    return removed


def trim_jobs(days: int) -> int:
    """Finished Job rows older than `days`; queued and running ones always stay."""
    cutoff = timezone.now() - timedelta(days=days)
    with transaction.atomic():
        return Job.objects.filter(status__in=(Job.Status.SUCCEEDED, Job.Status.FAILED),
                                  finished_at__lt=cutoff).delete()[0]


def optimize_storage() -> list[str]:
    """SQLite: FTS5 merge, PRAGMA optimize, VACUUM, then a WAL checkpoint. PostgreSQL: VACUUM (ANALYZE) of
    the memory tables. Outside a transaction.

    VACUUM writes the whole SQLite database through the write-ahead log; until that is checkpointed
    and truncated the log is as big as the database and every read looks pages up in it. On
    PostgreSQL, autovacuum does the same some minutes after a bulk import; until then the planner
    has no statistics for the new rows (a 10k space searched 2–3 times slower than a 100k one) and
    GIN's pending list is unflushed.
    """
    if connection.vendor == "postgresql":
        return _vacuum_postgres()
    if connection.vendor != "sqlite":
        return []
    done = []
    with transaction.atomic(), connection.cursor() as cur:
        cur.execute(f"INSERT INTO {search.FTS_TABLE}({search.FTS_TABLE}) VALUES ('optimize')")
        done.append("fts-optimize")
    with connection.cursor() as cur:
        _while_quiet(cur, "PRAGMA optimize", "optimize", done)
        if not connection.in_atomic_block:
            _while_quiet(cur, "VACUUM", "vacuum", done)
            _while_quiet(cur, "PRAGMA wal_checkpoint(TRUNCATE)", "wal-checkpoint", done)
    return done


def _vacuum_postgres() -> list[str]:
    if connection.in_atomic_block:  # VACUUM cannot run in a transaction
        return []
    tables = [name for name in connection.introspection.table_names() if name.startswith("memories_")]
    with connection.cursor() as cur:
        cur.execute(f"VACUUM (ANALYZE) {', '.join(connection.ops.quote_name(name) for name in tables)}")
    return ["vacuum-analyze"]


def _while_quiet(cur, sql: str, name: str, done: list[str], attempts: int = 5) -> None:
    """Run a maintenance statement, waiting out writers a few times; skipping it loses nothing.

    SQLite answers "locked" at once (no busy wait) when a reader must become a writer while
    another connection writes, so the wait is ours.
    """
    for attempt in range(attempts):
        try:
            cur.execute(sql)
            done.append(name)
            return
        except OperationalError:
            time.sleep(0.2 * (attempt + 1))
    done.append(f"{name}-skipped-busy")


def db_size() -> int | None:
    if connection.vendor != "sqlite":
        return None
    with connection.cursor() as cur:
        cur.execute("PRAGMA page_count")
        pages = cur.fetchone()[0]
        cur.execute("PRAGMA page_size")
        return pages * cur.fetchone()[0]


def compact(*, job_days: int | None = None, progress: Progress | None = None) -> dict:
    """Run every step; returns what each removed and the database size before and after."""
    report = progress or (lambda pct, msg, **args: None)
    days = job_days if job_days is not None else settings.MEMORYHUB["JOB_RETENTION_DAYS"]
    result = {"size_before": db_size()}
    report(10, gettext_noop("trimming op logs"))
    result["oplog"] = trim_oplog()
    report(35, gettext_noop("trimming task results"))
    result["task_results"] = trim_task_results(days)
    report(55, gettext_noop("trimming finished jobs"))
    result["jobs"] = trim_jobs(days)
    report(75, gettext_noop("optimising the database"))
    result["storage"] = optimize_storage()
    result["size_after"] = db_size()
    return result
