"""Other memory engines' exports become notes with their dates and metadata: Mem0 (Platform and self-hosted),
OpenMemory's backup zip, Letta's archival memory. Shapes: bench/history.py (each builder names its page)."""

import json
import re
from datetime import datetime

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from bench import history
from memoryhub.memories.maintenance import importers
from memoryhub.memories.models import Entry
from memoryhub.spaces.models import MemorySpace

pytestmark = pytest.mark.django_db


@pytest.fixture
def space():
    return MemorySpace.objects.create(slug="imp", name="Imp")


@pytest.mark.parametrize("platform", [True, False])
def test_mem0_get_all_becomes_notes_with_their_dates_and_metadata(space, tmp_path, platform):
    data = history.mem0_memories(memories=6, platform=platform)
    path = tmp_path / "mem0.json"
    path.write_text(json.dumps(data))
    assert importers.detect(path) == "mem0"
    result = importers.run(space, importers.load(path))
    assert result["added"] == 6 and result["notes"] == 6
    first = data["results"][1]
    entry = Entry.objects.get(space=space, body=first["memory"])
    assert entry.at == datetime.fromisoformat(first["created_at"]) and entry.kind == "note"
    assert entry.provenance["source"] == "mem0" and entry.provenance["id"] == first["id"]
    assert entry.provenance["metadata"] == {"type": "ops"} and entry.provenance["user_id"] == "wang"
    assert entry.tags == (first["categories"] if platform else [])
    assert importers.run(space, importers.load(path))["added"] == 0


def test_mem0_memories_the_hub_wrote_get_their_title_category_tags_and_date_back(space, tmp_path):
    path = tmp_path / "page.jsonl"
    path.write_text(json.dumps({"results": [{
        "id": "m-1", "memory": "Backups go to the NAS", "created_at": "2026-05-01T10:00:00Z", "categories": ["ops"],
        "metadata": {"title": "Backups", "category": "decision", "tags": ["nas"], "at": "2025-01-02T03:04:05+00:00"}}]}))
    importers.run(space, importers.load(path))
    entry = Entry.objects.get(space=space)
    assert (entry.title, entry.category, entry.tags) == ("Backups", "decision", ["nas", "ops"])
    assert entry.at.isoformat() == "2025-01-02T03:04:05+00:00"


def test_openmemory_backup_zip_keeps_states_apps_and_categories(space, tmp_path):
    archive = history.openmemory_zip(tmp_path / "memories_export_wang.zip", memories=12)
    assert importers.detect(archive) == "openmemory"
    result = importers.run(space, importers.load(archive))
    assert result["added"] == 11 and result["skipped"] == {"memories deleted in the source": 1}
    entries = Entry.objects.filter(space=space)
    assert entries.filter(archived=True).count() == 1  # memory 5 was archived in OpenMemory
    one = entries.exclude(archived=True).first()
    assert one.provenance["app"] == "cursor" and one.provenance["state"] == "active"
    assert one.tags in (["work"], ["personal"])
    assert importers.run(space, importers.load(archive))["added"] == 0


def test_letta_archival_passages_and_an_agent_file_refused_with_the_way(space, tmp_path):
    path = tmp_path / "memories.json"
    passages = history.letta_passages(passages=5)
    passages[4]["is_deleted"] = True
    path.write_text(json.dumps(passages))
    result = importers.run(space, importers.load(path))
    assert result["added"] == 4 and result["skipped"] == {"memories deleted in the source": 1}
    entry = Entry.objects.get(space=space, body=passages[0]["text"])
    assert entry.tags == ["ops"] and entry.provenance["id"] == passages[0]["id"]
    assert entry.provenance["agent_id"] == "agent-1"
    agent_file = tmp_path / "agent.af"
    agent_file.write_text(json.dumps({"agents": [{"name": "helper"}], "blocks": [], "tools": []}))
    with pytest.raises(CommandError, match="Letta agent file.*archival-export"):
        call_command("import_history", "imp", str(agent_file))


def test_a_bad_record_in_an_engine_export_is_named_and_the_rest_imported(space, tmp_path):
    data = history.mem0_memories(memories=3)
    data["results"][1]["memory"] = "bad \ud800"
    data["results"].insert(0, {"id": "x"})
    path = tmp_path / "mem0.json"
    path.write_text(json.dumps(data))
    result = importers.run(space, importers.load(path))
    assert result["added"] == 2 and result["error_count"] == 2
    assert result["errors"][0] == "mem0.json[0]: a Mem0 memory needs an id and its memory text"
    assert result["errors"][1].startswith("mem0.json[2]: contains U+D800")


def test_the_memory_page_shows_where_an_imported_memory_came_from(space, tmp_path, client, staff):
    path = tmp_path / "mem0.json"
    path.write_text(json.dumps(history.mem0_memories(memories=2)))
    importers.run(space, importers.load(path))
    entry = Entry.objects.filter(space=space).first()
    html = client.get(f"/spaces/imp/entries/{entry.pk}/").content.decode()
    assert re.search(r"Where it came from: <span[^>]*>mem0</span>", html) and entry.provenance["id"] in html and "user_id" in html
