"""The jobs page: every job with state and progress, polling while work is pending, retry, self test."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from memoryhub.audit.models import AuditEvent
from memoryhub.jobs import registry, runner
from memoryhub.jobs.models import Job
from memoryhub.spaces.workspaces import default_space

pytestmark = pytest.mark.django_db

HX = {"HX-Request": "true"}


def boom(job):
    raise RuntimeError("provider went away")


@pytest.fixture
def failing_kind():
    registry.job("dash-boom", "Always fails", boom)
    yield "dash-boom"
    registry.JOBS.pop("dash-boom")


def test_jobs_page_requires_login(client):
    assert client.get(reverse("dashboard:jobs")).status_code == 302
    assert client.post(reverse("dashboard:job_selftest")).status_code == 302
    assert not Job.objects.exists()


def test_empty_state_says_what_to_do(client, staff):
    r = client.get(reverse("dashboard:jobs"))
    assert r.status_code == 200 and "No jobs yet" in r.content.decode()


def test_lists_jobs_with_space_state_progress_duration_and_error(client, staff, failing_kind):
    now = timezone.now()
    Job.objects.create(kind="persona_rebuild", label="Persona rebuild", space=default_space(), status="succeeded",
                       progress=100, started_at=now - timedelta(seconds=3), finished_at=now)
    runner.enqueue(failing_kind)
    html = client.get(reverse("dashboard:jobs")).content.decode()
    assert "Persona rebuild" in html and "<code>default</code>" in html and "3.0 s" in html
    assert "RuntimeError: provider went away" in html
    assert 'aria-valuenow="100"' in html and "succeeded" in html and "failed" in html


def test_table_polls_only_while_a_job_is_queued_or_running(client, staff):
    Job.objects.create(kind="selftest", status="succeeded", progress=100)
    r = client.get(reverse("dashboard:jobs"), headers=HX)
    assert "<html" not in r.content.decode() and 'id="job-table"' in r.content.decode()
    assert 'hx-trigger="every 1s"' not in r.content.decode()
    running = Job.objects.create(kind="selftest", status="running", progress=40, started_at=timezone.now(),
                                 heartbeat_at=timezone.now())
    r = client.get(reverse("dashboard:jobs"), headers=HX)
    assert 'hx-trigger="every 1s"' in r.content.decode() and 'aria-valuenow="40"' in r.content.decode()
    Job.objects.filter(pk=running.pk).update(status="succeeded", progress=100)
    assert 'hx-trigger="every 1s"' not in client.get(reverse("dashboard:jobs"), headers=HX).content.decode()


def test_boosted_request_gets_the_full_page(client, staff):
    r = client.get(reverse("dashboard:jobs"), headers={**HX, "HX-Boosted": "true"})
    assert "<html" in r.content.decode()


def test_loading_the_page_fails_jobs_whose_worker_died(client, staff):
    job = Job.objects.create(kind="selftest", status="running", started_at=timezone.now() - timedelta(hours=1),
                             heartbeat_at=timezone.now() - timedelta(hours=1))
    html = client.get(reverse("dashboard:jobs")).content.decode()
    job.refresh_from_db()
    assert job.status == "failed" and "the worker stopped" in html
    assert reverse("dashboard:job_retry", args=[job.pk]) in html


def test_self_test_button_enqueues_and_runs_the_selftest_job(client, staff):
    r = client.post(reverse("dashboard:job_selftest"), headers=HX)
    job = Job.objects.get()
    assert job.kind == "selftest" and job.status == "succeeded" and job.progress == 100
    assert job.created_by == staff
    assert r.status_code == 200 and f'id="job-{job.pk}"' in r.content.decode()
    assert AuditEvent.objects.filter(action="job.enqueue").exists()


def test_self_test_without_htmx_redirects_to_the_page(client, staff):
    r = client.post(reverse("dashboard:job_selftest"))
    assert r.status_code == 302 and r["Location"] == reverse("dashboard:jobs")


def test_retry_runs_a_failed_job_again_as_a_new_row(client, staff, failing_kind):
    job = runner.enqueue(failing_kind)
    r = client.post(reverse("dashboard:job_retry", args=[job.pk]), headers=HX)
    assert r.status_code == 200
    assert Job.objects.filter(kind=failing_kind).count() == 2
    event = AuditEvent.objects.get(action="job.retry")
    assert event.target == f"job:{job.pk}"


def test_only_failed_jobs_can_be_retried(client, staff):
    job = runner.enqueue("selftest")
    r = client.post(reverse("dashboard:job_retry", args=[job.pk]), follow=True)
    assert "Only failed jobs can be retried" in r.content.decode()
    assert Job.objects.count() == 1
    assert client.post(reverse("dashboard:job_retry", args=[9999])).status_code == 404
    assert client.get(reverse("dashboard:job_retry", args=[job.pk])).status_code == 405


def test_retry_enforces_csrf(staff, failing_kind):
    job = runner.enqueue(failing_kind)
    csrf_client = Client(enforce_csrf_checks=True)
    csrf_client.force_login(staff)
    assert csrf_client.post(reverse("dashboard:job_retry", args=[job.pk])).status_code == 403
    assert Job.objects.count() == 1


def test_durations_under_a_second_read_in_milliseconds_and_the_wait_is_shown(client, staff):
    now = timezone.now()
    job = Job.objects.create(kind="selftest", label="Self test", status="succeeded", progress=100,
                             created_at=now - timedelta(seconds=2), started_at=now - timedelta(milliseconds=40),
                             finished_at=now)
    assert "40 ms" in client.get(reverse("dashboard:jobs")).content.decode()
    page = client.get(reverse("dashboard:job", args=[job.pk])).content.decode()
    assert '<dd id="job-duration">40 ms</dd>' in page and '<dd id="job-waited">2.0 s</dd>' in page


def test_a_job_page_shows_its_log_and_result_and_rows_link_to_it(client, staff):
    job = runner.enqueue("selftest", params={"steps": 3})
    assert reverse("dashboard:job", args=[job.pk]) in client.get(reverse("dashboard:jobs")).content.decode()
    page = client.get(reverse("dashboard:job", args=[job.pk])).content.decode()
    assert [line["message"] for line in Job.objects.get(pk=job.pk).log] == ["step %(step)d of %(steps)d"] * 3
    assert page.count("step 3 of 3") == 2 and "step 1 of 3" in page  # the latest message, and the log
    assert "The worker walked 3 steps" in page and 'hx-trigger="every 1s"' not in page


def test_a_failed_job_page_shows_the_error_and_a_retry(client, staff, failing_kind):
    job = runner.enqueue(failing_kind)
    page = client.get(reverse("dashboard:job", args=[job.pk])).content.decode()
    assert "RuntimeError: provider went away" in page and reverse("dashboard:job_retry", args=[job.pk]) in page
    assert client.get(reverse("dashboard:job", args=[9999])).status_code == 404


def test_a_running_job_page_polls_itself(client, staff):
    job = Job.objects.create(kind="selftest", status="running", started_at=timezone.now(),
                             heartbeat_at=timezone.now())
    runner.job_progress(job, 30, "step 1 of 3")
    r = client.get(reverse("dashboard:job", args=[job.pk]), headers=HX)
    assert "<html" not in r.content.decode() and 'hx-trigger="every 1s"' in r.content.decode()
    assert 'aria-valuenow="30"' in r.content.decode()



def test_job_messages_and_labels_read_in_chinese(client, staff):
    job = runner.enqueue("selftest", params={"steps": 2})
    client.post(reverse("set_language"), {"language": "zh-hans"})
    page = client.get(reverse("dashboard:job", args=[job.pk])).content.decode()
    assert "自检" in page and "第 2 步，共 2 步" in page and "step 2 of 2" not in page
