"""Deferred enrichment: a write marks its entry, one worker run per space adds edges and topics later."""

from datetime import timedelta

import pytest
from django.utils import timezone
from django_q.conf import Conf
from django_q.brokers import get_broker

from memoryhub.memories.growth import enrich
from memoryhub.memories.write import gateway
from memoryhub.memories.models import Edge, Entry, Topic
from memoryhub.spaces.models import MemorySpace


@pytest.fixture
def space(db):
    return MemorySpace.objects.create(slug="enrich", name="Enrich")


@pytest.fixture
def with_worker(monkeypatch):
    """Jobs go to the broker (ORM or Redis), as with `make run`, instead of running inline as in the other tests."""
    monkeypatch.setattr(Conf, "SYNC", False)
    broker = get_broker()
    broker.purge_queue()
    yield broker
    broker.purge_queue()


def turn(space, user, session="s1", minutes=0, **extra):
    at = timezone.now() - timedelta(hours=1) + timedelta(minutes=minutes)
    draft = gateway.Draft(kind="turn", user=user, assistant="Noted.", session_id=session, at=at, origin="local", **extra)
    return gateway.write(space, draft).entry


def test_a_write_only_marks_its_entry_and_queues_one_run_per_space(space, with_worker,
                                                                    django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        first = turn(space, "The Kafka consumer lags behind on the billing topic")
        second = turn(space, "Kafka consumer lag again after the billing deploy", minutes=5)
        third = turn(space, "Kafka lag fixed by raising max.poll.records", minutes=10)
    entries = Entry.objects.filter(pk__in=[first.pk, second.pk, third.pk])
    assert all(e.enrich_pending and e.topic_id is None for e in entries)
    assert not Edge.objects.exists()
    assert with_worker.queue_size() == 1  # one queued run, not one per write
    space.refresh_from_db()
    assert space.enrich_queued_at is not None

    assert enrich.run(space.pk) == 3

    entries = Entry.objects.filter(pk__in=[first.pk, second.pk, third.pk])
    assert not any(e.enrich_pending for e in entries)
    assert len({e.topic_id for e in entries}) == 1
    topic = Topic.objects.get()
    assert topic.turn_count == 3
    assert Edge.objects.filter(source=first, target=second, edge_type="temporal", metadata__sub_type="backbone").exists()
    assert Edge.objects.filter(source=second, target=first, metadata__direction="succeeds").exists()
    space.refresh_from_db()
    assert space.enrich_queued_at is None  # the next write queues a new run


def test_a_batch_keeps_sessions_apart_and_follows_time_order(space, with_worker):
    a1 = turn(space, "Wallpaper Engine does not play on the second monitor", session="a")
    b1 = turn(space, "Set up the Postgres replica for the reporting database", session="b", minutes=1)
    a2 = turn(space, "Wallpaper Engine multi-monitor mode works now", session="a", minutes=2)
    b2 = turn(space, "The Postgres replica lags twenty seconds behind", session="b", minutes=3)
    enrich.run(space.pk)
    for entry in (a1, a2, b1, b2):
        entry.refresh_from_db()
    assert a1.topic_id == a2.topic_id != b1.topic_id == b2.topic_id
    assert Topic.objects.get(pk=a1.topic_id).turn_count == 2
    assert Edge.objects.filter(source=a1, target=a2, metadata__sub_type="backbone").exists()
    assert not Edge.objects.filter(source=a1, target=b2, metadata__sub_type="backbone").exists()


def test_an_entry_forgotten_before_its_run_gets_no_edges_or_topic(space, with_worker):
    kept = turn(space, "Deploys run from the staging branch on Fridays")
    gone = turn(space, "Deploys need two approvals before production", minutes=1)
    gateway.forget(gone)
    enrich.run(space.pk)
    gone.refresh_from_db()
    assert gone.topic_id is None and not gone.enrich_pending
    assert not Edge.objects.filter(target=gone).exists() and not Edge.objects.filter(source=gone).exists()
    kept.refresh_from_db()
    assert kept.topic_id is not None


def test_the_minute_sweep_enriches_a_space_whose_run_was_lost(space, with_worker):
    entry = turn(space, "The nightly backup job writes to the NAS")
    # The worker died after the run was queued: the entry is a few minutes old and still pending.
    Entry.objects.filter(pk=entry.pk).update(created_at=timezone.now() - timedelta(minutes=3))
    young = turn(space, "Backups are checked every Monday", minutes=1)
    assert enrich.sweep() == 2  # the space's run takes its young entry too
    entry.refresh_from_db()
    young.refresh_from_db()
    assert entry.topic_id and young.topic_id and not entry.enrich_pending


def test_a_run_queued_long_ago_counts_as_lost_and_is_queued_again(space, with_worker,
                                                                   django_capture_on_commit_callbacks):
    MemorySpace.objects.filter(pk=space.pk).update(enrich_queued_at=timezone.now() - timedelta(minutes=1))
    with django_capture_on_commit_callbacks(execute=True):
        turn(space, "first turn while a run is waiting")
    assert with_worker.queue_size() == 0
    MemorySpace.objects.filter(pk=space.pk).update(enrich_queued_at=timezone.now() - timedelta(minutes=6))
    with django_capture_on_commit_callbacks(execute=True):
        turn(space, "second turn after the run was lost", minutes=1)
    assert with_worker.queue_size() == 1


def test_without_a_worker_queue_writes_are_enriched_at_once(space):
    """MEMORYHUB_Q_SYNC (and the test settings): nothing waits for a worker."""
    first = turn(space, "Redis eviction policy is allkeys-lru")
    second = turn(space, "Redis memory limit raised to 2 GB", minutes=1)
    second.refresh_from_db()
    assert not second.enrich_pending and second.topic_id
    assert Edge.objects.filter(source=first, target=second).exists()


def test_entries_sharing_a_time_link_as_if_each_was_linked_when_written(space, with_worker):
    """An import gives a whole session one time; a run after the writes must not link a turn to later ones."""
    at = timezone.now() - timedelta(hours=3)
    made = []
    for text in ("Kafka lag on billing", "Kafka lag again", "Kafka lag fixed", "Kafka retro notes"):
        draft = gateway.Draft(kind="turn", user=text, assistant="ok", session_id="imported", at=at, origin="local")
        made.append(gateway.write(space, draft).entry)
    enrich.run(space.pk)
    backbone = {(e.source_id, e.target_id) for e in Edge.objects.filter(metadata__direction="precedes")}
    assert backbone == {(made[0].pk, made[1].pk), (made[1].pk, made[2].pk), (made[2].pk, made[3].pk)}


def test_fast_writes_keep_one_persona_rebuild_waiting_not_one_per_ten_entries(space, with_worker,
                                                                              django_capture_on_commit_callbacks):
    from memoryhub.jobs.models import Job

    def rebuilds(**status):
        return Job.objects.filter(kind="persona_rebuild", space=space, **status).count()

    with django_capture_on_commit_callbacks(execute=True):
        for i in range(30):
            turn(space, f"Build number {i} of the billing service went out", minutes=i)
    assert rebuilds() == 1 and rebuilds(status="queued") == 1
    # Once the worker has started it, the next ten entries need a rebuild of their own.
    Job.objects.filter(kind="persona_rebuild").update(status="running")
    with django_capture_on_commit_callbacks(execute=True):
        for i in range(10):
            turn(space, f"Release {i} of the billing service is tagged", minutes=40 + i)
    assert rebuilds() == 2 and rebuilds(status="queued") == 1
    # A rebuild queued long ago never reached a worker: it no longer holds the next one back.
    Job.objects.filter(kind="persona_rebuild", status="queued").update(created_at=timezone.now() - timedelta(hours=1))
    with django_capture_on_commit_callbacks(execute=True):
        for i in range(10):
            turn(space, f"Hotfix {i} of the billing service is out", minutes=60 + i)
    assert rebuilds(status="queued") == 2
