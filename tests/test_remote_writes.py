"""Writes to third-party spaces through the API: kept locally with their receipt, OpenViking verified by a job."""

import json

import pytest

from memoryhub.agents.models import ApiToken
from memoryhub.jobs.models import Job
from memoryhub.mcp import bridge
from memoryhub.memories.models import RemoteWrite
from memoryhub.spaces.models import MemorySpace, ProviderService
from memoryhub.spaces.provider_services import save_service
from providers.base import ProviderError
from tests.providers.fakes.mem0 import Mem0Fake
from tests.providers.fakes.openviking import FakeOpenViking


@pytest.fixture
def viking(db):
    fake = FakeOpenViking()
    save_service("openviking", {"endpoint": fake.url, "apiKey": "key-alice", "account": "acme",
                                "discoveryUser": "alice"})
    MemorySpace.objects.create(slug="ov", name="OpenViking", provider="openviking",
                               config={"targetUri": "viking://user/alice/memories"})
    yield fake
    fake.stop()


def save(api, **extra):
    return api.tool("memory_save", category="decision", title="Green tea", body="Alice prefers green tea.",
                    space="ov", **extra)


def test_openviking_write_is_verified_by_a_job_and_committed(api, viking):
    r = save(api)
    assert r.status_code == 200, r.content
    assert r.json()["result"]["id"].startswith("ov:viking://user/alice/memories/")
    write = RemoteWrite.objects.get()
    assert write.state == "committed" and write.provider_id == write.uri and write.checked_at
    assert Job.objects.get(kind="verify_write").status == "succeeded"


@pytest.mark.parametrize("fault, expected", [("size_skew", "failed"), ("readback_suffix", "failed"),
                                             ("vector_status", "pending_verification")])
def test_unproven_openviking_writes_are_never_committed(api, viking, fault, expected):
    if fault == "size_skew":
        viking.size_skew = 3
    elif fault == "readback_suffix":
        viking.readback_suffix = " (edited)"
    else:
        viking.vector_status = "queued"
    assert save(api).status_code == 200
    write = RemoteWrite.objects.get()
    assert write.state == expected and write.error and "viking://" in write.error


def test_openviking_discovery_refuses_a_missing_root_and_keeps_the_old_config(viking):
    with pytest.raises(ProviderError):
        save_service("openviking", {"endpoint": viking.url, "apiKey": "key-alice", "account": "acme",
                                    "discoveryUser": "nobody"})
    assert ProviderService.objects.get(kind="openviking").config["discoveryUser"] == "alice"


@pytest.fixture
def mem0(transactional_db):  # MCP's bridge closes stale connections, as Django does around a request
    fake = Mem0Fake()
    save_service("mem0", {"endpoint": fake.url, "apiKey": fake.api_key, "mode": "platform"})
    MemorySpace.objects.create(slug="m0", name="Mem0", provider="mem0", config={"userId": "alice"})
    yield fake
    fake.stop()


def test_async_provider_write_is_accepted_not_committed(api, mem0):
    r = api.turn("I switched the team to PostgreSQL 17", "noted", space="m0")
    assert r.status_code == 201 and r.json()["entry"]["receipt"] == "accepted"
    assert RemoteWrite.objects.get().state == "accepted"


def test_a_provider_failure_is_a_clear_error_and_the_write_is_kept_locally(api, mem0):
    mem0.set_fault("error500")
    r = api.turn("remember the boiler code 4711", "ok", space="m0")
    assert r.status_code == 502 and r.json()["error"]["code"] == "provider_error"
    kept = RemoteWrite.objects.get()
    assert kept.state in ("failed", "unknown") and "boiler code" in kept.body
    assert MemorySpace.objects.get(slug="m0").last_error


def test_a_slow_provider_times_out_as_504_and_stays_unknown(api, mem0, settings):
    settings.MEMORYHUB = {**settings.MEMORYHUB, "PROVIDER_TIMEOUT": 0.5}
    mem0.set_fault("slow")
    r = api.turn("slow write", "ok", space="m0")
    assert r.status_code in (502, 504)
    assert RemoteWrite.objects.get().state in ("unknown", "failed")


def test_bad_credentials_disable_the_service_until_fixed(api, mem0):
    save_service("mem0", {"endpoint": mem0.url, "apiKey": "wrong-key-000", "mode": "platform"})
    r = api.turn("anything", "ok", space="m0")
    assert r.status_code == 502
    assert ProviderService.objects.get(kind="mem0").enabled is False
    again = api.turn("anything else", "ok", space="m0")
    assert again.status_code == 502 and "disabled" in again.json()["error"]["message"]
    assert "wrong-key-000" not in again.content.decode()
    save_service("mem0", {"endpoint": mem0.url, "apiKey": mem0.api_key, "mode": "platform"})
    assert api.turn("fixed now", "ok", space="m0").status_code == 201


def test_forget_on_a_provider_that_can(api, mem0):
    api.tool("memory_note", text="forget me later please", space="m0")
    found = api.tool("memory_search", query="forget me later", space="m0").json()["result"]["results"]
    assert found and found[0]["provider"] == "mem0"
    r = api.tool("memory_forget", id=found[0]["id"])
    assert r.status_code == 200 and r.json()["result"]["status"] == "forgotten"


def test_dashboard_lists_pending_checks_and_rechecks_them(client, staff, api, viking):
    viking.vector_status = "queued"
    save(api)
    write = RemoteWrite.objects.get()
    page = client.get("/writes/?state=check")
    assert page.status_code == 200 and b"pending check" in page.content and b"Re-check" in page.content
    partial = client.get("/writes/", HTTP_HX_REQUEST="true")
    assert b"<html" not in partial.content and b'id="write-table"' in partial.content
    viking.vector_status = "complete"
    r = client.post(f"/writes/{write.pk}/recheck")
    assert r.status_code == 302
    assert Job.objects.filter(kind="verify_write").count() == 2


def test_writes_page_requires_login(client, db):
    assert client.get("/writes/").status_code == 302


def test_a_failed_remote_write_over_mcp_is_kept_as_over_the_api(mem0):
    """MCP's tool path (memoryhub.mcp.bridge) keeps the record of a failed write too: a timeout proves nothing."""
    mem0.set_fault("error500")
    token, _ = ApiToken.issue(name="agent")
    with pytest.raises(ProviderError):
        bridge.call_tool(token, "memory_save", "s1", {"category": "decision", "title": "Boiler",
                                                      "body": "the boiler code is 4711", "space": "m0"})
    kept = RemoteWrite.objects.get()
    assert kept.state in ("failed", "unknown") and "boiler code" in kept.body


@pytest.fixture
def hanging(transactional_db, settings):
    """A Mem0 space on a server that accepts and never answers; a 30 s provider timeout, a 1 s write deadline."""
    from tests.providers.fakes.tarpit import Tarpit

    settings.MEMORYHUB = {**settings.MEMORYHUB, "PROVIDER_TIMEOUT": 30, "REMOTE_WRITE_DEADLINE": 1.0}
    tarpit = Tarpit()
    save_service("mem0", {"endpoint": tarpit.url, "apiKey": "k", "mode": "self-hosted"})
    MemorySpace.objects.create(slug="hanging", name="Hanging", provider="mem0", config={"userId": "alice"})
    yield tarpit
    tarpit.stop()


def batch(api, n: int, space: str = "hanging"):
    return api.post("turns", {"turns": [{"session_id": "b", "user": f"turn {i} of the batch", "assistant": "ok",
                                         "space": space} for i in range(n)]})


def test_a_batch_into_a_hanging_space_is_sent_at_once_under_one_deadline(api, hanging):
    """#32: before, the turns were sent one after another, each waiting out the provider timeout (4 turns: 4 x 30 s
    here); now all four wait together for one deadline, and each is kept as unknown (it may have landed)."""
    r = batch(api, 4)
    assert [item["status"] for item in r.json()["results"]] == [504] * 4
    assert {item["error"]["code"] for item in r.json()["results"]} == {"provider_timeout"}
    assert hanging.accepted == 4  # sent at once, not one after another
    assert list(RemoteWrite.objects.values_list("state", flat=True)) == ["unknown"] * 4


def test_writes_that_never_got_their_turn_are_kept_as_not_sent(api, hanging, monkeypatch):
    from memoryhub.memories.write import remote

    monkeypatch.setattr(remote, "WORKERS", 2)
    results = batch(api, 5).json()["results"]
    assert [item["status"] for item in results] == [504] * 5
    states = sorted(RemoteWrite.objects.values_list("state", flat=True))
    assert states == ["failed"] * 3 + ["unknown"] * 2 and hanging.accepted == 2
    assert sum("not sent" in item["error"]["message"] for item in results) == 3


def test_a_native_turn_never_waits_for_another_requests_provider(api, hanging):
    """The provider calls hold no transaction and no writer lock: a native write lands while a batch waits."""
    import threading

    from django.test import Client

    from memoryhub.memories.models import Entry

    answers = []
    waiting = threading.Thread(target=lambda: answers.append(
        Client().post("/api/v1/turns", json.dumps({"turns": [{"session_id": "b", "user": "into the void",
                                                               "assistant": "ok", "space": "hanging"}] * 3}),
                      content_type="application/json", HTTP_AUTHORIZATION=f"Bearer {api.raw}").status_code))
    waiting.start()
    while not hanging.accepted and waiting.is_alive():
        waiting.join(0.05)
    assert api.turn("a native turn meanwhile").status_code == 201
    assert waiting.is_alive() and Entry.objects.filter(body__contains="a native turn meanwhile").exists()
    waiting.join(30)
    assert answers == [200]


def test_a_mixed_batch_writes_its_native_turns_whatever_the_provider_does(api, hanging):
    r = api.post("turns", {"turns": [{"session_id": "b", "user": "remote one", "assistant": "ok", "space": "hanging"},
                                     {"session_id": "b", "user": "native one", "assistant": "ok"}]})
    assert [item["status"] for item in r.json()["results"]] == [504, 201]


def keyed_batch(api, space: str = "m0", session_id: str = "k", n: int = 3):
    return api.post("turns", {"turns": [{"session_id": session_id, "user": f"keyed turn {i}", "assistant": "ok",
                                         "space": space, "idempotency_key": f"t-{i}"} for i in range(n)]})


def test_a_resent_batch_answers_the_first_receipts_and_sends_nothing_again(api, mem0):
    """Before, each resend of a batch (a client retrying after a lost answer) sent every turn to the engine again."""
    first = keyed_batch(api).json()["results"]
    assert [item["status"] for item in first] == [201] * 3 and len(mem0.events) == 3
    again = keyed_batch(api).json()["results"]
    assert [item["status"] for item in again] == [200] * 3
    assert [item["entry"]["id"] for item in again] == [item["entry"]["id"] for item in first]
    assert {item["entry"]["receipt"] for item in again} == {"accepted"}
    assert len(mem0.events) == 3 and RemoteWrite.objects.count() == 3


def test_a_resent_turn_answers_its_first_receipt_and_another_origins_key_is_its_own(api, api_factory, mem0):
    first = api.turn("the boiler is in the cellar", space="m0", idempotency_key="boiler")
    again = api.turn("the boiler is in the cellar", space="m0", idempotency_key="boiler")
    assert (first.status_code, again.status_code) == (201, 200)
    assert again.json()["entry"]["id"] == first.json()["entry"]["id"] and len(mem0.events) == 1
    other = api_factory(name="bridge", origin="qq").turn("the boiler is in the cellar", space="m0",
                                                         idempotency_key="boiler")
    assert other.status_code == 201 and other.json()["entry"]["id"] != first.json()["entry"]["id"]
    assert len(mem0.events) == 2


def test_a_key_repeated_inside_one_batch_is_sent_once(api, mem0):
    r = api.post("turns", {"turns": [{"session_id": "k", "user": "twice in one batch", "assistant": "ok",
                                      "space": "m0", "idempotency_key": "same"}] * 2})
    results = r.json()["results"]
    assert [item["status"] for item in results] == [201, 200]
    assert results[0]["entry"]["id"] == results[1]["entry"]["id"] and len(mem0.events) == 1


def test_a_third_party_vaults_key_is_its_sessions_own(api, mem0):
    MemorySpace.objects.create(slug="m0v", name="Mem0 vault", provider="mem0", access="vault",
                               config={"userId": "vault"})
    first = api.turn("the safe code is 4711", space="m0v", idempotency_key="v-1", session_id="a")
    again = api.turn("the safe code is 4711", space="m0v", idempotency_key="v-1", session_id="a")
    other = api.turn("the safe code is 4711", space="m0v", idempotency_key="v-1", session_id="b")
    assert (first.status_code, again.status_code, other.status_code) == (201, 200, 201)
    assert again.json()["entry"]["id"] == first.json()["entry"]["id"] != other.json()["entry"]["id"]
    assert first.json()["entry"]["id"].startswith("m0v:w") and len(mem0.events) == 2


def test_a_key_whose_write_surely_failed_is_sent_again(api, mem0):
    save_service("mem0", {"endpoint": mem0.url, "apiKey": "wrong-key-000", "mode": "platform"})
    assert api.turn("sent again later", space="m0", idempotency_key="later").status_code == 502
    assert RemoteWrite.objects.get().state == "failed" and not mem0.events
    save_service("mem0", {"endpoint": mem0.url, "apiKey": mem0.api_key, "mode": "platform"})
    r = api.turn("sent again later", space="m0", idempotency_key="later")
    assert r.status_code == 201 and r.json()["entry"]["receipt"] == "accepted" and len(mem0.events) == 1
    assert RemoteWrite.objects.get().state == "accepted"  # the key's one write, now arrived


def test_a_key_whose_outcome_is_unknown_answers_its_pending_receipt_and_is_not_sent_again(api, mem0):
    mem0.set_fault("error500")  # a 500 may come after the engine stored it
    assert api.turn("maybe stored", space="m0", idempotency_key="maybe").status_code == 502
    write = RemoteWrite.objects.get()
    assert write.state == "unknown"
    mem0.set_fault(None)
    sent = len(mem0.log)
    r = api.turn("maybe stored", space="m0", idempotency_key="maybe")
    assert r.status_code == 200, r.content
    assert r.json()["entry"]["receipt"] == "unknown" and r.json()["entry"]["id"] == f"m0:w{write.pk}"
    assert mem0.url not in r.content.decode()  # the engine's endpoint is not an id
    assert len(mem0.log) == sent and RemoteWrite.objects.count() == 1


def test_a_key_sent_while_its_first_write_is_in_flight_is_not_sent_twice(api, hanging):
    """Two requests racing on one key: the second answers the first's pending receipt instead of sending it too."""
    import threading

    from django.test import Client

    body = json.dumps({"session_id": "b", "user": "racing", "assistant": "ok", "space": "hanging",
                       "idempotency_key": "race"})
    answers = []
    first = threading.Thread(target=lambda: answers.append(Client().post(
        "/api/v1/turns", body, content_type="application/json", HTTP_AUTHORIZATION=f"Bearer {api.raw}").status_code))
    first.start()
    while not hanging.accepted and first.is_alive():
        first.join(0.05)
    second = api.post("turns", json.loads(body))
    assert second.status_code == 200 and second.json()["entry"]["receipt"] == "unknown"
    first.join(30)
    assert answers == [504] and hanging.accepted == 1 and RemoteWrite.objects.count() == 1
