"""MemoryHubClient against the real served hub: every endpoint of API.md, errors as MemoryHubError, timeouts."""

from __future__ import annotations

import socket
import threading

import pytest
from memoryhub_client import MemoryHubClient, MemoryHubError

from tests.livehub import LiveHub, free_port


@pytest.fixture
def client(hub):
    with MemoryHubClient(hub.url, hub.token()) as c:
        yield c


def test_client_speaks_every_endpoint(client):
    assert client.health()["status"] == "ok"
    assert {p["kind"] for p in client.providers()} >= {"native", "openviking", "mem0"}
    created = client.create_space("client-notes", "Client notes")
    assert created["slug"] == "client-notes" and created["provider"] == "native"
    assert "client-notes" in [s["slug"] for s in client.spaces()]
    first = client.turn("c1", "We will deploy on Fridays only", "Understood", space="client-notes",
                        idempotency_key="turn-1")
    again = client.turn("c1", "We will deploy on Fridays only", "Understood", space="client-notes",
                        idempotency_key="turn-1")
    assert again["entry"]["id"] == first["entry"]["id"]
    ctx = client.context("c1", "when do we deploy?")
    assert ctx["chars"] <= 2600 and first["entry"]["id"] in ctx["text"]
    assert {t["function"]["name"] for t in client.tools()} >= {"memory_save", "memory_search", "memory_recall"}
    saved = client.save("c1", "pitfall", "Flaky CI", "The CI cache breaks on Mondays.", tags=["ci"],
                        space="client-notes")
    noted = client.note("c1", "Coffee machine is on floor 3", space="client-notes")
    assert noted["space"] == "client-notes"
    assert saved["id"] in [r["id"] for r in client.search("c1", "CI cache Mondays")]
    probe = client.save("c1", "progress", "CI probe", "The CI cache probe ran on Monday.", tags=["test"],
                        space="client-notes")
    assert probe["id"] not in [r["id"] for r in client.search("c1", "CI cache probe Monday")]
    assert probe["id"] in [r["id"] for r in client.search("c1", "CI cache probe Monday", skip_tags=[])]
    assert probe["id"] in client.context("c1", "CI cache probe", skip_tags=[])["text"]
    assert client.recall("c1", saved["id"])["body"] == "The CI cache breaks on Mondays."
    assert client.profile("c1", "set", "Backend developer", space="client-notes")["profile"] == "Backend developer"
    assert client.profile("c1", space="client-notes")["profile"] == "Backend developer"
    asserted = client.facts("c1", "assert", predicate="nickname", value="老王", space="client-notes")
    assert asserted[0]["value"] == "老王"
    assert any(f["value"] == "老王" for f in client.facts("c1"))
    assert client.forget("c1", saved["id"]) == {"id": saved["id"], "status": "forgotten"}
    assert client.end_session("c1") == 0


def test_client_errors_carry_code_status_and_field(hub, client):
    with pytest.raises(MemoryHubError) as bad:
        client.save("c1", "nonsense", "t", "b")
    assert (bad.value.code, bad.value.status, bad.value.field) == ("bad_request", 400, "category")
    assert not bad.value.retryable
    with pytest.raises(MemoryHubError) as missing:
        client.recall("c1", "987654")
    assert (missing.value.code, missing.value.status) == ("not_found", 404)
    with pytest.raises(MemoryHubError) as denied, MemoryHubClient(hub.url, "mh_wrong") as stranger:
        stranger.spaces()
    assert (denied.value.code, denied.value.status) == ("unauthorized", 401)
    client.create_space("taken", "Taken")
    with pytest.raises(MemoryHubError) as conflict:
        client.create_space("taken", "Taken again")
    assert (conflict.value.code, conflict.value.status, conflict.value.field) == ("conflict", 409, "slug")


def test_client_reports_a_down_hub_as_unavailable():
    with pytest.raises(MemoryHubError) as down, MemoryHubClient(f"http://127.0.0.1:{free_port()}", "mh_x") as c:
        c.health()
    assert down.value.code == "unavailable" and down.value.status is None and down.value.retryable


def test_client_timeouts_are_configurable():
    with socket.socket() as silent:  # accepts connections, never answers
        silent.bind(("127.0.0.1", 0))
        silent.listen()
        accepted = []
        threading.Thread(target=lambda: accepted.append(silent.accept()), daemon=True).start()
        with pytest.raises(MemoryHubError) as slow, MemoryHubClient(
                f"http://127.0.0.1:{silent.getsockname()[1]}", "mh_x", timeout=0.3) as c:
            c.health()
    assert slow.value.code == "timeout" and slow.value.retryable


def test_a_rate_limited_call_says_when_to_come_back(tmp_path):
    limited = LiveHub(tmp_path / "limited-hub")
    limited.env["MEMORYHUB_RATE_LIMIT_PER_MINUTE"] = "1"
    limited.start()
    try:
        with pytest.raises(MemoryHubError) as refused, MemoryHubClient(limited.url, limited.token()) as c:
            for _ in range(3):  # the second call is over the limit, or the third if a minute turned in between
                c.spaces()
    finally:
        limited.close()
    assert (refused.value.code, refused.value.status) == ("rate_limited", 429) and refused.value.retryable
    assert 0 < refused.value.retry_after <= 60
