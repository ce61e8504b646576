"""#31: no answer reveals what a vault holds. Each channel an agent could read a vault through, tried as the
attacks of the issue did: a write's answer (id, time, status, counts), an idempotency key another agent or
session used, a request's `matched`, the request cap, errors, and the work a duplicate write does compared with
a new one (the statements it runs, not its time: tests never assert timings; bench/vault_timing.py measures)."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from memoryhub.memories.models import Entry, Fact
from memoryhub.spaces.models import MemorySpace
from memoryhub.spaces.provider_services import save_service
from memoryhub.vault.models import AccessRequest
from tests.answers import refused, result

pytestmark = pytest.mark.django_db

# A text an agent might guess at, in no secret's shape (a safe code or a PIN is redacted before it is stored)
SAFE = "the treasure lies under oak 4711"


@pytest.fixture
def vault(db):
    return MemorySpace.objects.create(slug="safe", name="Safe", access="vault")


def note(api, text, space="safe", session_id="s1"):
    return result(api.tool("memory_note", text=text, space=space, session_id=session_id))


# --- a write's answer -----------------------------------------------------------------------------------

def test_a_vault_write_answers_a_fresh_receipt_for_a_duplicate(api, vault):
    first = note(api, SAFE)
    again = note(api, SAFE)
    other = note(api, "the treasure lies under oak 1234")
    assert int(first["id"]) < int(again["id"]) < int(other["id"])  # a new id, like any new write
    assert again.keys() == other.keys() == first.keys() and again["redactions"] == other["redactions"] == 0
    assert Entry.objects.filter(space=vault, body=SAFE).count() == 2  # no content dedup in a vault


def test_a_batch_of_guesses_answers_alike_whether_or_not_one_is_stored(api, vault):
    note(api, SAFE)
    guesses = [f"the treasure lies under oak {n:04d}" for n in range(4700, 4720)]
    answers = result(api.tool("memory_note_batch", notes=guesses, space="safe"))["results"]
    ids = [int(a["id"]) for a in answers]
    assert ids == sorted(ids) and len(set(ids)) == len(ids)  # fresh, in order: the right guess looks like the rest
    assert {tuple(sorted(a)) for a in answers} == {("id", "redactions", "space")}


def test_a_turn_into_a_vault_answers_201_and_its_own_time_for_a_duplicate(api, vault):
    past = (timezone.now() - timedelta(days=30)).isoformat()
    first = api.turn("my locker combination is 12-34-56", "noted", space="safe", at=past)
    again = api.turn("my locker combination is 12-34-56", "noted", space="safe")
    assert first.status_code == again.status_code == 201
    stored, answered = result(first, 201)["entry"], result(again, 201)["entry"]
    assert answered["id"] != stored["id"] and answered["at"] != stored["at"]
    assert answered["summary"] == "" and answered["at"] > stored["at"]  # now, not the stored entry's time


def test_a_remote_vault_answers_a_fresh_receipt_for_a_duplicate(api, tmp_path):
    save_service("holographic", {"dataPath": str(tmp_path)})
    MemorySpace.objects.create(slug="holo-vault", name="Holo vault", provider="holographic", access="vault")
    first = note(api, SAFE, space="holo-vault")
    again = note(api, SAFE, space="holo-vault")
    assert first["id"] != again["id"] and first.keys() == again.keys()
    assert not re.fullmatch(r"holo-vault:\d+", first["id"]), "the engine's own counter would count the vault"


# --- idempotency keys -----------------------------------------------------------------------------------

def test_a_vault_idempotency_key_never_answers_another_agents_entry(api, api_factory, vault):
    mine = result(api.turn("the alarm code is 9930", "ok", space="safe", idempotency_key="turn-1"), 201)["entry"]
    other = api_factory(name="other-agent")  # the same origin: keys of one origin used to be shared
    theirs = result(other.turn("hello", "hi", space="safe", idempotency_key="turn-1"), 201)["entry"]
    assert theirs["id"] != mine["id"] and theirs["at"] != mine["at"]
    assert Entry.objects.filter(space__slug="safe").count() == 2


def test_a_vault_idempotency_key_never_answers_another_sessions_entry(api, vault):
    mine = result(api.turn("the alarm code is 9930", "ok", space="safe", idempotency_key="turn-1"), 201)["entry"]
    later = result(api.turn("hello", "hi", space="safe", idempotency_key="turn-1", session_id="s2"), 201)["entry"]
    assert later["id"] != mine["id"] and later["at"] != mine["at"]


def test_the_same_session_repeating_its_key_gets_its_own_entry_back(api, vault):
    """The contract's retry: nothing is written twice, and the writer learns only what it was told before."""
    first = result(api.turn("the alarm code is 9930", "ok", space="safe", idempotency_key="turn-1"), 201)["entry"]
    repeat = api.turn("the alarm code is 9930", "ok", space="safe", idempotency_key="turn-1")
    assert repeat.status_code == 200 and result(repeat)["entry"]["id"] == first["id"]
    assert Entry.objects.filter(space__slug="safe").count() == 1


# --- vault requests -------------------------------------------------------------------------------------

def test_matched_says_nothing_about_the_vaults_categories_times_or_size(api, vault):
    before = result(api.tool("memory_request", space="safe"))["matched"]
    result(api.tool("memory_save", category="decision", title="t", body="b", space="safe",
                    at="2026-03-01T10:00:00+00:00"))
    answers = {result(api.tool("memory_request", space="safe", **criteria))["matched"] for criteria in (
        {}, {"category": "decision"}, {"category": "pitfall"},
        {"from": "2026-03-01T09:59:59+00:00", "to": "2026-03-01T10:00:01+00:00"},
        {"from": "2026-03-01T10:00:01+00:00"}, {"query": "b"}, {"query": "absent"})}
    assert answers == {before} == {0}
    assert {p["matched"] for p in result(api.tool("memory_status"))["pending"]} == {0}
    assert AccessRequest.objects.filter(matched=1).count() == 4  # the person still sees what each request caught


def test_the_request_cap_counts_per_token_across_sessions(api, api_factory, vault, settings):
    settings.MEMORYHUB = {**settings.MEMORYHUB, "VAULT_REQUESTS_PER_SESSION": 50, "VAULT_REQUESTS_PER_TOKEN": 3}
    for n in range(3):
        result(api.tool("memory_request", space="safe", session_id=f"probe-{n}"))
    response = api.tool("memory_request", space="safe", session_id="probe-new")
    answer = refused(response, 429)
    assert answer["code"] == "rate_limited" and "token" in answer["message"]
    assert int(response["Retry-After"]) > 0
    assert AccessRequest.objects.count() == 3
    result(api_factory(name="someone-else").tool("memory_request", space="safe"))  # another token has its own
    AccessRequest.objects.update(created_at=timezone.now() - timedelta(days=2))  # the window moves on
    result(api.tool("memory_request", space="safe", session_id="next-day"))


# --- errors ---------------------------------------------------------------------------------------------

def test_a_refused_vault_write_reads_the_same_whatever_the_vault_holds(api, vault):
    empty = refused(api.tool("memory_note", text="", space="safe"), 400)
    note(api, SAFE)
    assert refused(api.tool("memory_note", text="", space="safe"), 400) == empty
    recalled = [refused(api.tool("memory_recall", id=str(n)), 404)["message"].replace(str(n), "N")
                for n in (Entry.objects.get(body=SAFE).pk, 999_999)]
    assert recalled[0] == recalled[1]  # a vault entry's id and no entry at all


# --- the work a write does ------------------------------------------------------------------------------

LITERALS = re.compile(r"'(?:[^']|'')*'|\"s\d+_x\d+\"|\b\d+(?:\.\d+)?\b")  # strings, savepoints, numbers


def statements(api, space: str, text: str, *, turn: bool) -> list[str]:
    """The statements one write runs before it answers, literals taken out."""
    with CaptureQueriesContext(connection) as captured:
        answer = api.turn(text, "ok", space=space) if turn else api.tool("memory_note", text=text, space=space)
    assert answer.status_code in (200, 201), answer.content
    return [LITERALS.sub("?", q["sql"]) for q in captured.captured_queries]


@pytest.mark.parametrize("stored, new, turn", [
    (SAFE, "the treasure lies under oak 4712", False),
    ("Call me Bob, my PIN hint is the cat", "Call me Rob, my PIN hint is the dog", True),  # a fact slot
    ("Alice Moreau keeps the key to the Annecy flat", "Bruno Lacroix keeps the key to the Lyon flat", False),
])
def test_a_duplicate_vault_write_runs_the_statements_a_new_one_does(api, stored, new, turn, monkeypatch):
    """Two vaults with the same history; into one goes a copy of what it holds, into the other a text it has
    never seen. What the request runs before it answers must be the same, statement for statement (its facts
    and what else depends on the vault's contents happen after the answer, on the worker)."""
    from django_q.conf import Conf

    monkeypatch.setattr(Conf, "SYNC", False)  # as served: a worker takes what follows the answer
    for slug in ("vault-a", "vault-b"):
        MemorySpace.objects.create(slug=slug, name=slug, access="vault")
        for warm in ("warm-up one", stored):
            api.turn(warm, "ok", space=slug) if turn else note(api, warm, space=slug)
    duplicate = statements(api, "vault-a", stored, turn=turn)
    fresh = statements(api, "vault-b", new, turn=turn)
    assert duplicate == fresh


def test_a_vaults_facts_are_still_derived_after_the_answer(api, vault, django_capture_on_commit_callbacks,
                                                          monkeypatch):
    from django_q.conf import Conf

    monkeypatch.setattr(Conf, "SYNC", False)
    with django_capture_on_commit_callbacks() as callbacks:
        result(api.turn("Call me Bob", "ok", space="safe"), 201)
    assert not Fact.objects.filter(space=vault).exists()  # nothing of the vault's facts ran before the answer
    monkeypatch.setattr(Conf, "SYNC", True)  # the worker's turn: run what was queued
    for callback in callbacks:
        callback()
    assert list(Fact.objects.filter(space=vault).values_list("predicate", "value")) == [("nickname", "Bob")]
