"""The memory tools over POST /api/v1/tools/{name}: save, note, search, recall, forget, facts, profile."""

import pytest

from memoryhub.memories.models import Edge, Entry, OpLog
from memoryhub.spaces.models import MemorySpace

from tests.answers import result
from tests.procs import on_postgres


def test_tools_list_has_every_tool_as_a_function_schema(api):
    tools = api.get("tools").json()["tools"]
    names = {t["function"]["name"] for t in tools}
    assert {"memory_save", "memory_note", "memory_search", "memory_recall", "memory_forget",
            "memory_facts", "memory_profile"} <= names
    for t in tools:
        assert t["type"] == "function"
        assert t["function"]["parameters"]["type"] == "object"


def test_save_then_search_returns_a_card_without_full_text(api):
    saved = result(api.tool("memory_save", category="pitfall", title="SQLite locks under load",
                            body="Writers collided; busy_timeout fixed it. Long explanation follows here.",
                            tags=["sqlite", "db"]))
    assert saved["space"] == "default" and saved["redactions"] == 0
    found = result(api.tool("memory_search", query="sqlite locks"))["results"]
    assert [r["id"] for r in found] == [saved["id"]]
    card = found[0]
    assert set(card) >= {"id", "space", "summary", "category", "at", "score", "origin"}
    assert "Long explanation" not in card["summary"]


def test_chinese_query_finds_chinese_memory(api):
    result(api.tool("memory_note", text="王哥的项目用的是向量数据库，部署在北京机房。"))
    result(api.tool("memory_note", text="Unrelated English note about gardening."))
    found = result(api.tool("memory_search", query="向量数据库"))["results"]
    assert len(found) == 1 and "向量数据库" in found[0]["summary"]


def test_unrelated_query_finds_nothing(api):
    result(api.tool("memory_note", text="The deploy script lives in ops/deploy.sh"))
    assert result(api.tool("memory_search", query="banana smoothie recipe"))["results"] == []


@pytest.mark.skipif(on_postgres(), reason="SQLite's one write lock; on PostgreSQL the note is written at once")
@pytest.mark.django_db(transaction=True)
def test_a_search_does_not_wait_for_the_write_lock_and_its_recall_is_noted_once_it_is_free(api, settings):
    import threading

    from django.db import connection, transaction

    from memoryhub.core import background

    saved = result(api.tool("memory_note", text="gunicorn serves the hub"))
    settings.Q_CLUSTER = {**settings.Q_CLUSTER, "sync": False}  # as served: a worker, bookkeeping off the request
    holding, release = threading.Event(), threading.Event()

    def writer():  # another agent's write, holding SQLite's one write lock
        with transaction.atomic():  # queues for the writer lock like every write (core/sqlite)
            Entry.objects.filter(pk=saved["id"]).update(importance=3)
            holding.set()
            release.wait(60)
        connection.close()

    thread = threading.Thread(target=writer)
    thread.start()
    assert holding.wait(30)
    try:
        found = result(api.tool("memory_search", query="gunicorn"))  # answers while the lock is held
        assert [r["id"] for r in found["results"]] == [saved["id"]]
        assert Entry.objects.get(pk=saved["id"]).hits == 0  # its note waits for the lock
    finally:
        release.set()
        thread.join(60)
    assert background.drain(30)
    assert Entry.objects.get(pk=saved["id"]).hits == 1
    assert OpLog.objects.filter(operation="recall", detail__startswith="q=gunicorn").exists()


def test_recall_returns_full_text_and_counts_access(api):
    saved = result(api.tool("memory_save", category="decision", title="Use WAL", body="Full body text here."))
    got = result(api.tool("memory_recall", id=saved["id"]))
    assert got["body"] == "Full body text here." and got["title"] == "Use WAL"
    assert set(got) >= {"id", "space", "title", "body", "category", "at", "tags", "related", "expanded"}
    entry = Entry.objects.get(pk=saved["id"])
    assert entry.hits == 1 and entry.last_accessed_at is not None


def test_agent_search_bumps_hits_and_logs_the_query(api):
    saved = result(api.tool("memory_note", text="gunicorn serves the hub"))
    result(api.tool("memory_search", query="gunicorn"))
    assert Entry.objects.get(pk=saved["id"]).hits == 1
    assert OpLog.objects.filter(operation="recall", detail__startswith="q=gunicorn").exists()


def test_recall_of_unknown_id_is_not_found(api):
    r = api.tool("memory_recall", id="99999")
    assert r.status_code == 404 and r.json()["error"]["field"] == "id"


def test_forget_soft_deletes_and_removes_edges(api):
    a = result(api.tool("memory_note", text="PostgreSQL tuning notes", session_id="s"))
    b = result(api.tool("memory_note", text="More PostgreSQL tuning: work_mem", session_id="s"))
    assert Edge.objects.filter(source_id=a["id"]).exists()
    assert result(api.tool("memory_forget", id=a["id"])) == {"id": a["id"], "status": "forgotten"}
    entry = Entry.objects.get(pk=a["id"])
    assert entry.deleted_at is not None and entry.body
    assert not Edge.objects.filter(source_id=a["id"]).exists() and not Edge.objects.filter(target_id=a["id"]).exists()
    assert [r["id"] for r in result(api.tool("memory_search", query="postgresql"))["results"]] == [b["id"]]
    assert api.tool("memory_recall", id=a["id"]).status_code == 404


def test_profile_get_and_set(api):
    assert result(api.tool("memory_profile", action="get")) == {"profile": "", "frame": ""}
    result(api.tool("memory_profile", action="set", profile="Prefers short answers. token=abcd1234"))
    got = result(api.tool("memory_profile", action="get"))
    assert got["profile"].startswith("Prefers short answers.") and "abcd1234" not in got["profile"]


def test_facts_list_is_empty_on_a_new_hub(api):
    assert result(api.tool("memory_facts", action="list")) == {"facts": []}


@pytest.mark.parametrize(
    "name, arguments, field",
    [
        ("memory_save", {"category": "gossip", "title": "t", "body": "b"}, "category"),
        ("memory_save", {"category": "decision", "body": "b"}, "title"),
        ("memory_save", {"category": "decision", "title": "t", "body": "b" * 8001}, "body"),
        ("memory_save", {"category": "decision", "title": "t", "body": "b", "tags": "a" * 200}, "tags"),
        ("memory_note", {"text": ""}, "text"),
        ("memory_note", {"text": ["not", "a", "string"]}, "text"),
        ("memory_search", {}, "query"),
        ("memory_search", {"query": "x", "limit": 51}, "limit"),
        ("memory_search", {"query": "x", "limit": "5"}, "limit"),
        ("memory_profile", {"action": "dance"}, "action"),
        ("memory_note", {"text": "hi", "space": "ghost"}, "space"),
    ],
)
def test_bad_tool_arguments_name_the_field_and_write_nothing(api, name, arguments, field):
    r = api.tool(name, **arguments)
    assert r.status_code in (400, 404)
    assert r.json()["error"]["field"] == field
    assert not Entry.objects.exists()


def test_arguments_must_be_an_object(api):
    r = api.post("tools/memory_note", {"session_id": "s", "arguments": "text"})
    assert r.status_code == 400 and r.json()["error"]["field"] == "arguments"


def test_tool_call_needs_a_session_id(api):
    r = api.post("tools/memory_note", {"arguments": {"text": "x"}})
    assert r.status_code == 400 and r.json()["error"]["field"] == "session_id"


def test_non_local_origin_sees_only_its_own_origin(api, api_factory):
    result(api.tool("memory_note", text="private web chat about the merger"))
    qq = api_factory(name="qq-bot", origin="qq")
    result(qq.tool("memory_note", text="group chat about the merger party"))
    seen_by_qq = result(qq.tool("memory_search", query="merger"))["results"]
    assert [r["origin"] for r in seen_by_qq] == ["qq"]
    seen_by_local = result(api.tool("memory_search", query="merger"))["results"]
    assert sorted(r["origin"] for r in seen_by_local) == ["local", "qq"]
    assert [r["origin"] for r in result(api.tool("memory_search", query="merger", scope="local"))["results"]] == ["local"]
    local_id = Entry.objects.get(origin="local").pk
    assert qq.tool("memory_recall", id=str(local_id)).status_code == 404


def test_inactive_space_is_never_read_and_explicit_read_is_forbidden(api):
    MemorySpace.objects.create(slug="old", name="Old")
    result(api.tool("memory_note", text="archived thought about kites", space="old"))
    MemorySpace.objects.filter(slug="old").update(active=False)
    assert result(api.tool("memory_search", query="kites"))["results"] == []
    r = api.tool("memory_search", query="kites", space="old")
    assert r.status_code == 403 and r.json()["error"]["code"] == "forbidden"


def test_vault_space_accepts_writes_but_never_shows_them(api):
    MemorySpace.objects.create(slug="diary", name="Diary", access="vault")
    saved = result(api.tool("memory_save", category="companion", title="Secret", body="hidden lighthouse", space="diary"))
    assert result(api.tool("memory_search", query="lighthouse"))["results"] == []
    assert result(api.tool("memory_search", query="lighthouse", space="diary"))["results"] == []
    assert api.tool("memory_recall", id=saved["id"]).status_code == 404
    ctx = api.post("context", {"session_id": "s", "query": "lighthouse"}).json()
    assert "lighthouse" not in ctx["text"]


def test_provider_without_forget_answers_unsupported(api):
    MemorySpace.objects.create(slug="brv", name="ByteRover", provider="byterover")
    r = api.tool("memory_forget", id="brv:abc")
    assert r.status_code == 422 and r.json()["error"]["code"] == "unsupported"


def test_memory_note_batch_writes_every_good_note_in_order_and_answers_the_bad_one(api):
    from memoryhub.memories.models import Entry

    r = api.tool("memory_note_batch", notes=["the VPN needs MFA since May", "", "x" * 9000, "backups run at 03:00"])
    assert r.status_code == 200
    results = r.json()["result"]["results"]
    assert [sorted(item) for item in results] == [["id", "redactions", "space"], ["error"], ["error"],
                                                  ["id", "redactions", "space"]]
    assert results[1]["error"]["field"] == "notes" and "notes[1]" in results[1]["error"]["message"]
    assert {str(e.pk): e.body for e in Entry.objects.all()} == {
        results[0]["id"]: "the VPN needs MFA since May", results[3]["id"]: "backups run at 03:00"}
    assert all(e.kind == "note" and e.session_id == "s1" for e in Entry.objects.all())


@pytest.mark.parametrize("notes", [[], "one note", [f"n{i}" for i in range(101)], None])
def test_memory_note_batch_refuses_a_malformed_list_whole(api, notes):
    from memoryhub.memories.models import Entry

    arguments = {} if notes is None else {"notes": notes}
    r = api.tool("memory_note_batch", **arguments)
    assert r.status_code == 400 and r.json()["error"]["field"] == "notes"
    assert not Entry.objects.exists()
