"""Consolidation: merge, digest, archive; preview changes nothing; idempotent; undo restores; daily schedule."""

from datetime import timedelta

import pytest
from django.utils import timezone

from memoryhub.memories.maintenance import consolidate
from memoryhub.memories.search import fulltext as search
from memoryhub.memories.facts.slots import current_facts
from memoryhub.memories.write import gateway, marks
from memoryhub.memories.models import ConsolidationRun, Entry, Fact
from memoryhub.spaces.models import MemorySpace
from tests.fakes_llm import FakeLLM, chat_answer

pytestmark = pytest.mark.django_db

ALERTS = [
    ("alerts.log rotation keeps filling the disk on the staging box", "Rotate alerts.log daily with logrotate"),
    ("alerts.log rotation: should we compress old files?", "Yes, compress alerts.log rotations with gzip"),
    ("alerts.log rotation also needs a size cap", "Add maxsize 100M to the alerts.log logrotate rule"),
    ("Who reads alerts.log after rotation?", "The alerting sidecar tails alerts.log and follows rotation"),
    ("alerts.log permissions after rotation are wrong", "Use create 0640 in the alerts.log rule"),
    ("Test the alerts.log rotation config", "Run logrotate -d against the alerts.log rule to dry-run it"),
]


@pytest.fixture
def space():
    return MemorySpace.objects.create(slug="c1", name="C1")


def turn(space, user, assistant, at, session="sess"):
    draft = gateway.Draft(kind="turn", user=user, assistant=assistant, session_id=session, at=at, origin="local")
    return gateway.write(space, draft).entry


def note(space, body, at, **kw):
    entry = gateway.write(space, gateway.Draft(body=body, at=at, **kw)).entry
    return entry


def topic_of_turns(space, days_ago=5, session="sess"):
    start = timezone.now() - timedelta(days=days_ago)
    return [turn(space, u, a, start + timedelta(minutes=10 * i), session) for i, (u, a) in enumerate(ALERTS)]


def snapshot(space):
    return list(Entry.objects.filter(space=space).order_by("pk").values_list(
        "pk", "body", "archived", "merged_into_id", "digest_id", "deleted_at"))


def test_old_finished_topic_gets_one_digest_its_turns_point_to(space):
    turns = topic_of_turns(space)
    preview = consolidate.plan(space)
    assert preview.counts["digests"] == 1 and preview.counts["digested_turns"] == 6
    run = consolidate.apply(space)
    digest = Entry.objects.get(space=space, kind="digest")
    assert set(Entry.objects.filter(pk__in=[t.pk for t in turns]).values_list("digest_id", flat=True)) == {digest.pk}
    assert "alerts.log" in digest.body and digest.title.startswith("Digest:")
    assert run.digested == {str(digest.pk): [t.pk for t in turns]} and run.method == "rule"


def test_digest_is_found_by_search_with_its_1_3_weight(space):
    topic_of_turns(space)
    consolidate.apply(space)
    digest = Entry.objects.get(space=space, kind="digest")
    hit = next(h for h in search.query([space.pk], "logrotate gzip", limit=10) if h.entry_id == digest.pk)
    assert hit.rank == pytest.approx(hit.bm25 * search.DIGEST_BOOST)


def test_recent_or_short_topics_are_not_digested(space):
    topic_of_turns(space, days_ago=1)
    start = timezone.now() - timedelta(days=10)
    for i, (u, a) in enumerate(ALERTS[:3]):
        turn(space, u, a, start + timedelta(minutes=i), session="short")
    assert consolidate.plan(space).digests == []


def test_similar_summaries_in_one_topic_merge_into_the_most_complete(space):
    at = timezone.now() - timedelta(hours=2)
    short = turn(space, "deploy the django app with gunicorn behind nginx", "ok", at)
    full = turn(space, "deploy the django app with gunicorn behind nginx and whitenoise",
                "Sure: gunicorn workers, nginx proxy_pass, whitenoise for static files, systemd unit.", at + timedelta(minutes=1))
    other = turn(space, "deploy the django app: which python version?", "3.11", at + timedelta(minutes=2))
    assert short.topic_id == full.topic_id == other.topic_id
    groups = consolidate.plan(space).merges
    assert len(groups) == 1 and groups[0].keep == full and groups[0].merged == [short]
    consolidate.apply(space)
    short.refresh_from_db()
    assert short.merged_into_id == full.pk and short.body.startswith("User: deploy")


def test_same_summaries_in_different_topics_do_not_merge(space):
    at = timezone.now() - timedelta(hours=2)
    turn(space, "deploy the django app with gunicorn behind nginx", "ok", at, session="a")
    turn(space, "deploy the django app with gunicorn behind nginx", "done", at, session="b")
    assert consolidate.plan(space).merges == []


def test_archive_takes_old_never_recalled_non_decisions_only(space):
    old = timezone.now() - timedelta(days=40)
    stale = note(space, "the staging box runs debian 12", old, category="fact")
    decision = note(space, "we decided to use postgres", old, category="decision")
    recalled = note(space, "the api lives on port 8080", old, category="fact")
    Entry.objects.filter(pk=recalled.pk).update(hits=1)
    fresh = note(space, "today the build is green", timezone.now(), category="progress")
    assert consolidate.plan(space).archives == [stale]
    consolidate.apply(space)
    assert Entry.objects.get(pk=stale.pk).archived
    assert not any(Entry.objects.filter(pk__in=[decision.pk, recalled.pk, fresh.pk]).values_list("archived", flat=True))
    assert search.query([space.pk], "debian staging") == []
    assert [h.entry_id for h in search.query([space.pk], "debian staging", recallable_only=False)] == [stale.pk]


def test_a_turn_that_said_a_still_true_fact_is_not_archived_and_its_facts_stay_current(space):
    old = timezone.now() - timedelta(days=40)
    allergy = turn(space, "I'm allergic to peanuts.", "Noted.", old)
    moved = turn(space, "I live in Leeds.", "Nice.", old)
    chat = turn(space, "What is a good name for a goldfish?", "Bubbles.", old)
    turn(space, "I live in York now.", "Got it.", old + timedelta(days=1))  # Leeds is no longer true
    archived = {e.pk for e in consolidate.plan(space).archives}
    assert allergy.pk not in archived  # still true: stays in recall
    assert {moved.pk, chat.pk} <= archived  # its fact was replaced; small talk
    consolidate.apply(space)
    assert not Entry.objects.get(pk=allergy.pk).archived and Entry.objects.get(pk=moved.pk).archived
    assert Fact.objects.get(value="York").status == "active"
    # A turn archived all the same (a person, the maxEntries cap) leaves its facts current: archiving marks turns.
    marks.archive(space, [allergy.pk])
    assert Entry.objects.get(pk=allergy.pk).archived
    assert list(current_facts(space).values_list("value", flat=True).filter(predicate="allergy")) == ["peanuts"]


def test_thresholds_come_from_the_space_settings(space, settings):
    note(space, "a ten day old note about the printer", timezone.now() - timedelta(days=10))
    assert consolidate.plan(space).archives == []
    space.settings = {"consolidateMinAgeDays": 7}
    assert len(consolidate.plan(space).archives) == 1
    settings.MEMORYHUB = {**settings.MEMORYHUB,
                          "SPACE_DEFAULTS": {**settings.MEMORYHUB["SPACE_DEFAULTS"], "consolidateMinAgeDays": 5}}
    space.settings = {}
    assert len(consolidate.plan(space).archives) == 1


def test_preview_changes_nothing_and_a_second_run_plans_nothing(space):
    topic_of_turns(space, days_ago=40)
    note(space, "an old note nobody reads", timezone.now() - timedelta(days=60))
    before = snapshot(space)
    preview = consolidate.plan(space)
    assert not preview.empty and snapshot(space) == before
    consolidate.apply(space)
    assert consolidate.plan(space).empty


def test_undo_restores_the_state_before_the_run(space):
    topic_of_turns(space, days_ago=40)
    note(space, "an old note nobody reads", timezone.now() - timedelta(days=60))
    before = snapshot(space)
    queries = ["alerts.log rotation", "old note"]
    results = [[h.entry_id for h in search.query([space.pk], q)] for q in queries]
    run = consolidate.apply(space)
    assert snapshot(space) != before
    consolidate.undo(run)
    after = [row for row in snapshot(space) if row[0] not in map(int, run.digested)]
    assert after == before
    assert [[h.entry_id for h in search.query([space.pk], q)] for q in queries] == results
    assert ConsolidationRun.objects.get(pk=run.pk).status == "undone"
    assert not consolidate.plan(space).empty


def test_undoing_an_earlier_run_also_undoes_later_ones(space):
    old = note(space, "an old note nobody reads", timezone.now() - timedelta(days=60))
    first = consolidate.apply(space)
    Entry.objects.filter(pk=old.pk).update(archived=False)
    second = consolidate.apply(space)
    consolidate.undo(first)
    assert set(ConsolidationRun.objects.values_list("status", flat=True)) == {"undone"}
    assert {first.pk, second.pk} == set(ConsolidationRun.objects.values_list("pk", flat=True))


def test_digest_uses_the_model_when_one_is_configured(space, settings):
    topic_of_turns(space)
    with FakeLLM([chat_answer("- Rotate alerts.log daily, gzip, 100M cap, mode 0640.")]) as fake:
        settings.MEMORYHUB = {**settings.MEMORYHUB, "LLM_BASE_URL": fake.base_url}
        run = consolidate.apply(space)
    digest = Entry.objects.get(space=space, kind="digest")
    assert run.method == "llm" and "gzip, 100M cap" in digest.body


def test_auto_summarize_off_means_digests_call_no_model(space, settings):
    """#32: `autoSummarize: false` promises zero model calls; the digest of a consolidation still called it."""
    space.settings = {"autoSummarize": False}
    space.save()
    with FakeLLM([chat_answer("- a model's digest")]) as fake:
        settings.MEMORYHUB = {**settings.MEMORYHUB, "LLM_BASE_URL": fake.base_url}
        topic_of_turns(space)
        before = len(fake.requests)
        run = consolidate.apply(space)
        assert len(fake.requests) == before
    digest = Entry.objects.get(space=space, kind="digest")
    assert run.method == "rule" and "a model's digest" not in digest.body and "alerts.log" in digest.body


def old_topics(space, count: int, turns: int = 5) -> None:
    """`count` topics of `turns` different turns each, ended 30 days ago (rows as the worker leaves them)."""
    from memoryhub.memories.models import Topic

    ended = timezone.now() - timedelta(days=30)
    for n in range(count):
        topic = Topic.objects.create(space=space, title=f"topic {n}", started_at=ended - timedelta(hours=1),
                                     ended_at=ended, turn_count=turns)
        said = [" ".join(f"word{n}x{i}x{k}" for k in range(4)) for i in range(turns)]  # no two alike: no merges
        Entry.objects.bulk_create([Entry(space=space, kind="turn", topic=topic, at=ended - timedelta(minutes=i),
                                         body=f"User: {text}", summary=text, content_hash=f"{n}-{i}")
                                   for i, text in enumerate(said)])


def test_planning_costs_the_same_queries_for_three_old_topics_as_for_thirty(space):
    """The plan read each old topic's turns with a query of its own: 32 s for the Maintenance tab at 20,000 entries."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    def queries(topics: int) -> int:
        Entry.objects.filter(space=space).delete()
        old_topics(space, topics)
        with CaptureQueriesContext(connection) as seen:
            plan = consolidate.plan(space)
        assert plan.counts["digests"] == topics
        return len(seen)

    assert queries(3) == queries(30)
