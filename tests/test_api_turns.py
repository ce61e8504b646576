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


def batch_turn(n: int, **extra) -> dict:
    return {"session_id": "s1", "user": f"turn {n}: the nightly backup of host{n} moved to 03:00",
            "assistant": "noted", "idempotency_key": f"b-{n}", **extra}


def test_a_batch_writes_every_good_turn_and_answers_the_bad_one_in_its_place(api):
    r = api.post("turns", {"turns": [batch_turn(1), {"session_id": "s1", "assistant": "no user"}, batch_turn(3),
                                     "not an object", batch_turn(5, at="yesterday"), batch_turn(6, mood="odd")]})
    assert r.status_code == 200
    results = r.json()["results"]
    assert [item["status"] for item in results] == [201, 400, 201, 400, 400, 400]
    assert results[1]["error"]["code"] == "bad_request" and results[1]["error"]["field"] == "user"
    assert results[3]["error"]["field"] == "turns" and results[4]["error"]["field"] == "at"
    assert results[5]["error"]["field"] == "mood"
    written = {str(e.pk): e for e in Entry.objects.all()}
    assert set(written) == {results[0]["entry"]["id"], results[2]["entry"]["id"]}
    assert written[results[0]["entry"]["id"]].idempotency_key == "b-1"
    assert set(results[0]) == {"status", "entry", "facts", "redactions"}


def test_a_repeated_batch_answers_the_same_entries_and_writes_nothing_twice(api):
    batch = {"turns": [batch_turn(n) for n in range(5)] + [batch_turn(0)]}
    first = api.post("turns", batch).json()["results"]
    again = api.post("turns", batch).json()["results"]
    assert [i["status"] for i in first] == [201] * 5 + [200]  # the key repeated within the batch too
    assert [i["status"] for i in again] == [200] * 6
    assert [i["entry"]["id"] for i in first] == [i["entry"]["id"] for i in again]
    assert first[5]["entry"]["id"] == first[0]["entry"]["id"]
    assert Entry.objects.count() == 5


def test_a_batch_takes_its_space_and_each_turn_may_name_its_own(api):
    api.post("spaces", {"slug": "ops", "name": "Ops"})
    api.post("spaces", {"slug": "home", "name": "Home"})
    results = api.post("turns", {"space": "ops", "turns": [batch_turn(1), batch_turn(2, space="home"),
                                                            batch_turn(3, space="nope")]}).json()["results"]
    assert [i["entry"]["space"] for i in results[:2]] == ["ops", "home"]
    assert results[2]["status"] == 404 and results[2]["error"]["field"] == "space"


@pytest.mark.parametrize("body, field", [
    ({"turns": []}, "turns"),
    ({"turns": {"user": "hi"}}, "turns"),
    ({"turns": [batch_turn(n) for n in range(101)]}, "turns"),
    ({"turns": [batch_turn(1)], "session_id": "s1"}, "session_id"),
])
def test_a_malformed_batch_is_refused_whole_and_writes_nothing(api, body, field):
    r = api.post("turns", body)
    assert r.status_code == 400 and r.json()["error"]["field"] == field
    assert not Entry.objects.exists()


def test_a_batch_is_one_change_per_space_for_the_worker(api):
    from memoryhub.memories.write import events

    heard = []

    def listen(sender, space, operation, entry_ids, **kwargs):
        heard.append((space.slug, operation, len(entry_ids)))

    events.entries_changed.connect(listen, dispatch_uid="test-batch")
    try:
        api.post("turns", {"turns": [batch_turn(n) for n in range(50)]})
    finally:
        events.entries_changed.disconnect(dispatch_uid="test-batch")
    assert heard == [("default", "remember", 50)]


def test_a_turn_failing_inside_the_batch_transaction_leaves_only_its_own_rows_out(api):
    from memoryhub.memories.write import events

    def refuse(sender, entry, **kwargs):
        if entry.idempotency_key == "b-2":
            raise RuntimeError("a subscriber failed")

    events.entry_written.connect(refuse, dispatch_uid="test-refuse")
    try:
        results = api.post("turns", {"turns": [batch_turn(n) for n in range(1, 4)]}).json()["results"]
    finally:
        events.entry_written.disconnect(dispatch_uid="test-refuse")
    assert [i["status"] for i in results] == [201, 500, 201]
    assert results[1]["error"]["code"] == "internal" and "Traceback" not in results[1]["error"]["message"]
    assert sorted(Entry.objects.values_list("idempotency_key", flat=True)) == ["b-1", "b-3"]
    assert OpLog.objects.filter(operation="remember").count() == 2  # b-2's op log line went with it
