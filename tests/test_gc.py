"""gc and the usage log: effective importance, immunity, keep, the 5,000-row op log, who counts as access."""

from datetime import timedelta

import pytest
from django.utils import timezone

from memoryhub.spaces.workspaces import default_space
from memoryhub.memories.maintenance import gc
from memoryhub.memories.recall import cards as recall
from memoryhub.memories.write import gateway, oplog
from memoryhub.memories.models import Entry, OpLog
from memoryhub.spaces.models import MemorySpace

pytestmark = pytest.mark.django_db


@pytest.fixture
def space():
    return default_space()


def old(space, body, days=90, **kw):
    entry = gateway.write(space, gateway.Draft(body=body, at=timezone.now() - timedelta(days=days), **kw)).entry
    return entry


def test_effective_importance_follows_mnemon():
    now = timezone.now()
    entry = Entry(importance=3, hits=0, at=now - timedelta(days=30))
    ei, days = gc.effective_importance(entry, edge_count=0, now=now)
    assert ei == pytest.approx(0.25) and days == 30
    entry = Entry(importance=5, hits=4, at=now, last_accessed_at=now)
    ei, _ = gc.effective_importance(entry, edge_count=9, now=now)
    assert ei == pytest.approx(1.0 * 1.6094 * 1.0 * 1.5, rel=1e-3)


def test_gc_suggests_weak_memories_weakest_first_and_deletes_nothing(space):
    weaker = old(space, "an unimportant aside from long ago", days=200, importance=1)
    weak = old(space, "a passing remark", days=90, importance=2)
    old(space, "fresh and average", days=0)
    found = gc.run(space)
    assert [c.entry for c in found] == [weaker, weak]
    assert Entry.objects.live().count() == 3
    assert OpLog.objects.filter(space=space, operation="gc").first().detail == "threshold=0.5 found=2 total=3"


def test_important_or_often_accessed_memories_are_never_suggested(space):
    old(space, "the production database password rotation policy", days=400, importance=4)
    accessed = old(space, "where the backups go", days=400, importance=1)
    Entry.objects.filter(pk=accessed.pk).update(hits=3)
    assert gc.suggest(space, threshold=10) == []


def test_keep_bumps_access_and_is_logged(space):
    entry = old(space, "a passing remark", days=90, importance=1)
    kept = gc.keep(entry, actor="alice")
    entry.refresh_from_db()
    assert entry.hits == 3 and entry.last_accessed_at and kept.immune
    assert OpLog.objects.filter(space=space, operation="gc_keep", entry_id=str(entry.pk)).exists()
    assert gc.suggest(space) == []


def test_op_log_keeps_the_last_5000_operations_per_space(space):
    other = MemorySpace.objects.create(slug="other", name="Other")
    oplog.log_op(other, "remember", detail="kept in another space")
    for i in range(5100):
        oplog.log_op(space, "recall", detail=f"q={i}")
    count = OpLog.objects.filter(space=space).count()
    assert 5000 <= count < 5050
    newest = OpLog.objects.filter(space=space).first()
    assert newest.detail == "q=5099"
    assert not OpLog.objects.filter(space=space, detail="q=0").exists()
    assert OpLog.objects.filter(space=other).count() == 1


def test_agent_recall_counts_access_but_dashboard_search_does_not(space, api):
    api.tool("memory_save", category="fact", title="Backups", body="Backups go to the NAS every night")
    entry = Entry.objects.get(title="Backups")
    api.tool("memory_search", query="backups NAS")
    entry.refresh_from_db()
    assert entry.hits == 1 and entry.last_accessed_at
    assert OpLog.objects.filter(operation="recall", detail__startswith="q=backups NAS").exists()
    recall.search([entry.space], "backups NAS")
    entry.refresh_from_db()
    assert entry.hits == 1


def far_over(space, entries: int, cap: int) -> None:
    """A space holding `entries` (as a bulk load leaves it) under a cap of `cap`, set after the load."""
    now = timezone.now()
    Entry.objects.bulk_create([Entry(space=space, body=f"bulk {i}", title=f"bulk {i}", content_hash=f"h{i}",
                                     at=now - timedelta(days=400 - i % 300)) for i in range(entries)])
    space.settings = {**space.settings, "maxEntries": cap}
    space.save()
    space.recount_cap()


def test_a_space_far_over_its_cap_is_brought_back_by_one_job_not_a_hundred_a_write(space):
    """Before, each write archived at most 100 (sorting the space each time), so a space 500 over its cap stayed
    over it for five writes, and one 80,000 over for 800 writes of half a second and more each."""
    from memoryhub.jobs.models import Job

    far_over(space, 600, 100)
    written = gateway.write(space, gateway.Draft(title="one more", body="one more note past the cap")).entry
    recallable = Entry.objects.recallable().filter(space=space)
    assert recallable.count() == 100 - 100 // gc.CAP_ROOM  # a hundredth of the cap below it, as a write leaves it
    assert recallable.filter(pk=written.pk).exists() and not Entry.objects.filter(deleted_at__isnull=False).exists()
    job = Job.objects.get(kind="enforce_cap", space=space)
    assert job.status == "succeeded" and job.result["archived"] == 502
    assert OpLog.objects.filter(space=space, operation="prune").count() == 1  # one chunk, no write's own batch


def test_a_write_past_the_cap_leaves_the_catch_up_to_the_waiting_job_and_counts_again_only_later(space):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from memoryhub.jobs.models import Job

    far_over(space, 400, 100)
    waiting = Job.objects.create(kind="enforce_cap", space=space)  # queued, the worker not there yet
    first = gateway.write(space, gateway.Draft(title="past", body="a note while the job waits")).entry
    assert Entry.objects.recallable().filter(space=space).count() == 401  # the write archived nothing itself
    assert list(Job.objects.filter(kind="enforce_cap").values_list("pk", flat=True)) == [waiting.pk]
    space.refresh_from_db()
    assert space.cap_check_from == first.pk + gc.CAP_BATCH
    with CaptureQueriesContext(connection) as queries:
        gateway.write(space, gateway.Draft(title="next", body="the next note"))
    assert not [q["sql"] for q in queries if "COUNT(" in q["sql"].upper()]  # not counted on every write


def test_the_catch_up_archives_the_weakest_never_an_immune_one(space):
    far_over(space, 300, 100)
    Entry.objects.filter(space=space, title__in=["bulk 0", "bulk 1"]).update(importance=5)  # the oldest, immune
    Entry.objects.filter(space=space, title="bulk 2").update(hits=3)
    fresh = Entry.objects.filter(space=space).order_by("-at")[:5].values_list("pk", flat=True)
    done = gc.catch_up(space)
    assert done["archived"] == 300 - 99 and done["recallable"] == 99
    kept = Entry.objects.recallable().filter(space=space)
    assert kept.filter(title__in=["bulk 0", "bulk 1", "bulk 2"]).count() == 3
    assert set(fresh) <= set(kept.values_list("pk", flat=True))  # the newest are the strongest of equals
    assert space.cap_check_from == 0  # under again: the next write counts
