"""The maintenance page: plan preview, apply as a job, undo, gc keep, import dry run then job, packs, re-tag."""

import json
from datetime import timedelta

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.utils import timezone

from memoryhub.jobs.models import Job
from memoryhub.memories.write import gateway
from memoryhub.memories.models import ConsolidationRun, Entry, OpLog
from memoryhub.spaces.models import MemorySpace

pytestmark = pytest.mark.django_db
HX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture
def space():
    space = MemorySpace.objects.create(slug="m", name="M")
    gateway.write(space, gateway.Draft(body="an old note nobody reads", at=timezone.now() - timedelta(days=60),
                                   importance=2))
    return space


def test_page_needs_login_and_shows_the_plan_without_changing_anything(client, space, staff):
    page = client.get("/spaces/m/maintenance/")
    assert page.status_code == 200
    html = page.content.decode()
    assert "an old note nobody reads" in html and "Apply" in html
    assert not Entry.objects.filter(archived=True).exists()
    client.logout()
    assert client.get("/spaces/m/maintenance/").status_code == 302


def test_apply_runs_a_job_with_progress_and_undo_restores(client, space, staff):
    response = client.post("/spaces/m/maintenance/consolidate/", **HX)
    job = Job.objects.get(kind="consolidate")
    assert job.status == "succeeded" and job.progress == 100 and "<progress" in response.content.decode()
    assert Entry.objects.filter(archived=True).count() == 1
    assert "Nothing to consolidate" in client.get("/spaces/m/maintenance/").content.decode()
    run = ConsolidationRun.objects.get()
    client.post(f"/spaces/m/maintenance/consolidate/{run.pk}/undo/", **HX)
    assert not Entry.objects.filter(archived=True).exists()
    poll = client.get(f"/spaces/m/maintenance/jobs/{job.pk}/", **HX)
    assert poll.status_code == 200 and "every 1s" not in poll.content.decode()


def test_gc_keep_from_the_page(client, space, staff):
    entry = Entry.objects.get()
    response = client.post(f"/spaces/m/maintenance/gc/{entry.pk}/keep/", **HX)
    assert response.status_code == 200 and "Kept" in response.content.decode()
    entry.refresh_from_db()
    assert entry.hits == 3 and OpLog.objects.filter(operation="gc_keep").exists()


def test_viewing_the_page_counts_no_access_and_logs_no_recall(client, space, staff):
    client.get("/spaces/m/maintenance/")
    assert Entry.objects.get().hits == 0 and not OpLog.objects.filter(operation="recall").exists()


def test_import_dry_run_then_job_then_reimport_adds_nothing(client, space, staff):
    lines = "\n".join(json.dumps(x) for x in [
        {"role": "user", "content": "how do I rotate alerts.log?", "session_id": "u1"},
        {"role": "assistant", "content": "use logrotate", "session_id": "u1"}])
    upload = SimpleUploadedFile("u1.jsonl", lines.encode())
    dry = client.post("/spaces/m/maintenance/import/", {"file": upload, "format": "auto", "action": "dry-run"}, **HX)
    html = dry.content.decode()
    assert "Would import 1 new" in html and "how do I rotate alerts.log?" in html
    assert Entry.objects.filter(kind="turn").count() == 0
    source = html.split('name="path" value="')[1].split('"')[0]
    client.post("/spaces/m/maintenance/import/", {"path": source, "format": "auto", "action": "import"}, **HX)
    job = Job.objects.get(kind="import_history")
    assert job.status == "succeeded" and job.result["added"] == 1
    again = client.post("/spaces/m/maintenance/import/", {"file": SimpleUploadedFile("u1.jsonl", lines.encode()),
                                                          "action": "dry-run"}, **HX)
    assert "Would import 0 new" in again.content.decode()


def test_import_without_a_source_says_so(client, space, staff):
    response = client.post("/spaces/m/maintenance/import/", {"path": "/no/such/file", "action": "dry-run"}, **HX)
    assert "msg-error" in response.content.decode()


def test_pack_export_and_import_through_the_dashboard(client, space, staff):
    response = client.get("/spaces/m/maintenance/pack/")
    assert response["Content-Type"] == "application/gzip"
    upload = SimpleUploadedFile("m.tar.gz", response.content)
    after = client.post("/packs/import/", {"pack": upload, "slug": "copy"})
    assert after.status_code == 302 and after["Location"] == "/spaces/copy/maintenance/"
    assert Entry.objects.filter(space__slug="copy").count() == 1


def test_retag_preview_then_apply(client, space, staff):
    gateway.write(space, gateway.Draft(body="hi from the group", session_id="qq-1"))
    sessions = json.dumps({"group:1": {"sessionId": "qq-1", "chatType": "group", "senderId": "7"}}).encode()
    preview = client.post("/spaces/m/maintenance/retag/", {"file": SimpleUploadedFile("sessions.json", sessions),
                                                           "origin": "qq", "action": "preview"}, **HX)
    html = preview.content.decode()
    assert "1 entry would be re-tagged" in html and Entry.objects.filter(origin="qq").count() == 0
    source = html.split('name="path" value="')[1].split('"')[0]
    client.post("/spaces/m/maintenance/retag/", {"path": source, "origin": "qq", "action": "apply"}, **HX)
    assert Entry.objects.get(session_id="qq-1").origin == "qq"


def test_third_party_spaces_have_no_maintenance_page(client, staff):
    MemorySpace.objects.create(slug="remote", name="R", provider="mem0")
    assert client.get("/spaces/remote/maintenance/").status_code == 404


def test_apply_answers_with_a_sentence_and_a_fresh_plan_out_of_band(client, space, staff):
    archived = Entry.objects.get()
    html = client.post("/spaces/m/maintenance/consolidate/", **HX).content.decode()
    assert "run=" not in html and "archived=1" not in html
    assert "Archived 1 entry nobody recalls" in html and "/spaces/m/?archived=only" in html
    plan = html.split('<div id="consolidation-plan"')[1].split("</div>")[0]
    assert 'hx-swap-oob="true"' in plan and "Nothing to consolidate" in plan and "consolidate-apply" not in plan
    assert 'id="consolidation-runs" hx-swap-oob="true"' in html and f"#{archived.pk}" not in plan
    run = ConsolidationRun.objects.get()
    assert f'id="run-{run.pk}"' in html


def test_while_a_consolidation_runs_the_plan_has_no_apply_and_a_second_apply_joins_it(client, space, staff):
    job = Job.objects.create(kind="consolidate", space=space, status="running", started_at=timezone.now(),
                             heartbeat_at=timezone.now())
    page = client.get("/spaces/m/maintenance/").content.decode()
    assert "consolidate-apply" not in page and f'id="job-{job.pk}"' in page and "A consolidation is running" in page
    again = client.post("/spaces/m/maintenance/consolidate/", **HX).content.decode()
    assert Job.objects.filter(kind="consolidate").count() == 1 and f'id="job-{job.pk}"' in again
    assert 'hx-trigger="every 1s"' in again and not ConsolidationRun.objects.exists()


def test_the_maintenance_page_keeps_the_space_tabs(client, space, staff):
    html = client.get("/spaces/m/maintenance/").content.decode()
    tabs = html.split('aria-label="Space sections"')[1].split("</nav>")[0]
    assert 'href="/spaces/m/"' in tabs and 'href="/spaces/m/facts/"' in tabs
    assert 'href="/spaces/m/maintenance/" aria-current="page"' in tabs


def test_polling_a_running_job_sends_only_its_progress(client, space, staff):
    job = Job.objects.create(kind="consolidate", space=space, status="running", started_at=timezone.now(),
                             heartbeat_at=timezone.now())
    poll = client.get(f"/spaces/m/maintenance/jobs/{job.pk}/", **HX).content.decode()
    assert f'id="job-{job.pk}"' in poll and "hx-swap-oob" not in poll
    Job.objects.filter(pk=job.pk).update(status="succeeded", finished_at=timezone.now())
    done = client.get(f"/spaces/m/maintenance/jobs/{job.pk}/", **HX).content.decode()
    assert 'id="consolidation-plan" aria-live="polite" hx-swap-oob="true"' in done and "every 1s" not in done


@pytest.fixture
def served_by_a_worker(monkeypatch):
    """Jobs wait for a worker, as served (the tests otherwise run every job at once)."""
    from django_q.conf import Conf

    monkeypatch.setattr(Conf, "SYNC", False)


def test_the_page_asks_the_worker_for_the_plan_and_shows_it_once_it_is_worked_out(client, space, staff,
                                                                                     served_by_a_worker):
    """The page itself never plans: planning took 5.9 s at 5,000 entries and 32 s at 20,000, on every load."""
    from memoryhub.jobs import runner

    html = client.get("/spaces/m/maintenance/").content.decode()
    job = Job.objects.get(kind="consolidation_preview")
    assert job.status == "queued" and "Working out the plan" in html and "an old note nobody reads" not in html
    assert f'hx-get="/spaces/m/maintenance/jobs/{job.pk}/"' in html
    runner.execute(job.pk)  # the worker
    poll = client.get(f"/spaces/m/maintenance/jobs/{job.pk}/", **HX).content.decode()
    assert "an old note nobody reads" in poll and "consolidate-apply" in poll and "every 1s" not in poll
    assert 'id="gc" hx-swap-oob="true"' in poll
    again = client.get("/spaces/m/maintenance/").content.decode()
    assert "an old note nobody reads" in again and "changed since" not in again
    assert Job.objects.filter(kind="consolidation_preview").count() == 1  # still current: nothing new queued


def test_a_change_to_the_space_shows_the_plan_as_stale_until_the_next_one_replaces_it(client, space, staff,
                                                                                      served_by_a_worker):
    from memoryhub.jobs import runner

    client.get("/spaces/m/maintenance/")
    first = Job.objects.get(kind="consolidation_preview")
    runner.execute(first.pk)
    gateway.write(space, gateway.Draft(body="another old note", at=timezone.now() - timedelta(days=90)))
    html = client.get("/spaces/m/maintenance/").content.decode()
    assert "changed since this plan was worked out" in html and "an old note nobody reads" in html
    second = Job.objects.filter(kind="consolidation_preview").exclude(pk=first.pk).get()
    assert second.status == "queued"
    runner.execute(second.pk)
    fresh = client.get("/spaces/m/maintenance/").content.decode()
    assert "another old note" in fresh and "changed since" not in fresh
    assert list(Job.objects.filter(kind="consolidation_preview").values_list("pk", flat=True)) == [second.pk]


def test_a_failed_plan_says_so_and_the_next_load_tries_again(client, space, staff, served_by_a_worker):
    Job.objects.create(kind="consolidation_preview", space=space, status="failed", error="ValueError: boom",
                       finished_at=timezone.now())
    html = client.get("/spaces/m/maintenance/").content.decode()
    assert Job.objects.filter(kind="consolidation_preview", status="queued").count() == 1
    assert "Working out the plan" in html


def test_polling_a_plan_that_failed_shows_why_and_queues_no_other(client, space, staff, served_by_a_worker):
    client.get("/spaces/m/maintenance/")
    job = Job.objects.get(kind="consolidation_preview")
    Job.objects.filter(pk=job.pk).update(status="failed", error="ValueError: boom", finished_at=timezone.now())
    poll = client.get(f"/spaces/m/maintenance/jobs/{job.pk}/", **HX).content.decode()
    assert "could not be worked out" in poll and "every 1s" not in poll
    assert Job.objects.filter(kind="consolidation_preview").count() == 1
