"""The provider's writes against the real served hub: nothing dropped, nothing sent twice, order kept across a
killed process, refusals held and reported, several agents sharing one spool path."""

from __future__ import annotations

import json
import logging
import signal

import httpx
from memoryhub_client import MemoryHubClient, MemoryHubProvider

from tests.client_helpers import agent_process, make_space, provider_for, titles
from tests.livehub import free_port


def spool_then_die(token: str, spool, session: str, count: int) -> None:
    """An agent whose hub is away writes `count` turns into its spool and is killed: no shutdown, no flush."""
    agent = agent_process(f"http://127.0.0.1:{free_port()}", token, spool, session, count)
    try:
        assert agent.stdout.readline().strip() == "written"
    finally:
        agent.send_signal(signal.SIGKILL)
        agent.wait(30)


def test_turns_written_before_a_kill_arrive_in_order_after_the_restart(hub, tmp_path):
    token = hub.token(name="killed")
    spool = tmp_path / "spool.jsonl"
    spool_then_die(token, spool, "killed-1", 5)
    assert titles(hub, "killed-1") == []

    again = provider_for(hub, token, spool)
    again.initialize("killed-1")
    assert again.flush(30)
    again.shutdown()
    assert titles(hub, "killed-1") == [f"Killed agent turn {n}" for n in range(5)]


class CountingTransport(httpx.HTTPTransport):
    """A real HTTP transport that also notes the path of every request it sends."""

    def __init__(self):
        super().__init__()
        self.paths: list[str] = []

    def handle_request(self, request):
        self.paths.append(request.url.path)
        return super().handle_request(request)


def test_a_backlog_of_turns_reaches_the_hub_in_batches_in_order(hub, tmp_path):
    token = hub.token(name="backlog")
    spool = tmp_path / "spool.jsonl"
    spool_then_die(token, spool, "backlog-1", 120)
    transport = CountingTransport()
    space = make_space(hub, "backlog")  # its own space: the same words elsewhere would be a byte-identical repeat
    again = provider_for(hub, token, spool, space=space, client=MemoryHubClient(hub.url, token, transport=transport))
    again.initialize("backlog-1")
    assert again.flush(60)
    again.shutdown()
    assert titles(hub, "backlog-1") == [f"Killed agent turn {n}" for n in range(120)]
    turn_requests = [p for p in transport.paths if p.endswith("/turns")]
    assert len(turn_requests) <= 1 + 120 // 50 + 1  # the set-up check, then batches of up to 50


def test_a_refused_turn_is_held_reported_and_later_turns_go_on(hub, tmp_path, caplog):
    token = hub.token(name="refused")
    spool = tmp_path / "spool.jsonl"
    warnings: list[str] = []
    agent = provider_for(hub, token, spool)
    agent.initialize("refused-1", warning_callback=warnings.append)
    with caplog.at_level(logging.WARNING, logger="memoryhub_client"):
        agent.sync_turn("First turn is fine", "ok")
        agent.sync_turn("A turn of a session whose id is too long", "ok", session_id="s" * 300)
        agent.sync_turn("A turn over the hub's size limit " + "x" * 1_100_000, "ok")
        agent.sync_turn("A turn with a lone \udc80 surrogate", "ok")  # text the hub cannot take
        agent.sync_turn("Last turn is fine", "ok")
        assert not agent.flush(30)  # not all reached the hub
    assert titles(hub, "refused-1") == ["First turn is fine", "Last turn is fine"]
    status = agent.status()
    assert status["available"] and status["queued"] == 0
    assert [(h["kind"], h["error"]["code"], h["error"].get("field")) for h in status["held"][:2]] == [
        ("turn", "bad_request", "session_id"), ("turn", "too_large", None)]
    assert len(status["held"]) == 3 and status["held"][2]["session_id"] == "refused-1"
    refusals = [r.getMessage() for r in caplog.records if "refused a turn" in r.getMessage()]
    assert len(refusals) == 3 and all(str(spool) in m for m in refusals) and warnings[-3:] == refusals
    agent.shutdown()

    kept = [json.loads(line) for line in spool.read_text().splitlines()]
    assert "A turn with a lone \udc80 surrogate" in [r["add"]["user"] for r in kept if "add" in r]

    held = status["held"]
    again = provider_for(hub, token, spool)  # the next start offers them again: still refused, still kept
    again.initialize("refused-1")
    assert not again.flush(30)
    assert [h["id"] for h in again.status()["held"]] == [h["id"] for h in held]
    assert all(again.discard(h["id"]) for h in held)  # a person gives up on them
    assert again.flush(5) and again.status()["held"] == []
    again.shutdown()
    assert titles(hub, "refused-1") == ["First turn is fine", "Last turn is fine"]
    third = provider_for(hub, token, spool)
    third.initialize("refused-1")
    assert third.status()["queued"] == 0 and third.flush(5)
    third.shutdown()


def test_two_agents_on_one_spool_path_send_only_their_own_and_a_later_start_adopts_the_rest(hub, tmp_path):
    token = hub.token(name="shared-spool")
    spool = tmp_path / "spool.jsonl"
    away = MemoryHubProvider(f"http://127.0.0.1:{free_port()}", token, spool_path=spool, retry_max_delay=0.5)
    away.initialize("shared-a")
    away.sync_turn("A turn of the agent whose hub is away", "ok")

    near = provider_for(hub, token, spool)  # a second agent of the same gateway, same spool path
    near.initialize("shared-b")
    near.sync_turn("A turn of the agent next to it", "ok")
    assert near.flush(20)
    assert titles(hub, "shared-a") == []  # not sent behind the back of the agent that owns it
    assert titles(hub, "shared-b") == ["A turn of the agent next to it"]
    assert near.status()["spool"] == f"{spool}.2"
    near.shutdown()

    away.drain_timeout = 0.2
    away.shutdown()  # leaves its turn in the spool
    later = provider_for(hub, token, spool)
    later.initialize("shared-c")
    assert later.flush(20)
    later.shutdown()
    assert titles(hub, "shared-a") == ["A turn of the agent whose hub is away"]
    assert titles(hub, "shared-b") == ["A turn of the agent next to it"]
    assert not (tmp_path / "spool.jsonl.2").exists()  # adopted files are merged into the owner's and removed
