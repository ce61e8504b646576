"""The dashboard's import, export and copy: a Claude Code project's history into its workspace space (then its
topics, facts and recall preview), dry runs that say what is left out and why, downloads with the vault asked for,
and a copy to another engine with its preview, receipts and a removal only after the person confirms."""

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from bench import history
from memoryhub.audit.models import AuditEvent
from memoryhub.jobs.models import Job
from memoryhub.memories.models import CopyReceipt, Entry
from memoryhub.memories.write import gateway
from memoryhub.spaces.models import MemorySpace, Workspace
from memoryhub.spaces.provider_services import save_service
from tests.providers.fakes.mem0 import Mem0Fake

pytestmark = pytest.mark.django_db
HX = {"HTTP_HX_REQUEST": "true"}


def content(response) -> str:
    return b"".join(response.streaming_content).decode() if response.streaming else response.content.decode()


def test_a_claude_code_project_goes_into_its_workspace_with_topics_facts_and_a_recall_preview(client, staff, tmp_path):
    folder = history.claude_code_project(tmp_path / "projects", sessions=2, turns=7, cwd="/home/wang/ledger")
    form = {"path": str(folder), "format": "auto", "by_workspace": "1"}
    dry = client.post("/spaces/default/maintenance/import/", {**form, "action": "dry-run"}, **HX).content.decode()
    assert "Would import 14 new entries" in dry and "a new workspace for /home/wang/ledger" in dry
    assert "The file holds 14 turns of 2 sessions." in dry and "tool calls and tool results" in dry
    assert 'name="by_workspace" value="1"' in dry and not Workspace.objects.exists()
    client.post("/spaces/default/maintenance/import/", {**form, "action": "import"}, **HX)
    job = Job.objects.get(kind="import_history")
    space = MemorySpace.objects.get(workspace__path="/home/wang/ledger", is_default=True)
    assert job.status == "succeeded" and job.result["added"] == 14
    assert AuditEvent.objects.filter(action="space.import", target="default").exists()
    topics = client.get(f"/spaces/{space.slug}/topics/").content.decode()
    assert space.topics.exists() and space.topics.first().title.split(" ")[0] in topics
    facts = client.get(f"/spaces/{space.slug}/facts/").content.decode()
    assert "老王" in facts or "Wang" in facts
    recall = client.get(f"/spaces/{space.slug}/recall/", {"q": "nightly backup"}).content.decode()
    block = recall.split('id="recall-text"')[1].split("</pre>")[0]
    assert "backup" in block and "老王" in block  # who the user is, then what was said about the backup
    job_page = client.get(f"/jobs/{job.pk}/").content.decode()
    assert f"/spaces/{space.slug}/" in job_page


def test_an_uploaded_chatgpt_zip_dry_run_lists_what_is_left_out_and_bad_lines(client, staff, tmp_path):
    MemorySpace.objects.create(slug="m", name="M")
    archive = history.zip_of(tmp_path / "export.zip", {"conversations.json": json.dumps(
        history.chatgpt_conversations(conversations=3, turns=2)).encode(), "chat.html": b"<html/>"})
    upload = SimpleUploadedFile("export.zip", archive.read_bytes())
    html = client.post("/spaces/m/maintenance/import/", {"file": upload, "action": "dry-run"}, **HX).content.decode()
    assert "Would import 6 new entries" in html and "messages on other branches" in html
    assert "files in no format this hub reads" in html
    turns = tmp_path / "turns.jsonl"
    turns.write_text(json.dumps({"session_id": "s", "user": "hi", "assistant": "hello"}) + "\n{oops\n")
    bad = client.post("/spaces/m/maintenance/import/", {"path": str(turns), "action": "dry-run"}, **HX)
    assert "turns.jsonl:2: the line is not valid JSON" in bad.content.decode()
    nothing = tmp_path / "nothing"
    nothing.mkdir()
    refused = client.post("/spaces/m/maintenance/import/", {"path": str(nothing), "action": "dry-run"}, **HX)
    assert "nothing to import in nothing" in refused.content.decode()


def test_a_space_downloads_as_json_lines_or_markdown_and_a_vault_only_when_confirmed(client, staff):
    space = MemorySpace.objects.create(slug="m", name="M")
    gateway.write(space, gateway.Draft(title="Backups", body="Backups go to the NAS"))
    response = client.post("/spaces/m/maintenance/export/", {"format": "jsonl"})
    lines = content(response).splitlines()
    assert response["Content-Disposition"] == 'attachment; filename="m.memoryhub.jsonl"'
    assert json.loads(lines[0])["format"] == "memoryhub.export" and any('"Backups go to the NAS"' in x for x in lines)
    assert AuditEvent.objects.filter(action="space.export", target="m").exists()
    markdown = content(client.post("/spaces/m/maintenance/export/", {"format": "markdown"}))
    assert markdown.startswith("<!-- memoryhub.export markdown v1") and "Backups go to the NAS" in markdown
    vault = MemorySpace.objects.create(slug="diary", name="Diary", access="vault")
    gateway.write(vault, gateway.Draft(body="a private walk"))
    refused = client.post("/spaces/diary/maintenance/export/", {"format": "jsonl"})
    assert refused.status_code == 302 and refused["Location"] == "/spaces/diary/maintenance/"
    confirmed = client.post("/spaces/diary/maintenance/export/", {"format": "jsonl", "confirm_vault": "1"})
    assert "a private walk" in content(confirmed)
    page = client.get("/export/").content.decode()
    assert "Include the vault space" in page and "/spaces/diary/" in page
    everything = content(client.post("/export/", {"format": "jsonl"}))
    assert "Backups go to the NAS" in everything and "a private walk" not in everything
    assert "a private walk" in content(client.post("/export/", {"format": "jsonl", "include_vault": "1"}))


@pytest.fixture
def mem0():
    fake = Mem0Fake()
    save_service("mem0", {"endpoint": fake.url, "apiKey": fake.api_key, "mode": "platform"})
    yield MemorySpace.objects.create(slug="m0", name="Mem0 space", provider="mem0", config={"userId": "alice"})
    fake.stop()


def test_copying_to_another_engine_previews_runs_shows_receipts_and_removes_only_when_confirmed(client, staff, mem0):
    space = MemorySpace.objects.create(slug="m", name="M")
    for n in range(3):
        gateway.write(space, gateway.Draft(title=f"Note {n}", body=f"The NAS is backup-0{n}"))
    assert 'href="/spaces/m/copy/"' in client.get("/spaces/m/").content.decode()
    page = client.get("/spaces/m/copy/").content.decode()
    assert '<option value="m0"' in page and "has not been copied anywhere yet" in page
    preview = client.get("/spaces/m/copy/", {"to": "m0"}).content.decode()
    assert "3 memories would go into Mem0 space" in preview and "Mem0 extracts memories" in preview
    started = client.post("/spaces/m/copy/start/", {"to": "m0"}, **HX).content.decode()
    job = Job.objects.get(kind="space_copy")
    assert job.status == "succeeded" and "3 accepted" in started and 'id="copy-receipts" hx-swap-oob="true"' in started
    assert AuditEvent.objects.filter(action="space.copy", target="m→m0").exists()
    again = client.get("/spaces/m/copy/", {"to": "m0"}).content.decode()
    assert "3 arrived before and are not sent again" in again and 'id="copy-start"' not in again
    unconfirmed = client.post("/spaces/m/copy/forget/", {"to": "m0"}, **HX)
    assert unconfirmed.status_code == 400 and Entry.objects.live().filter(space=space).count() == 3
    client.post("/spaces/m/copy/forget/", {"to": "m0", "confirm": "1"}, **HX)
    assert Entry.objects.live().filter(space=space).count() == 0
    assert CopyReceipt.objects.filter(source_forgotten=True).count() == 3
    assert AuditEvent.objects.filter(action="space.copy_forget").exists()


def test_a_vault_space_offers_only_vault_targets(client, staff, mem0):
    MemorySpace.objects.create(slug="diary", name="Diary", access="vault")
    MemorySpace.objects.create(slug="diary2", name="Diary two", access="vault")
    page = client.get("/spaces/diary/copy/").content.decode()
    assert '<option value="diary2"' in page and '<option value="m0"' not in page
    refused = client.post("/spaces/diary/copy/start/", {"to": "m0"}, **HX)
    assert refused.status_code == 400 and not Job.objects.filter(kind="space_copy").exists()
