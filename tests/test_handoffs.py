"""Durable tasks (registry.task(..., durable=True)): a hand-off the broker did not take is sent again by
dispatch_lost, as a lost job is; the work it stands for is never lost to a Redis that was down."""

from datetime import timedelta

import pytest
from django.utils import timezone
from memoryhub.jobs import registry, runner
from memoryhub.jobs.models import Handoff
from memoryhub.memories.models import Fact
from memoryhub.spaces.models import MemorySpace
from tests.answers import result

pytestmark = pytest.mark.django_db


def worker_back(monkeypatch):
    """The broker answers again and the worker runs what it is given (here at once), a minute later."""
    monkeypatch.undo()
    Handoff.objects.update(created_at=timezone.now() - runner.LOST_AFTER - timedelta(seconds=1))


def test_a_vaults_facts_are_learned_once_redis_is_back(api, redis_down, django_capture_on_commit_callbacks,
                                                      caplog):
    vault = MemorySpace.objects.create(slug="safe", name="Safe", access="vault")
    with django_capture_on_commit_callbacks(execute=True):
        result(api.turn("Call me Bob", "ok", space="safe"), 201)
    assert not Fact.objects.filter(space=vault).exists()
    assert list(Handoff.objects.values_list("name", "task_id")) == [("vault_facts", "")]
    assert "sent again once it does" in caplog.text

    worker_back(redis_down)
    assert runner.dispatch_lost() == 1
    assert list(Fact.objects.filter(space=vault).values_list("predicate", "value")) == [("nickname", "Bob")]
    assert not Handoff.objects.exists()
    assert runner.dispatch_lost() == 0  # learned once


def test_a_hand_off_younger_than_a_minute_waits_for_its_own_send(api, redis_down, django_capture_on_commit_callbacks):
    MemorySpace.objects.create(slug="safe", name="Safe", access="vault")
    with django_capture_on_commit_callbacks(execute=True):
        result(api.turn("Call me Bob", "ok", space="safe"), 201)
    assert runner.dispatch_lost() == 0 and Handoff.objects.count() == 1


def test_a_failed_durable_task_keeps_its_reason_and_is_not_sent_again(redis_down,
                                                                      django_capture_on_commit_callbacks):
    def fails(n):
        raise RuntimeError(f"no such thing as {n}")

    registry.task("fails", fails, durable=True)
    try:
        with django_capture_on_commit_callbacks(execute=True):
            runner.submit("fails", 7)
        worker_back(redis_down)
        with pytest.raises(RuntimeError):
            runner.dispatch_lost()  # the worker's run raises, as django-q2 records it
        assert list(Handoff.objects.values_list("name", "args", "error")) == [
            ("fails", [7], "RuntimeError: no such thing as 7")]
        assert runner.dispatch_lost() == 0
    finally:
        registry.TASKS.pop("fails")
        registry.DURABLE.discard("fails")
