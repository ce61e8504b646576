"""History backfill: every format, dry runs, idempotent re-imports, redaction, origin re-tagging."""

import json
import sqlite3

import pytest
import zstandard

from memoryhub.memories.maintenance import importers
from memoryhub.memories.maintenance.importers import retag
from memoryhub.memories.maintenance.importers.sessions import split_frames
from memoryhub.memories.models import Edge, Entry, Fact, Topic
from memoryhub.spaces.models import MemorySpace

pytestmark = pytest.mark.django_db


@pytest.fixture
def space():
    return MemorySpace.objects.create(slug="imp", name="Imp")


def session_lines(n_turns, session="s-1", topic="the nginx config"):
    lines = []
    for i in range(n_turns):
        ts = f"2026-10-22T10:{i % 60:02d}:00Z"
        lines.append({"role": "user", "content": f"question {i} about {topic}", "timestamp": ts,
                      "session_id": session})
        lines.append({"role": "assistant", "content": [{"type": "text", "text": f"answer {i}: reload nginx"}],
                      "timestamp": ts, "session_id": session})
    return [json.dumps(x) for x in lines]


def test_jsonl_sessions_become_turns_and_reimport_adds_nothing(space, tmp_path):
    path = tmp_path / "s-1.jsonl"
    path.write_text("\n".join(session_lines(3) + ["not json"]))
    batch = importers.load(path)
    dry = importers.run(space, batch, dry_run=True)
    assert dry["new"] == 3 and dry["error_count"] == 1 and Entry.objects.filter(space=space).count() == 0
    result = importers.run(space, batch)
    turns = Entry.objects.filter(space=space, kind="turn").order_by("at")
    assert result["added"] == 3 and turns.count() == 3
    assert turns[0].body == "User: question 0 about the nginx config\n\nAssistant: answer 0: reload nginx"
    assert turns[0].session_id == "s-1" and turns[0].topic_id
    again = importers.run(space, importers.load(path))
    assert again["new"] == 0 and again["added"] == 0 and Entry.objects.filter(space=space).count() == 3


def test_imported_turns_are_redacted(space, tmp_path):
    path = tmp_path / "s.jsonl"
    path.write_text("\n".join(json.dumps(x) for x in [
        {"role": "user", "content": "my key is sk-abcdefghijklmnopqrstuvwxyz123456"},
        {"role": "assistant", "content": "noted"}]))
    importers.run(space, importers.load(path))
    entry = Entry.objects.get(space=space)
    assert "sk-abc" not in entry.body and "[REDACTED" in entry.body and entry.redactions == 1


def test_zstd_log_of_600_frames_is_read_whole(space, tmp_path):
    compressor = zstandard.ZstdCompressor()
    frames = []
    for line in session_lines(60):
        data = (line + "\n").encode()
        frames += [compressor.compress(data[i:i + len(data) // 5 + 1]) for i in range(0, len(data), len(data) // 5 + 1)]
    assert len(frames) == 600
    path = tmp_path / "sess-z.jsonl.zst"
    path.write_bytes(b"".join(frames))
    assert len(split_frames(path.read_bytes())) == len(frames)
    batch = importers.load(path)
    assert len(batch.items) == 60
    importers.run(space, batch)
    assert Entry.objects.filter(space=space, kind="turn").count() == 60


def test_section_sign_memory_files_become_notes(space, tmp_path):
    (tmp_path / "USER.md").write_text("Name: Wang\n§\nPrefers tea over coffee\n§\nName: Wang\n§\n")
    (tmp_path / "MEMORY.md").write_text("The repo uses make run\nand make test\n§\nDeploys go through CI")
    importers.run(space, importers.load(tmp_path / "USER.md"))
    importers.run(space, importers.load(tmp_path / "MEMORY.md"))
    bodies = set(Entry.objects.filter(space=space).values_list("body", flat=True))
    assert bodies == {"Name: Wang", "Prefers tea over coffee", "The repo uses make run\nand make test",
                      "Deploys go through CI"}
    assert importers.run(space, importers.load(tmp_path / "USER.md"))["added"] == 0


def test_mnemon_json_import_with_edges_by_index(space, tmp_path):
    path = tmp_path / "export.json"
    path.write_text(json.dumps({"schema_version": "1", "source": "mnemon", "insights": [
        {"content": "We chose SQLite for the hub", "category": "decision", "importance": 5,
         "tags": ["db"], "created_at": "2026-09-01T10:00:00Z"},
        {"content": "WAL mode lets readers run beside one writer", "category": "insight"},
    ], "edges": [{"source_index": 0, "target_index": 1, "edge_type": "causal", "weight": 0.8, "reason": "why"}]}))
    importers.run(space, importers.load(path))
    first = Entry.objects.get(space=space, category="decision")
    assert first.importance == 5 and first.tags == ["db"] and first.at.year == 2026 and first.at.month == 9
    edge = Edge.objects.get(source=first, edge_type="causal")
    assert edge.weight == 0.8 and edge.metadata["reason"] == "why"
    assert importers.run(space, importers.load(path))["added"] == 0


def test_mnemon_db_is_read_only_and_skips_deleted(space, tmp_path):
    path = tmp_path / "mnemon.db"
    conn = sqlite3.connect(path)
    conn.executescript("""
        CREATE TABLE insights (id TEXT PRIMARY KEY, content TEXT NOT NULL, category TEXT DEFAULT 'general',
          importance INTEGER DEFAULT 3, tags TEXT DEFAULT '[]', entities TEXT DEFAULT '[]', source TEXT DEFAULT 'user',
          access_count INTEGER DEFAULT 0, created_at TEXT NOT NULL, updated_at TEXT NOT NULL, deleted_at TEXT);
        CREATE TABLE edges (source_id TEXT, target_id TEXT, edge_type TEXT, weight REAL DEFAULT 1.0,
          metadata TEXT DEFAULT '{}', created_at TEXT, PRIMARY KEY (source_id, target_id, edge_type));
        INSERT INTO insights VALUES ('a', 'Redis is optional', 'fact', 4, '["infra"]', '[]', 'user', 2,
          '2026-08-01T00:00:00Z', '2026-08-01T00:00:00Z', NULL);
        INSERT INTO insights VALUES ('b', 'Use the ORM broker by default', 'decision', 3, '[]', '[]', 'user', 0,
          '2026-08-02T00:00:00Z', '2026-08-02T00:00:00Z', NULL);
        INSERT INTO insights VALUES ('c', 'forgotten', 'general', 3, '[]', '[]', 'user', 0,
          '2026-08-03T00:00:00Z', '2026-08-03T00:00:00Z', '2026-08-04T00:00:00Z');
        INSERT INTO edges VALUES ('a', 'b', 'semantic', 0.6, '{}', '2026-08-02T00:00:00Z');
    """)
    conn.commit()
    conn.close()
    before = path.read_bytes()
    importers.run(space, importers.load(path))
    assert set(Entry.objects.filter(space=space).values_list("body", flat=True)) == {
        "Redis is optional", "Use the ORM broker by default"}
    assert Edge.objects.filter(edge_type="semantic", weight=0.6).count() == 2
    assert path.read_bytes() == before
    assert importers.run(space, importers.load(path))["added"] == 0


def test_memory_vault_jsonl(space, tmp_path):
    path = tmp_path / "memories.jsonl"
    rows = [
        {"id": "mem_1", "at": "2026-10-24T00:36:00+08:00", "category": "pitfall", "title": "WAL on NFS",
         "body": "SQLite WAL does not work on NFS", "tags": ["sqlite"], "related": [], "source": {"sessionId": "ab"}},
        {"id": "mem_2", "at": "2026-10-24T01:00:00+08:00", "category": "decision", "title": "Local disk",
         "body": "Keep the data dir on local disk", "tags": [], "related": ["mem_1"], "source": {"sessionId": "ab"}},
    ]
    path.write_text("\n".join(json.dumps(r) for r in rows))
    assert importers.detect(path) == "vault"
    importers.run(space, importers.load(path))
    pitfall = Entry.objects.get(space=space, title="WAL on NFS")
    assert pitfall.category == "pitfall" and pitfall.session_id == "ab" and pitfall.tags == ["sqlite"]
    decision = Entry.objects.get(space=space, title="Local disk")
    assert Edge.objects.filter(source=decision, target=pitfall, edge_type="semantic").exists()


def test_mnemosyne_last_revision_wins_and_facts_replay(space, tmp_path):
    (tmp_path / "entries").mkdir()
    (tmp_path / "entries" / "2026-09.jsonl").write_text("\n".join(json.dumps(r) for r in [
        {"id": "mv-1", "at": "2026-09-01T10:00:00Z", "title": "draft", "body": "first version"},
        {"id": "mv-2", "at": "2026-09-02T10:00:00Z", "user": "叫我老王", "assistant": "好的", "sessionId": "q"},
    ]))
    (tmp_path / "entries" / "2026-10.jsonl").write_text(json.dumps(
        {"id": "mv-1", "at": "2026-09-01T10:00:00Z", "title": "final", "body": "second version"}))
    (tmp_path / "facts.jsonl").write_text("\n".join(json.dumps(r) for r in [
        {"op": "assert", "subject": "user", "predicate": "nickname", "value": "老王"},
        {"op": "assert", "subject": "user", "predicate": "preference", "value": "tea"},
        {"op": "invalidate", "subject": "user", "predicate": "preference", "value": "tea"},
        {"op": "assert", "subject": "user", "predicate": "language", "value": "zh"},
    ]))
    importers.run(space, importers.load(tmp_path))
    assert Entry.objects.get(space=space, kind="note").body == "second version"
    assert Entry.objects.filter(space=space, kind="turn").count() == 1
    active = set(Fact.objects.filter(space=space, status="active").values_list("predicate", "value"))
    assert {("nickname", "老王"), ("language", "zh")} <= active and ("preference", "tea") not in active
    facts_before = Fact.objects.count()
    assert importers.run(space, importers.load(tmp_path))["added"] == 0
    assert Fact.objects.count() == facts_before


def test_origin_retag_previews_then_changes_only_labels(space, tmp_path):
    path = tmp_path / "s.jsonl"
    path.write_text("\n".join(session_lines(2, session="qq-sess") + session_lines(1, session="web", topic="the web ui")))
    importers.run(space, importers.load(path))
    mapping = retag.mapping_from_sessions_json(
        {"aiocqhttp:GroupMessage:123": {"sessionId": "qq-sess", "chatType": "group", "senderId": "456"}})
    bodies = list(Entry.objects.order_by("pk").values_list("body", "title", "summary"))
    changes = retag.preview(space, mapping)
    assert len(changes) == 2 and Entry.objects.filter(origin="qq").count() == 0
    assert retag.apply(space, mapping) == 2
    qq = Entry.objects.filter(space=space, origin="qq")
    assert qq.count() == 2 and all(e.channel == "aiocqhttp:GroupMessage:123#u456" for e in qq)
    assert all({"qq", "astrbot", "qq-group"} <= set(e.tags) for e in qq)
    assert Entry.objects.get(session_id="web").origin == "local"
    assert list(Entry.objects.order_by("pk").values_list("body", "title", "summary")) == bodies
    assert retag.preview(space, mapping) == []
    assert Topic.objects.filter(space=space).exists()
