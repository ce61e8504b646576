"""The open export: JSON lines versioned in the first line, round-tripping through import without loss; Markdown to
read; vault spaces only when a person confirms; no secret ever in the file."""

import json
from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from memoryhub.agents.models import ApiToken
from memoryhub.memories.facts import slots
from memoryhub.memories.maintenance import importers, open_export
from memoryhub.memories.models import Edge, Entry, Kind, Topic
from memoryhub.memories.write import gateway, marks
from memoryhub.spaces.models import MemorySpace
from memoryhub.spaces.provider_services import save_service

pytestmark = pytest.mark.django_db
SECRET = "sk-proj-" + "Zq7" * 12


@pytest.fixture
def space():
    """A space with a bit of everything: two sessions of turns (topics, facts said in them), notes with tags, a
    link, an archived and a merged entry, a replaced fact, an imported memory's provenance, a forgotten entry."""
    space = MemorySpace.objects.create(slug="src", name="Source", description="what we keep")
    for session, said in (("s1", ["以后叫我老王", "Where does the nightly backup go?"]),
                          ("s2", ["Call me Wang Lei from now on", "I prefer Python over Go."])):
        for n, user in enumerate(said):
            gateway.write(space, gateway.Draft(kind=Kind.TURN, user=user, assistant=f"ok {n}", session_id=session))
    a = gateway.write(space, gateway.Draft(title="Backups", body="Backups go to the NAS at 02:00", category="decision",
                                           tags=["nas", "ops"])).entry
    b = gateway.write(space, gateway.Draft(title="NAS", body="The NAS is backup-01", category="fact",
                                           provenance={"source": "mem0", "id": "m-1"})).entry
    c = gateway.write(space, gateway.Draft(body="The NAS is backup-01, in rack 2")).entry
    gateway.link(a, b, "causal", 0.8, actor="alice", reason="where")
    marks.archive(space, [c.pk])
    marks.merge(space, [c.pk], b.pk)
    gateway.forget(gateway.write(space, gateway.Draft(body="a forgotten thing")).entry)
    slots.assert_fact(space, "user", "language", "zh")
    return space


def exported(*spaces, include_vault=False) -> list[dict]:
    return [json.loads(line) for line in open_export.jsonl(list(spaces))]


def normalised(records: list[dict]) -> list[dict]:
    """The memories' records (not the header or the space's own description) with every id replaced by its record's
    place in the file and the space's slug left out, so two exports of the same memories compare equal."""
    place = {kind: {} for kind in ("entry", "topic", "fact")}
    for r in records:
        if r.get("type") in place:
            place[r["type"]][r["id"]] = len(place[r["type"]])
    refs = {"digest": "entry", "merged_into": "entry", "topic": "topic", "source_entry": "entry",
            "invalidated_by": "fact", "source": "entry", "target": "entry"}
    out = []
    for r in records[1:]:
        if r["type"] == "space":
            continue
        r = {k: v for k, v in r.items() if k not in ("space", "slug")}
        if r["type"] in place:
            r["id"] = place[r["type"]][r["id"]]
        for key, kind in refs.items():
            if r["type"] != "space" and isinstance(r.get(key), int):
                r[key] = place[kind].get(r[key])
        out.append(r)
    return out


def test_a_space_round_trips_through_its_export_without_loss(space, tmp_path):
    first = exported(space)
    assert first[0]["format"] == "memoryhub.export" and first[0]["version"] == 1 and first[0]["spaces"] == ["src"]
    kinds = [r["type"] for r in first[1:]]
    assert kinds.count("entry") == 7 and "topic" in kinds and "fact" in kinds and "link" in kinds
    assert not any(r.get("body") == "a forgotten thing" for r in first)
    path = tmp_path / "src.jsonl"
    path.write_text("".join(open_export.jsonl([space])), encoding="utf-8")
    copy = MemorySpace.objects.create(slug="copy", name="Source")
    assert importers.detect(path) == "memoryhub"
    result = importers.run(copy, importers.load(path))
    assert result["added"] == 7 and result["error_count"] == 0
    assert normalised(exported(copy)) == normalised(first)
    assert Edge.objects.filter(source__space=copy, edge_type="causal", metadata__reason="where").exists()
    merged = Entry.objects.get(space=copy, body="The NAS is backup-01, in rack 2")
    assert merged.archived and merged.merged_into.body == "The NAS is backup-01"
    assert Topic.objects.filter(space=copy).count() == Topic.objects.filter(space=space).count()


def test_importing_the_same_export_again_adds_nothing(space, tmp_path):
    path = tmp_path / "src.jsonl"
    path.write_text("".join(open_export.jsonl([space])), encoding="utf-8")
    copy = MemorySpace.objects.create(slug="copy", name="Copy")
    importers.run(copy, importers.load(path))
    counts = (Entry.objects.filter(space=copy).count(), copy.facts.count(), Topic.objects.filter(space=copy).count(),
              Edge.objects.filter(source__space=copy).count())
    again = importers.run(copy, importers.load(path), dry_run=True)
    assert again["new"] == 0 and again["existing"] == 7
    importers.run(copy, importers.load(path))
    assert counts == (Entry.objects.filter(space=copy).count(), copy.facts.count(),
                      Topic.objects.filter(space=copy).count(), Edge.objects.filter(source__space=copy).count())


def test_no_secret_reaches_the_export(space):
    save_service("mem0", {"endpoint": "https://api.mem0.ai", "apiKey": SECRET, "mode": "platform"})
    _token, raw = ApiToken.issue("agent", "local", [])
    gateway.write(space, gateway.Draft(body=f"my key is {SECRET}"))  # redacted when written
    old = gateway.write(space, gateway.Draft(body="written before the rule")).entry
    Entry.objects.filter(pk=old.pk).update(body=f"an old row with {SECRET} in it")  # a hub older than its redaction
    text = "".join(open_export.jsonl([space])) + "".join(open_export.markdown([space]))
    assert SECRET not in text and raw not in text and "[REDACTED" in text
    assert "apiKey" not in text and "config" not in text


def test_vault_spaces_leave_the_hub_only_when_a_person_confirms(space, tmp_path):
    vault = MemorySpace.objects.create(slug="diary", name="Diary", access="vault")
    gateway.write(vault, gateway.Draft(body="a private walk"))
    with pytest.raises(CommandError, match="diary is a vault space.*--include-vault"):
        call_command("export_space", "diary", stdout=StringIO())
    out = StringIO()
    call_command("export_space", "--all", stdout=out, stderr=StringIO())
    assert "a private walk" not in out.getvalue() and '"src"' in out.getvalue()
    path = tmp_path / "diary.jsonl"
    call_command("export_space", "diary", "--include-vault", "-o", str(path), stderr=StringIO())
    assert "a private walk" in path.read_text()
    with pytest.raises(CommandError, match="holds vault memories.*into a vault space"):
        call_command("import_history", "src", str(path), stdout=StringIO())
    other_vault = MemorySpace.objects.create(slug="diary2", name="Diary 2", access="vault")
    call_command("import_history", "diary2", str(path), stdout=StringIO())
    assert Entry.objects.filter(space=other_vault, body="a private walk").exists()


def test_a_newer_version_is_refused_and_a_bad_record_is_named(space, tmp_path):
    lines = list(open_export.jsonl([space]))
    newer = tmp_path / "newer.jsonl"
    newer.write_text(json.dumps({**json.loads(lines[0]), "version": 2}) + "\n" + "".join(lines[1:]))
    with pytest.raises(CommandError, match="version 2; this hub reads version 1"):
        call_command("import_history", "src", str(newer), stdout=StringIO())
    broken = tmp_path / "broken.jsonl"
    entry_line = next(n for n, line in enumerate(lines) if '"type": "entry"' in line)
    bad = {**json.loads(lines[entry_line]), "importance": "high"}
    broken.write_text("".join(lines[:entry_line]) + json.dumps(bad) + "\n" + "".join(lines[entry_line + 1:]))
    copy = MemorySpace.objects.create(slug="copy", name="Copy")
    result = importers.run(copy, importers.load(broken))
    assert result["added"] == 6 and result["errors"] == [
        f"broken.jsonl:{entry_line + 1}: entry.importance should be int, not str"]


def test_markdown_reads_as_facts_then_memories_oldest_first(space):
    text = "".join(open_export.markdown([space]))
    assert text.startswith("<!-- memoryhub.export markdown v1")
    assert "# Source (`src`)" in text and "## Facts" in text and "- user · language: zh" in text
    assert "**User:** 以后叫我老王" in text and "[decision] Backups" in text and "Tags: #nas #ops" in text
    assert text.index("以后叫我老王") < text.index("Backups go to the NAS") and "a forgotten thing" not in text
    assert "From: mem0" in text


def test_the_command_writes_a_file_and_names_one_space_or_all(space, tmp_path):
    path = tmp_path / "out.md"
    err = StringIO()
    call_command("export_space", "src", "--markdown", "-o", str(path), stderr=err)
    assert path.read_text().startswith("<!-- memoryhub.export markdown v1") and "src" in err.getvalue()
    with pytest.raises(CommandError, match="name one space, or give --all"):
        call_command("export_space", stdout=StringIO())
