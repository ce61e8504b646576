"""History from the agents and chat apps people use: Claude Code and Codex transcripts, ChatGPT and Claude.ai exports,
the generic turns file; folders and zips; bad lines reported by their place while the rest is imported.

Fixtures: tests/fixtures/imports (Claude Code's and Codex's, shared with the hooks' tests; README.md names the pages
their shapes follow) and bench/history.py's builders, which cite theirs.
"""

import json
import shutil
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from bench import history
from memoryhub.jobs import runner
from memoryhub.jobs.models import Job
from memoryhub.memories.maintenance import importers
from memoryhub.memories.maintenance.importers import claude_code, codex
from memoryhub.memories.models import Entry, Fact, Topic
from memoryhub.memories.write import events
from memoryhub.spaces.models import MemorySpace, Workspace

pytestmark = pytest.mark.django_db
FIXTURES = Path(__file__).parent / "fixtures" / "imports"
SESSION = "5f1c2a9e-3b7d-4c1e-9a2f-8e6d0b4c7a11"


@pytest.fixture
def space():
    return MemorySpace.objects.create(slug="imp", name="Imp")


def command(*args):
    out = StringIO()
    call_command("import_history", *args, stdout=out)
    return json.loads(out.getvalue())


def test_claude_code_transcript_is_read_as_the_stop_hook_reads_it(space):
    batch = importers.load(FIXTURES / "claude-code-transcript.jsonl")
    turns = [(d.idempotency_key, d.user, d.assistant) for d in batch.items]
    assert turns == [
        (f"claude-code:{SESSION}:a1000000-0000-4000-8000-000000000001",
         "Where does the nightly backup of the ledger database go?",
         "It is copied to the NAS at nas:/backups/ledger/ every night at 02:00 (scripts/backup.sh, run by cron)."),
        (f"claude-code:{SESSION}:b1000000-0000-4000-8000-000000000001",
         "Have a sub-agent check that last night's copy is complete.",
         "Last night's copy is complete: 1,204,311 rows on both sides."),
        (f"claude-code:{SESSION}:c1000000-0000-4000-8000-000000000001", "以后备份完成后提醒我一下，叫我老王就行",
         "好的，老王。\n\n备份完成后我会提醒你。"),
    ]
    assert set(batch.workspaces.values()) == {"/home/wang/ledger"} and not batch.errors
    assert batch.skipped[claude_code.TOOLS] == 4 and batch.skipped[claude_code.SIDECHAIN] == 2
    assert batch.skipped[claude_code.OWN] >= 4 and batch.skipped[claude_code.THINKING] == 1
    result = importers.run(space, batch)
    assert result["added"] == 3 and result["sessions"] == 1
    assert Fact.objects.filter(space=space, predicate="nickname", value="老王", status="active").exists()


def test_a_turn_the_hook_archived_live_is_not_written_again_by_an_import(api, space):
    """The hook sends `claude-code:<session>:<prompt uuid>` as the turn's idempotency key; the import uses it too."""
    r = api.turn("Where does the nightly backup of the ledger database go?", "To the NAS.", session_id=SESSION,
                 space="imp", idempotency_key=f"claude-code:{SESSION}:a1000000-0000-4000-8000-000000000001")
    assert r.status_code == 201
    dry = importers.run(space, importers.load(FIXTURES / "claude-code-transcript.jsonl"), dry_run=True)
    assert dry["new"] == 2 and dry["existing"] == 1
    importers.run(space, importers.load(FIXTURES / "claude-code-transcript.jsonl"))
    assert Entry.objects.filter(space=space, kind="turn").count() == 3


def test_a_claude_code_project_folder_goes_into_its_workspace_space(tmp_path):
    folder = history.claude_code_project(tmp_path / "projects", sessions=2, turns=8, cwd="/home/wang/ledger")
    default = MemorySpace.objects.get(slug="default")
    dry = command("default", str(folder), "--by-workspace", "--dry-run")
    assert dry["targets"] == [{"space": "", "name": "", "path": "/home/wang/ledger", "made": True, "new": 16,
                               "turns": 16, "sessions": 2}]
    assert not Workspace.objects.filter(path="/home/wang/ledger").exists()
    result = command("default", str(folder), "--by-workspace")
    workspace = Workspace.objects.get(path="/home/wang/ledger")
    space = MemorySpace.objects.get(workspace=workspace, is_default=True)
    assert result["added"] == 16 and result["targets"][0]["space"] == space.slug
    assert Entry.objects.filter(space=space, kind="turn").count() == 16
    assert not Entry.objects.filter(space=default, kind="turn").exists()
    assert Topic.objects.filter(space=space).exists()
    assert result["skipped"]["sub-agents' messages"] == 2 and result["skipped"]["files in no format this hub reads"] == 1
    assert command("default", str(folder), "--by-workspace")["added"] == 0


def test_codex_rollout_turns_carry_the_hooks_keys_and_the_session_directory(space):
    batch = importers.load(FIXTURES / "codex-rollout.jsonl")
    session = "019a4a3c-5e10-7a42-8c11-2b7d9e0f4a21"
    assert [(d.idempotency_key, d.user, d.assistant) for d in batch.items] == [
        (f"codex:{session}:019a4a3c-7f21-7c10-9b1e-3f0e5d2a0001",
         "Where does the nightly backup of the ledger database go?",
         "It goes to the NAS, nas:/backups/ledger/, every night at 02:00."),
        (f"codex:{session}:019a4a41-0b3c-7d22-8f4a-6c1e2d3b0002", "以后备份完成后提醒我一下，叫我老王就行",
         "好的，老王。备份完成后我会提醒你。")]
    assert batch.workspaces[batch.items[0].idempotency_key] == "/home/wang/ledger"
    assert batch.skipped[codex.WIRE] >= 5 and importers.run(space, batch)["added"] == 2


def test_a_codex_sessions_tree_imports_every_rollout(space, tmp_path):
    root = history.codex_sessions(tmp_path / "sessions", sessions=3, turns=4)
    assert importers.detect(root) == "codex"
    result = importers.run(space, importers.load(root))
    assert result["added"] == 12 and result["sessions"] == 3 and not result["errors"]


def test_codex_prompt_history_is_refused_with_where_the_sessions_are(space, tmp_path):
    path = tmp_path / "history.jsonl"
    path.write_text(json.dumps({"session_id": "019a", "ts": 1764494465, "text": "fix the build"}) + "\n")
    with pytest.raises(CommandError, match=r"prompt history.*~/.codex/sessions"):
        command("imp", str(path))


def test_a_chatgpt_export_given_to_the_command_imports_its_chosen_branches(space, tmp_path):
    """Before: `AttributeError: 'list' object has no attribute 'get'` from the Mnemon reader."""
    path = tmp_path / "conversations.json"
    path.write_text(json.dumps(history.chatgpt_conversations(conversations=3, turns=4)))
    dry = command("imp", str(path), "--dry-run")
    assert dry["turns"] == 12 and dry["sessions"] == 3 and dry["new"] == 12
    assert dry["skipped"]["messages on other branches (edited prompts, regenerated answers)"] == 2
    assert dry["skipped"]["hidden messages (system, custom instructions, context)"] == 3
    assert command("imp", str(path))["added"] == 12
    users = set(Entry.objects.filter(space=space).values_list("body", flat=True))
    assert not any("edited-away" in body or "nobody kept" in body for body in users)
    assert command("imp", str(path))["added"] == 0


def test_a_chatgpt_export_zip_and_a_claude_ai_export_zip(space, tmp_path):
    chatgpt = history.zip_of(tmp_path / "chatgpt.zip", {
        "conversations.json": json.dumps(history.chatgpt_conversations(conversations=2, turns=3)).encode(),
        "chat.html": b"<html></html>", "user.json": b'{"id": "user-1"}', "message_feedback.json": b"[]"})
    claude = history.zip_of(tmp_path / "claude.zip", {
        "conversations.json": json.dumps(history.claude_ai_conversations(conversations=2, turns=3)).encode(),
        "users.json": b'[{"uuid": "u"}]', "projects.json": b"[]"})
    assert importers.detect(chatgpt) == "chatgpt" and importers.detect(claude) == "claude_ai"
    assert importers.run(space, importers.load(chatgpt))["added"] == 6
    result = importers.run(space, importers.load(claude))
    assert result["added"] == 6 and result["sessions"] == 2
    entry = Entry.objects.filter(space=space, provenance__source="claude.ai").first()
    assert entry.provenance["conversation"].startswith("Chat ")


def test_a_claude_ai_branch_follows_the_leaf_the_person_saw(space, tmp_path):
    convo = history.claude_ai_conversations(conversations=1, turns=2)[0]
    first, answer, second, answer2 = convo["chat_messages"]
    retry = {**second, "uuid": "retry", "text": "Asked again, differently", "content": []}
    for m, parent in ((first, None), (answer, first["uuid"]), (second, answer["uuid"]), (retry, answer["uuid"]),
                      (answer2, "retry")):
        m["parent_message_uuid"] = parent
    convo["chat_messages"] = [first, answer, second, retry, answer2]
    convo["current_leaf_message_uuid"] = answer2["uuid"]
    path = tmp_path / "conversations.json"
    path.write_text(json.dumps([convo]))
    batch = importers.load(path)
    assert [d.user for d in batch.items] == [first["text"], "Asked again, differently"]


def test_the_generic_turns_file_reports_bad_lines_by_number_and_imports_the_rest(space, tmp_path):
    path = history.turns_file(tmp_path / "turns.jsonl", sessions=1, turns=3)
    lines = path.read_text().splitlines()
    lines.insert(1, json.dumps({"session_id": "s0", "user": "hi", "assitant": "typo"}))
    lines.insert(2, '{"session_id": "s0", "user": "half \\ud800 a pair", "assistant": "ok"}')
    lines.insert(3, "{not json")
    path.write_text("\n".join(lines) + "\n")
    result = importers.run(space, importers.load(path))
    assert result["added"] == 3 and result["error_count"] == 3
    assert result["errors"][0].startswith("turns.jsonl:2: unknown field 'assitant'")
    assert result["errors"][1].startswith("turns.jsonl:3: contains U+D800")
    assert result["errors"][2] == "turns.jsonl:4: the line is not valid JSON"
    assert importers.run(space, importers.load(path))["added"] == 0


def test_one_lone_surrogate_no_longer_fails_a_whole_import(space, tmp_path):
    """Before: the surrogate reached SQLite (UnicodeEncodeError) and the import failed with nothing written."""
    path = tmp_path / "s.jsonl"
    path.write_text("\n".join([
        json.dumps({"role": "user", "content": "first question"}), json.dumps({"role": "assistant", "content": "one"}),
        '{"role": "user", "content": "bad \\udc80 text"}', json.dumps({"role": "assistant", "content": "two"}),
        json.dumps({"role": "user", "content": "third question"}),
        json.dumps({"role": "assistant", "content": "three"})]))
    result = importers.run(space, importers.load(path))
    assert result["added"] == 2 and result["errors"] == ["s.jsonl:3: contains U+DC80, which is not allowed in text "
                                                          "(NUL, a lone surrogate or a non-character) (at content)"]
    bodies = set(Entry.objects.filter(space=space).values_list("body", flat=True))
    assert "User: first question\n\nAssistant: one\n\ntwo" in bodies  # the bad prompt's answer stays with the turn


def test_a_sessions_folder_imports_its_logs(space, tmp_path):
    """Before: a folder was taken for a Mnemosyne data directory and imported 0 turns without a word."""
    folder = tmp_path / "sessions"
    folder.mkdir()
    for n in range(3):
        (folder / f"s{n}.jsonl").write_text("\n".join(json.dumps(x) for x in [
            {"role": "user", "content": f"question {n}", "session_id": f"s{n}"},
            {"role": "assistant", "content": f"answer {n}", "session_id": f"s{n}"}]))
    (folder / "notes.txt").write_text("not a log")
    result = importers.run(space, importers.load(folder))
    assert result["added"] == 3 and result["skipped"] == {"files in no format this hub reads": 1}


def test_a_path_with_nothing_to_import_says_so(space, tmp_path):
    (tmp_path / "empty").mkdir()
    (tmp_path / "odd").mkdir()
    (tmp_path / "odd" / "a.txt").write_text("hello")
    with pytest.raises(CommandError, match="nothing to import in empty: no file in a format this hub reads"):
        command("imp", str(tmp_path / "empty"))
    with pytest.raises(CommandError, match=r"looked at a.txt"):
        command("imp", str(tmp_path / "odd"))
    odd = tmp_path / "odd.json"
    odd.write_text('{"hello": "world"}')
    with pytest.raises(CommandError, match=r"in no format this hub reads.*session_id"):
        command("imp", str(odd))


def test_a_forced_format_that_does_not_fit_names_the_one_that_does(space, tmp_path):
    path = tmp_path / "conversations.json"
    path.write_text(json.dumps(history.chatgpt_conversations(conversations=1, turns=1)))
    with pytest.raises(CommandError, match=r"not a Mnemon import file; it looks like ChatGPT export .*format chatgpt"):
        command("imp", str(path), "--format", "mnemon_json")


def test_the_import_job_stops_when_cancelled_and_a_second_run_adds_the_rest(space, tmp_path):
    path = history.turns_file(tmp_path / "turns.jsonl", sessions=3, turns=100)  # three write batches

    def cancel_after_the_first_batch(sender, space, **kwargs):
        Job.objects.filter(kind="import_history", status="running").update(cancel_requested_at="2026-01-01T00:00Z")

    events.entries_changed.connect(cancel_after_the_first_batch, dispatch_uid="test-cancel")
    try:
        job = runner.enqueue("import_history", space=space, params={"path": str(path), "format": "auto"})
    finally:
        events.entries_changed.disconnect(dispatch_uid="test-cancel")
    job.refresh_from_db()
    assert job.status == "cancelled"
    assert Entry.objects.filter(space=space).count() == 100
    again = runner.enqueue("import_history", space=space, params={"path": str(path), "format": "auto"})
    again.refresh_from_db()
    assert again.status == "succeeded", again.error
    assert (again.result["added"], again.result["existing"]) == (200, 100), again.result


def test_a_deep_copy_of_the_hooks_fixture_in_a_zip_is_read_the_same(space, tmp_path):
    shutil.copy(FIXTURES / "claude-code-transcript.jsonl", tmp_path / f"{SESSION}.jsonl")
    archive = history.zip_of(tmp_path / "projects.zip",
                             {f"-home-wang-ledger/{SESSION}.jsonl": (tmp_path / f"{SESSION}.jsonl").read_bytes()})
    assert [d.user for d in importers.load(archive).items] == [d.user for d in
                                                               importers.load(tmp_path / f"{SESSION}.jsonl").items]


def test_a_session_whose_directory_is_no_path_here_goes_into_the_chosen_space(space, tmp_path):
    folder = history.claude_code_project(tmp_path / "projects", sessions=1, turns=2, cwd="C:\\Users\\wang\\ledger")
    result = importers.run(space, importers.load(folder), by_workspace=True)
    assert result["added"] == 2 and result["targets"][0]["space"] == "imp" and not Workspace.objects.exists()
