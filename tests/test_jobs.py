"""Jobs: a row per background task, progress, failure recorded, retry, stale workers."""

from datetime import timedelta

import pytest
from django.utils import timezone

from memoryhub.jobs import registry, runner
from memoryhub.jobs.models import Job

pytestmark = pytest.mark.django_db


def boom(job):
    raise RuntimeError("provider went away")


@pytest.fixture
def failing_kind():
    registry.job("boom", "Always fails", boom)
    yield "boom"
    registry.JOBS.pop("boom")


def test_a_job_runs_and_reports_progress():
    job = runner.enqueue("selftest", params={"steps": 4})
    job.refresh_from_db()
    assert job.status == "succeeded" and job.progress == 100
    assert job.result == {"steps": 4} and job.started_at and job.finished_at and job.task_id


def test_a_failing_job_is_marked_failed_with_its_error_and_can_be_retried(failing_kind):
    job = runner.enqueue(failing_kind)
    job.refresh_from_db()
    assert job.status == "failed" and job.error == "RuntimeError: provider went away"
    again = runner.retry(job)
    assert again.pk != job.pk and again.kind == "boom"


def test_unknown_kind_is_refused():
    with pytest.raises(KeyError):
        runner.enqueue("nope")


def test_a_job_whose_worker_died_is_marked_failed():
    job = Job.objects.create(kind="selftest", status="running", heartbeat_at=timezone.now() - timedelta(hours=1))
    fresh = Job.objects.create(kind="selftest", status="running", heartbeat_at=timezone.now())
    assert runner.fail_stale(900) == 1
    job.refresh_from_db()
    fresh.refresh_from_db()
    assert job.status == "failed" and "retry" in job.error and fresh.status == "running"
