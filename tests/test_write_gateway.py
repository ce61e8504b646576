"""The write gateway: one door that redacts, writes, logs each space's op log to its cap and tells subscribers."""

import json
import os

import pytest
from django.db import transaction

from memoryhub.jobs import registry
from memoryhub.jobs.models import Job
from memoryhub.memories.maintenance import importers
from memoryhub.memories.models import Entry, Kind, OpLog, Source
from memoryhub.memories.native import NativeProvider
from memoryhub.memories.write import events, gateway, marks
from memoryhub.spaces.models import MemorySpace, Workspace
from tests.fakes_llm import FakeLLM, chat_answer

pytestmark = pytest.mark.django_db


@pytest.fixture
def space():
    return MemorySpace.objects.create(slug="gw", name="Gateway")


@pytest.fixture
def heard():
    """Every entries_changed the gateway sends, as (operation, entry ids)."""
    found = []

    def listen(sender, operation, entry_ids, **kwargs):
        found.append((operation, list(entry_ids)))

    events.entries_changed.connect(listen, dispatch_uid="test-heard")
    yield found
    events.entries_changed.disconnect(dispatch_uid="test-heard")


def note(space, body, **fields):
    return gateway.write(space, gateway.Draft(body=body, **fields)).entry


def test_op_logs_of_spaces_written_in_turn_each_keep_their_cap(space, settings):
    settings.MEMORYHUB = {**settings.MEMORYHUB, "OPLOG_KEEP": 20}
    other = MemorySpace.objects.create(slug="gw-other", name="Other")
    for i in range(60):
        note(space, f"first space note {i}")
        note(other, f"second space note {i}")
    for each in (space, other):
        log = list(OpLog.objects.filter(space=each).order_by("id"))
        assert len(log) == 20
        assert [row.seq for row in log] == list(range(41, 61))
        assert log[-1].detail == f"{'first' if each == space else 'second'} space note 59"


def test_an_import_with_a_model_configured_calls_no_model(space, settings, tmp_path):
    space.settings = {"personaEvery": 2}
    space.save()
    path = tmp_path / "s.jsonl"
    path.write_text("\n".join(json.dumps(line) for n in range(5) for line in (
        {"role": "user", "content": f"imported question {n} about the nginx reload", "session_id": "old"},
        {"role": "assistant", "content": f"imported answer {n}", "session_id": "old"})))
    with FakeLLM([chat_answer("a model summary")]) as llm:
        settings.MEMORYHUB = {**settings.MEMORYHUB, "LLM_BASE_URL": llm.base_url, "LLM_MODEL": "m"}
        assert importers.run(space, importers.load(path))["added"] == 5
        assert llm.requests == []
        assert not Job.objects.filter(kind__in=["summarize", "persona_rebuild"]).exists()
        turns = Entry.objects.filter(space=space, kind=Kind.TURN)
        assert turns.count() == 5 and {t.source for t in turns} == {Source.IMPORT}
        assert all("→" in t.summary for t in turns)  # rule summaries keep it findable
        live = gateway.write(space, gateway.Draft(kind=Kind.TURN, user="a live question", assistant="a live answer"))
    assert Job.objects.filter(kind="summarize", params={"entry": live.entry.pk}).count() == 1


def test_every_writer_is_redacted_by_the_gateway_itself(space):
    key = "sk-abcdefghijklmnopqrstuvwxyz123456"
    receipt = NativeProvider(space=space).remember(f"the deploy key is {key}", title="keys", tags=[f"token={key}"])
    entry = Entry.objects.get(pk=int(receipt.provider_id))
    assert key not in entry.body and key not in "".join(entry.tags) and entry.redactions == 2
    turn = gateway.write(space, gateway.Draft(kind=Kind.TURN, user=f"use {key}", assistant="noted")).entry
    assert key not in turn.body + turn.title + turn.summary and turn.redactions == 1
    edited = gateway.edit(entry, body=f"rotated: {key}")
    assert edited.redactions == 1 and key not in Entry.objects.get(pk=entry.pk).body


def test_changes_are_told_to_subscribers_by_their_op_log_name(space, heard):
    a, b = note(space, "Kafka lag on the billing topic"), note(space, "Kafka lag fixed by more partitions")
    gateway.edit(a, body="Kafka lag on the billing topic, again")
    marks.archive(space, [b.pk])
    marks.archive(space, [b.pk], archived=False)
    gateway.link(a, b, "causal", 0.8)
    gateway.forget(a)
    assert heard == [("remember", [a.pk]), ("remember", [b.pk]), ("update", [a.pk]), ("archive", [b.pk]),
                     ("unarchive", [b.pk]), ("link", [a.pk, b.pk]), ("forget", [a.pk])]
    operations = list(OpLog.objects.filter(space=space).order_by("id").values_list("operation", flat=True))
    assert operations == ["remember", "remember", "update", "archive", "unarchive", "link", "forget"]


def test_a_failing_subscriber_undoes_the_write(space):
    def refuse(sender, **kwargs):
        raise RuntimeError("subscriber failed")

    events.entry_written.connect(refuse, dispatch_uid="test-refuse")
    try:
        with pytest.raises(RuntimeError):
            note(space, "never stored")
    finally:
        events.entry_written.disconnect(dispatch_uid="test-refuse")
    assert not Entry.objects.filter(space=space).exists() and not OpLog.objects.filter(space=space).exists()


def test_memory_md_follows_edits_and_forgets(space, tmp_path, django_capture_on_commit_callbacks):
    project = tmp_path / "proj"
    project.mkdir()
    space.workspace = Workspace.objects.create(slug="proj", name="proj", path=str(project), export_memory_md=True)
    space.save()
    target = os.path.join(project, "MEMORY.md")
    with django_capture_on_commit_callbacks(execute=True):
        entry = note(space, "The staging database moved to the new host", title="staging db")
    assert "moved to the new host" in open(target, encoding="utf-8").read()
    with django_capture_on_commit_callbacks(execute=True):
        gateway.edit(entry, body="The staging database is back on the old host")
    assert "back on the old host" in open(target, encoding="utf-8").read()
    with django_capture_on_commit_callbacks(execute=True):
        gateway.forget(entry)
    assert "staging" not in open(target, encoding="utf-8").read()


def test_the_worker_runs_only_registered_work_and_every_schedule_points_at_a_task():
    from django_q.models import Schedule

    schedules = set(Schedule.objects.filter(name__startswith="memoryhub-").values_list("func", flat=True))
    assert len(schedules) == 5 and schedules <= registry.task_paths()
    assert registry.path(registry.TASKS["enrich"]) == "memoryhub.memories.growth.enrich.run"
    assert {"selftest", "persona_rebuild", "summarize", "memory_md", "consolidate"} <= set(registry.JOBS)
    job = Job.objects.create(kind="memory_md", params={"workspace": 0})
    from memoryhub.jobs import runner

    runner.execute(job.pk)
    assert Job.objects.get(pk=job.pk).status == Job.Status.SUCCEEDED


def test_a_repeated_write_inside_an_outer_transaction_is_one_entry(space):
    with transaction.atomic():
        first = gateway.write(space, gateway.Draft(body="same text", idempotency_key="k1"))
        again = gateway.write(space, gateway.Draft(body="other text", idempotency_key="k1"))
    assert first.created and not again.created and again.entry.pk == first.entry.pk
    assert Entry.objects.filter(space=space).count() == 1
