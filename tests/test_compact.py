"""Storage compaction: trims what only grows, keeps every visible row, loses no concurrent write."""

import threading
from datetime import timedelta

import pytest
from django.db import connection
from django.utils import timezone
from django_q.conf import Conf
from django_q.models import Success, Task

from memoryhub.spaces.workspaces import default_space
from memoryhub.jobs.models import Job
from memoryhub.memories.maintenance import compact
from memoryhub.memories.recall import cards as recall
from memoryhub.memories.write import gateway, oplog
from memoryhub.memories.models import Entry, OpLog

QUERIES = ["postgres backups", "nginx proxy", "日志 轮转"]
BODIES = ["postgres backups run at 3am", "nginx proxy_pass to gunicorn", "日志轮转每天一次",
          "postgres replication lag alerts", "nginx gzip for static files"]


def visible(space):
    return ([[c.id for c in recall.search([space], q, limit=10)] for q in QUERIES],
            Entry.objects.live().filter(space=space).count())


def grow(space, settings, n_ops=120):
    settings.MEMORYHUB = {**settings.MEMORYHUB, "OPLOG_KEEP": 40}
    for body in BODIES:
        gateway.write(space, gateway.Draft(body=body))
    for i in range(n_ops):
        oplog.log_op(space, "recall", detail=f"q={i}")
    old = timezone.now() - timedelta(days=90)
    Job.objects.create(kind="selftest", status="succeeded", finished_at=old)
    Job.objects.create(kind="selftest", status="running", started_at=old)
    Job.objects.create(kind="selftest", status="succeeded", finished_at=timezone.now())
    for i in range(5):
        Task.objects.create(id=f"t{i}", name=f"t{i}", func="f", started=old, stopped=old + timedelta(seconds=i),
                            success=True)


@pytest.mark.django_db
def test_compaction_trims_growth_and_keeps_the_visible_state(settings):
    space = default_space()
    grow(space, settings)
    before = visible(space)
    old_limit, Conf.SAVE_LIMIT = Conf.SAVE_LIMIT, 2
    try:
        result = compact.compact(job_days=30)
    finally:
        Conf.SAVE_LIMIT = old_limit
    assert OpLog.objects.filter(space=space).count() == 40
    assert result["jobs"] == 1 and set(Job.objects.values_list("status", flat=True)) == {"running", "succeeded"}
    assert Success.objects.count() == 2 and result["task_results"] == 3
    assert visible(space) == before
    assert "fts-optimize" in result["storage"]


@pytest.mark.django_db(transaction=True)
def test_compaction_with_a_concurrent_writer_loses_nothing(settings):
    space = default_space()
    grow(space, settings, n_ops=300)
    before = visible(space)
    written, errors = [], []

    def writer():
        try:
            for i in range(40):
                entry = gateway.write(space, gateway.Draft(body=f"concurrent note number {i} about kafka")).entry
                written.append(entry.pk)
        except Exception as exc:  # surfaced by the assertion below
            errors.append(exc)
        finally:
            connection.close()

    thread = threading.Thread(target=writer)
    thread.start()
    result = compact.compact(job_days=30)
    thread.join()
    assert errors == [] and len(written) == 40
    assert Entry.objects.filter(pk__in=written).count() == 40
    assert len(recall.search([space], "kafka concurrent", limit=50)) == 40
    queries, count = visible(space)
    assert queries == before[0] and count == before[1] + 40
    assert "vacuum" in result["storage"] or "vacuum-skipped-busy" in result["storage"]
