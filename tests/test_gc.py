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
