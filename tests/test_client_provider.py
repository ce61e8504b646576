"""MemoryHubProvider through a whole simulated conversation against the real served hub, outage included."""

from __future__ import annotations

import json
import re
import time

from memoryhub_client import MemoryHubClient, MemoryHubProvider

from tests.livehub import LiveHub




def turns_of(hub: LiveHub, session_id: str) -> list[str]:
    """The archived turns of a session, oldest first, by their title (the user's first sentence)."""
    out = hub.manage("shell", "-c", (
        "import json; from memoryhub.memories.models import Entry; "
        f"print(json.dumps([e.title for e in Entry.objects.filter(kind='turn', session_id={session_id!r})"
        ".order_by('at', 'id')]))"))
    return json.loads(out.strip().splitlines()[-1])


def open_grant(hub: LiveHub, session_id: str) -> str:
    """A live vault grant for the test agent's session, as a person's approval leaves one."""
    out = hub.manage("shell", "-c", (
        "from memoryhub.api.models import ApiToken; from memoryhub.vault.models import AccessRequest, Grant; "
        "t = ApiToken.objects.get(name='conversation'); "
        f"r = AccessRequest.objects.create(token=t, session_id={session_id!r}, status='approved'); "
        f"Grant.objects.create(request=r, session_id={session_id!r}); print(r.pk)"))
    return out.split()[-1]


def grant_ended(hub: LiveHub, request_id: str) -> bool:
    out = hub.manage("shell", "-c", "from memoryhub.vault.models import Grant; "
                                    f"print(Grant.objects.get(request_id={request_id!r}).ended_at is not None)")
    return out.split()[-1] == "True"


def provider_for(hub: LiveHub, token: str, spool, **kw) -> MemoryHubProvider:
    return MemoryHubProvider(hub.url, token, spool_path=spool, retry_max_delay=0.5, prefetch_timeout=2.0, **kw)


def test_provider_is_configured_by_environment_alone(monkeypatch, tmp_path):
    monkeypatch.delenv("MEMORYHUB_URL", raising=False)
    monkeypatch.delenv("MEMORYHUB_TOKEN", raising=False)
    assert not MemoryHubProvider().is_available()
    monkeypatch.setenv("MEMORYHUB_URL", "http://127.0.0.1:9")
    monkeypatch.setenv("MEMORYHUB_TOKEN", "mh_from_env")
    provider = MemoryHubProvider()
    assert provider.name == "memoryhub" and provider.is_available()  # no network asked
    assert provider.client.url == "http://127.0.0.1:9"


def test_provider_runs_a_whole_conversation_through_an_outage(hub, tmp_path):
    token = hub.token(name="conversation")
    spool = tmp_path / "spool.jsonl"
    agent = provider_for(hub, token, spool, workspace="/home/wang/ledger")
    agent.initialize("conv-1", platform="cli", agent_context="primary")
    assert "memory_recall" in agent.system_prompt_block()
    assert {"memory_save", "memory_search", "memory_recall"} <= {s["name"] for s in agent.get_tool_schemas()}

    assert "PostgreSQL" not in agent.prefetch("which database?")  # nothing of this conversation yet
    agent.sync_turn("We decided the ledger runs on PostgreSQL 16", "Noted: PostgreSQL 16 for the ledger.")
    agent.sync_turn("The staging server is called kestrel", "Got it, kestrel is staging.")
    assert agent.flush(20)
    agent.queue_prefetch("ledger database")
    agent._warming.join(10)
    warmed = agent.prefetch("anything")  # the queued prefetch's result, picked up by the next prefetch
    assert "PostgreSQL" in warmed
    injected = agent.prefetch("what is the staging server called?")
    card_id = re.search(r"id=(\S+)", injected).group(1)  # cards only; the full text is one recall away
    assert "kestrel" in json.loads(agent.handle_tool_call("memory_recall", {"id": card_id}))["body"]
    assert turns_of(hub, "conv-1") == ["We decided the ledger runs on PostgreSQL 16",
                                       "The staging server is called kestrel"]

    found = json.loads(agent.handle_tool_call("memory_search", {"query": "kestrel staging"}))
    assert found["results"], found
    recalled = json.loads(agent.handle_tool_call("memory_recall", {"id": found["results"][0]["id"]}))
    assert "kestrel" in recalled["body"]
    missing = json.loads(agent.handle_tool_call("memory_recall", {"id": "424242"}))
    assert missing["error"]["code"] == "not_found" and missing["error"]["field"] == "id"

    agent.on_memory_write("add", "user", "Prefers green tea in the afternoon")
    assert agent.flush(20)
    assert json.loads(agent.handle_tool_call("memory_search", {"query": "green tea"}))["results"]

    hub.stop()  # the hub goes away mid-conversation
    started = time.monotonic()
    assert agent.prefetch("kestrel") == ""
    agent.sync_turn("Third turn while the hub is down", "Still answering")
    assert json.loads(agent.handle_tool_call("memory_search", {"query": "x"}))["error"]["code"] == "unavailable"
    assert time.monotonic() - started < 5  # the turn never waits on the hub
    agent.drain_timeout = 0.5
    agent.shutdown()  # the agent exits: the undelivered turn stays in the spool
    assert "Third turn while the hub is down" in spool.read_text(encoding="utf-8")

    hub.start()  # same data dir
    again = provider_for(hub, token, spool, workspace="/home/wang/ledger")
    again.initialize("conv-1")
    again.sync_turn("Fourth turn after the restart", "Welcome back")
    assert again.flush(30)
    assert turns_of(hub, "conv-1") == ["We decided the ledger runs on PostgreSQL 16",
                                       "The staging server is called kestrel", "Third turn while the hub is down",
                                       "Fourth turn after the restart"]

    hub.stop()  # down again; this time the worker retries until it is back
    again.sync_turn("Fifth turn during a blip", "ok")
    time.sleep(1)
    hub.start()
    assert again.flush(30)
    assert turns_of(hub, "conv-1")[-1] == "Fifth turn during a blip" and len(turns_of(hub, "conv-1")) == 5

    request_id = open_grant(hub, "conv-1")
    again.on_session_end([{"role": "user", "content": "bye"}])
    assert again.flush(20)
    assert grant_ended(hub, request_id)
    again.shutdown()


def test_a_replayed_turn_is_never_written_twice(hub, tmp_path):
    token = hub.token(name="replay")
    spool = tmp_path / "spool.jsonl"
    first = provider_for(hub, token, spool)
    first.initialize("conv-2")
    first.sync_turn("Only once, please", "Sure")
    assert first.flush(20)
    first.shutdown()
    delivered = [json.loads(line)["add"] for line in spool.read_text().splitlines() if "add" in json.loads(line)]
    spool.write_text("".join(json.dumps({"add": job}) + "\n" for job in delivered))  # as if "done" was never written
    second = provider_for(hub, token, spool)
    second.initialize("conv-2")
    assert second.flush(20)
    second.shutdown()
    assert turns_of(hub, "conv-2") == ["Only once, please"]


def test_subagents_read_but_never_write(hub, tmp_path):
    token = hub.token(name="sub")
    sub = provider_for(hub, token, tmp_path / "spool.jsonl")
    sub.initialize("conv-3", agent_context="subagent")
    sub.sync_turn("a subagent's turn", "done")
    assert sub.flush(5)
    sub.shutdown()
    assert turns_of(hub, "conv-3") == []
    with MemoryHubClient(hub.url, token) as c:
        assert c.health()["status"] == "ok"
