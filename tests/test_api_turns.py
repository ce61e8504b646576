"""POST /api/v1/turns: archiving finished turns, idempotency, redaction, and bad input."""

import pytest

from memoryhub.memories.models import Entry, OpLog


def test_a_turn_is_archived_with_a_summary(api):
    r = api.turn("We decided to use PostgreSQL for the billing service.", "Good, PostgreSQL it is.")
    assert r.status_code == 201
    data = r.json()
    assert set(data) == {"entry", "facts", "redactions"}
    assert data["entry"]["space"] == "default"
    assert data["entry"]["category"] == "decision"
    assert "PostgreSQL" in data["entry"]["summary"]
    assert data["facts"] == {"asserted": [], "invalidated": []} or isinstance(data["facts"]["asserted"], list)
    entry = Entry.objects.get(pk=data["entry"]["id"])
    assert "User: We decided" in entry.body and "Assistant: Good" in entry.body
    assert entry.session_id == "s1" and entry.kind == "turn"


def test_same_idempotency_key_returns_the_same_entry(api):
    first = api.turn("hello there", idempotency_key="k1")
    again = api.turn("hello there", idempotency_key="k1")
    assert first.status_code == 201 and again.status_code == 200
    assert first.json()["entry"]["id"] == again.json()["entry"]["id"]
    assert Entry.objects.count() == 1


def test_byte_identical_write_is_skipped(api):
    a = api.turn("the same words", "the same answer")
    b = api.turn("the same words", "the same answer")
    assert a.json()["entry"]["id"] == b.json()["entry"]["id"]
    assert Entry.objects.count() == 1
    assert OpLog.objects.filter(operation="diff-skip").count() == 1


def test_secrets_are_redacted_before_storage(api):
    r = api.turn("my key is sk-abcdefghijklmnopqrstuvwx and the box is 10.1.2.3", "noted")
    assert r.json()["redactions"] == 2
    body = Entry.objects.get().body
    assert "sk-abcdefghijklmnopqrstuvwx" not in body and "10.1.2.3" not in body
    assert "[REDACTED:api_key]" in body and "[REDACTED:ipv4]" in body


def test_time_of_the_turn_is_kept(api):
    r = api.turn("back then", at="2026-10-22T10:25:00+08:00")
    assert r.json()["entry"]["at"] == "2026-10-22T02:25:00+00:00"


def test_workspace_path_creates_its_workspace_and_native_space(api):
    from memoryhub.spaces.models import MemorySpace, Workspace

    r = api.turn("in my project", workspace="/home/wang/projects/alpha")
    ws = Workspace.objects.get()
    assert ws.slug.startswith("alpha-") and len(ws.slug) == len("alpha-") + 8
    assert r.json()["entry"]["space"] == ws.slug
    assert MemorySpace.objects.get(slug=ws.slug).is_default


@pytest.mark.parametrize(
    "body, field",
    [
        ({"user": "hi", "assistant": "yo"}, "session_id"),
        ({"session_id": "s", "assistant": "yo"}, "user"),
        ({"session_id": "s", "user": "   ", "assistant": "yo"}, "user"),
        ({"session_id": "s", "user": 5, "assistant": "yo"}, "user"),
        ({"session_id": "s", "user": "hi"}, "assistant"),
        ({"session_id": "s", "user": "x" * 8001, "assistant": "yo"}, "user"),
        ({"session_id": "s", "user": "hi", "assistant": "yo", "at": "yesterday"}, "at"),
        ({"session_id": "s", "user": "hi", "assistant": "yo", "space": "nope"}, "space"),
        ({"session_id": "s", "user": "hi", "assistant": "yo", "workspace": "no-such-ws"}, "workspace"),
    ],
)
def test_bad_input_is_refused_with_the_field_and_nothing_is_written(api, body, field):
    r = api.post("turns", body)
    assert r.status_code in (400, 404)
    err = r.json()["error"]
    assert err["field"] == field
    assert err["code"] == ("not_found" if r.status_code == 404 else "bad_request")
    assert not Entry.objects.exists()


def test_token_restricted_to_one_space_writes_there(api_factory):
    from memoryhub.spaces.models import MemorySpace

    notes = MemorySpace.objects.create(slug="notes", name="Notes")
    agent = api_factory(spaces=[notes])
    r = agent.turn("restricted write")
    assert r.json()["entry"]["space"] == "notes"


def test_token_restricted_elsewhere_cannot_write_to_a_space(api_factory):
    from memoryhub.spaces.models import MemorySpace

    notes = MemorySpace.objects.create(slug="notes", name="Notes")
    agent = api_factory(spaces=[notes])
    r = agent.turn("sneaky", space="default")
    assert r.status_code == 403 and r.json()["error"]["code"] == "forbidden"
