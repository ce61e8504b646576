"""Cancellation (seed 000): a CancelScope cancels every HTTP client made inside it, so a call waiting on a provider
or a model is released at once; a person cancels a queued or running job and it stops, saying so."""

import threading
from datetime import timedelta

import pytest
from django.db import connections
from django.utils import timezone

from memoryhub.audit.models import AuditEvent
from memoryhub.core import llm
from memoryhub.core.http import CancelScope, HttpClient, UpstreamError
from memoryhub.jobs import registry, runner
from memoryhub.jobs.models import Job
from memoryhub.memories.maintenance import consolidate
from memoryhub.memories.models import ConsolidationRun, Entry, EntryVector
from memoryhub.memories.write import gateway
from memoryhub.spaces.models import MemorySpace
from tests.fakes_llm import FakeJsonServer, chat_answer


class Stalling(FakeJsonServer):
    """Answers only once `release` is set (or after 10 s): a provider or model that hangs."""

    def __init__(self):
        super().__init__()
        self.release = threading.Event()
        self.arrived = threading.Event()

    def respond(self, body):
        self.arrived.set()
        self.release.wait(10)
        return chat_answer("too late")


def cancel_when_it_waits(server: Stalling, scope: CancelScope) -> threading.Thread:
    """Cancel the scope once the request has reached the server (from another thread, as a job's watcher does)."""
    thread = threading.Thread(target=lambda: server.arrived.wait(10) and scope.cancel(), daemon=True)
    thread.start()
    return thread


def test_cancelling_a_scope_releases_a_request_waiting_on_a_provider():
    with Stalling() as server, CancelScope() as scope:
        client = HttpClient(server.base_url, timeout=8)
        watcher = cancel_when_it_waits(server, scope)
        with pytest.raises(UpstreamError, match="cancelled"):
            client.post("/anything", {"q": 1})
        server.release.set()
        watcher.join()
        with pytest.raises(UpstreamError, match="cancelled"):  # and it takes no new ones
            client.get("/again")


def test_a_client_made_after_the_cancel_is_born_cancelled():
    with CancelScope() as scope:
        scope.cancel()
        client = HttpClient("http://127.0.0.1:9")
        assert client.cancelled
    assert not HttpClient("http://127.0.0.1:9").cancelled  # outside the scope: a client of its own


def test_a_model_call_waiting_in_a_cancelled_scope_stops_retrying():
    with Stalling() as server, CancelScope() as scope:
        client = llm.LLMClient(server.base_url, "m", timeout=8, backoff=0)
        watcher = cancel_when_it_waits(server, scope)
        with pytest.raises(llm.LLMError, match="cancelled"):
            client.complete([{"role": "user", "content": "hi"}])
        server.release.set()
        watcher.join()
    assert len(server.requests) == 1  # cancelled, not retried five times


# --- jobs a person cancels ---------------------------------------------------------------------------------

@pytest.fixture
def waiting_kind():
    """A job kind that reports progress, then waits for the test before its next progress point."""
    started, go, reached = threading.Event(), threading.Event(), []

    def run(job):
        runner.job_progress(job, 10, "started")
        started.set()
        go.wait(10)
        runner.job_progress(job, 50, "half way")
        reached.append(job.pk)
        return {"done": True}

    registry.job("test-wait", "Waits for the test", run)
    yield started, go, reached
    registry.JOBS.pop("test-wait")


def run_in_thread(job: Job) -> threading.Thread:
    """The worker's side: execute the job on a thread of its own (with its own database connection)."""
    def work():
        try:
            runner.execute(job.pk)
        finally:
            connections.close_all()

    thread = threading.Thread(target=work, daemon=True)
    thread.start()
    return thread


@pytest.mark.django_db
def test_a_queued_job_cancelled_never_starts():
    job = Job.objects.create(kind="selftest", params={"steps": 2})
    assert runner.cancel(job)
    runner.execute(job.pk)  # the worker picks it up later
    job.refresh_from_db()
    assert job.status == "cancelled" and job.started_at is None and job.progress == 0
    assert job.message == "cancelled" and job.finished_at is not None
    assert not runner.cancel(job)  # finished: nothing to cancel


@pytest.mark.django_db(transaction=True)
def test_a_running_job_stops_at_its_next_progress_point_and_says_cancelled(waiting_kind):
    started, go, reached = waiting_kind
    job = Job.objects.create(kind="test-wait")
    worker = run_in_thread(job)
    assert started.wait(10)
    assert runner.cancel(job)
    go.set()
    worker.join(10)
    job.refresh_from_db()
    assert job.status == "cancelled" and job.message == "cancelled" and job.progress == 10
    assert reached == [] and job.result == {} and job.error == ""


@pytest.mark.django_db(transaction=True)
def test_a_job_waiting_on_a_provider_is_released_at_once(settings, monkeypatch):
    """The embedding job hangs on its embeddings service; the watcher cancels the request it waits on."""
    monkeypatch.setattr(runner, "WATCH_SECONDS", 0.05)
    space = MemorySpace.objects.create(slug="cars", name="Cars")
    gateway.write(space, gateway.Draft(body="the car needs new tyres"))
    with Stalling() as server:
        settings.MEMORYHUB = {**settings.MEMORYHUB, "EMBEDDINGS_BASE_URL": server.base_url,
                              "EMBEDDINGS_MODEL": "m", "EMBEDDINGS_TIMEOUT": 8}
        job = Job.objects.create(kind="embed", space=space)
        worker = run_in_thread(job)
        assert server.arrived.wait(10)
        assert runner.cancel(job)
        worker.join(10)
        job.refresh_from_db()
        server.release.set()
    assert not worker.is_alive()
    assert job.status == "cancelled" and job.error == "" and not EntryVector.objects.exists()


@pytest.mark.django_db(transaction=True)
def test_a_consolidation_cancelled_half_way_keeps_what_it_did_and_undo_restores_it(settings, monkeypatch):
    monkeypatch.setattr(runner, "WATCH_SECONDS", 0.05)
    space = MemorySpace.objects.create(slug="ops", name="Ops", settings={"autoPersona": False})
    start = timezone.now() - timedelta(days=10)
    for topic in ("nginx", "postgres"):
        for i in range(5):
            gateway.write(space, gateway.Draft(kind="turn", user=f"step {i} of the {topic} migration",
                                               assistant="ok", session_id=topic,
                                               at=start + timedelta(hours=5 if topic == "postgres" else 0, minutes=i)))
    with Stalling() as model:
        settings.MEMORYHUB = {**settings.MEMORYHUB, "LLM_BASE_URL": model.base_url, "LLM_MODEL": "m"}
        job = Job.objects.create(kind="consolidate", space=space)
        worker = run_in_thread(job)
        assert model.arrived.wait(10)  # writing the first digest, waiting on the model
        assert runner.cancel(job)
        worker.join(10)
        model.release.set()
    job.refresh_from_db()
    assert job.status == "cancelled"
    run = ConsolidationRun.objects.get(space=space)
    assert run.counts["stopped"] == 1 and run.counts["digests"] == len(run.digested) == 1
    assert Entry.objects.filter(space=space, kind="digest").count() == 1
    consolidate.undo(run)
    assert not Entry.objects.live().filter(space=space, kind="digest").exists()
    assert not Entry.objects.filter(space=space, digest__isnull=False).exists()


# --- from the dashboard -----------------------------------------------------------------------------------

@pytest.mark.django_db
def test_cancelling_needs_a_login_and_a_post(client):
    job = Job.objects.create(kind="selftest")
    assert client.post(f"/jobs/{job.pk}/cancel").status_code == 302  # to the login page
    assert client.get(f"/jobs/{job.pk}/cancel").status_code in (302, 405)
    job.refresh_from_db()
    assert job.status == "queued"


@pytest.mark.django_db
def test_a_queued_job_is_cancelled_from_the_jobs_table(client, staff):
    job = Job.objects.create(kind="selftest", label="Self test")
    table = client.get("/jobs/").content.decode()
    assert f'action="/jobs/{job.pk}/cancel"' in table
    r = client.post(f"/jobs/{job.pk}/cancel", HTTP_HX_REQUEST="true")
    assert r.status_code == 200 and 'data-status="cancelled"' in r.content.decode()
    assert f'action="/jobs/{job.pk}/cancel"' not in r.content.decode()
    job.refresh_from_db()
    assert job.status == "cancelled"
    assert AuditEvent.objects.filter(action="job.cancel", target=f"job:{job.pk}", actor="alice").exists()
    r = client.post(f"/jobs/{job.pk}/cancel", follow=True)
    assert "This job has already finished." in r.content.decode()


@pytest.mark.django_db(transaction=True)
def test_a_running_job_cancelled_on_its_page_stops_and_its_page_says_cancelled(waiting_kind, client, django_user_model):
    started, go, reached = waiting_kind
    client.force_login(django_user_model.objects.create_user("alice", password="pw", is_staff=True))
    job = Job.objects.create(kind="test-wait", label="Waits for the test")
    worker = run_in_thread(job)
    assert started.wait(10)
    page = client.get(f"/jobs/{job.pk}/").content.decode()
    assert 'data-status="running"' in page and f'action="/jobs/{job.pk}/cancel"' in page
    r = client.post(f"/jobs/{job.pk}/cancel", {"next": "job"}, follow=True)
    assert "cancelling" in r.content.decode()
    go.set()
    worker.join(10)
    page = client.get(f"/jobs/{job.pk}/").content.decode()
    assert 'data-status="cancelled"' in page and "cancelled" in page and reached == []
    assert f'action="/jobs/{job.pk}/cancel"' not in page
