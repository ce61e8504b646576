"""MemoryHubProvider through a whole simulated conversation against the real served hub, outage included."""

from __future__ import annotations

import json
import re
import time

from memoryhub_client import MemoryHubClient, MemoryHubProvider
from memoryhub_client.delivery import hub_channel

from tests.client_helpers import archived, hub_json, make_space, titles
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
        "from memoryhub.agents.models import ApiToken; from memoryhub.vault.models import AccessRequest, Grant; "
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


def test_a_subagents_turn_is_not_archived_where_the_space_keeps_none(hub, tmp_path):
    token = hub.token(name="sub")
    sub = provider_for(hub, token, tmp_path / "spool.jsonl")
    sub.initialize("conv-3", agent_context="subagent")
    sub.sync_turn("a subagent's turn", "done")
    assert sub.flush(5)
    sub.shutdown()
    assert turns_of(hub, "conv-3") == []
    with MemoryHubClient(hub.url, token) as c:
        assert c.health()["status"] == "ok"


def test_turns_carry_their_agent_context_and_the_space_decides(hub, tmp_path):
    make_space(hub, "keeps-subagents", recordSubagents=True)
    make_space(hub, "primary-only")
    token = hub.token(name="contexts")
    for space in ("keeps-subagents", "primary-only"):
        sub = provider_for(hub, token, tmp_path / f"sub-{space}.jsonl", space=space)
        sub.initialize(f"sub-{space}", platform="cli", agent_context="subagent")
        sub.sync_turn(f"A sub-agent's turn in {space}", "done", session_id=f"sub-{space}", messages=[])
        cron = provider_for(hub, token, tmp_path / f"cron-{space}.jsonl", space=space)
        cron.initialize(f"cron-{space}", platform="cron", agent_context="cron")
        cron.sync_turn(f"A cron job's turn in {space}", "done")

        parent = provider_for(hub, token, tmp_path / f"parent-{space}.jsonl", space=space)
        parent.initialize(f"parent-{space}", platform="cli", agent_context="primary")
        parent.sync_turn(f"The parent's own turn in {space}", "ok")
        parent.on_delegation(task=f"Count the open tickets in {space}", result="There are 7",
                             child_session_id=f"child-{space}")
        for agent in (sub, cron, parent):
            assert agent.flush(20) and agent.status()["held"] == []  # sent and answered, kept or not
            agent.shutdown()
    assert titles(hub, "sub-keeps-subagents") == ["A sub-agent's turn in keeps-subagents"]
    assert archived(hub, "child-keeps-subagents") == [{"title": "Count the open tickets in keeps-subagents",
                                                       "space": "keeps-subagents"}]
    assert titles(hub, "sub-primary-only") == [] and titles(hub, "child-primary-only") == []
    assert titles(hub, "cron-keeps-subagents") == [] and titles(hub, "cron-primary-only") == []
    assert titles(hub, "parent-primary-only") == ["The parent's own turn in primary-only"]


def test_a_session_switch_moves_later_turns_only(hub, tmp_path):
    agent = provider_for(hub, hub.token(name="switch"), tmp_path / "spool.jsonl")
    agent.initialize("before-switch")
    agent.sync_turn("Said before the switch", "ok")
    agent.on_session_switch("after-switch", parent_session_id="before-switch", reset=True, reason="new_session")
    agent.sync_turn("Said after the switch", "ok")
    assert agent.flush(20)
    assert titles(hub, "before-switch") == ["Said before the switch"]
    assert titles(hub, "after-switch") == ["Said after the switch"]
    agent.on_session_end([])
    assert agent.flush(20)
    agent.shutdown()


def test_the_turn_start_fetches_this_turns_context_not_the_last_ones(hub, tmp_path):
    make_space(hub, "turn-start")
    agent = provider_for(hub, hub.token(name="turn-start"), tmp_path / "spool.jsonl", space="turn-start")
    agent.initialize("turn-start-1")
    agent.sync_turn("Our invoices are printed by a Brother HL-L2350 printer", "Noted.")
    agent.sync_turn("The cat sitter comes on Tuesdays at noon", "Noted.")
    assert agent.flush(20)
    agent.queue_prefetch("which printer prints invoices?")  # queued after the last turn, for the next one
    agent._warming.join(10)
    agent.on_turn_start(3, "when does the cat sitter come?")  # the next turn asks something else
    injected = agent.prefetch("when does the cat sitter come?")
    assert "Tuesdays" in injected and "Brother" not in injected
    assert agent.prefetch("which printer prints invoices?") != injected  # nothing stale left behind
    agent.shutdown()


def test_before_compression_the_queued_turns_land_and_the_summary_gets_their_ids(hub, tmp_path):
    agent = provider_for(hub, hub.token(name="compress"), tmp_path / "spool.jsonl")
    agent.initialize("compress-1")
    agent.sync_turn("The release train leaves every second Thursday", "ok")
    agent.sync_turn("Hotfixes skip the train", "ok")
    note = agent.on_pre_compress([{"role": "user", "content": "The release train leaves every second Thursday"}])
    ids = re.findall(r"id=(\d+)", note)
    assert "compress-1" in note and len(ids) == 2
    assert "Hotfixes skip the train" in json.loads(agent.handle_tool_call("memory_recall", {"id": ids[1]}))["body"]
    agent.shutdown()


def test_a_bridged_chat_goes_with_its_turns_as_the_hubs_channel(hub, tmp_path):
    spool = tmp_path / "spool.jsonl"
    agent = provider_for(hub, hub.token(name="bridge"), spool)
    agent.initialize("tg-1", platform="Telegram", chat_type="group", chat_id="-100123", chat_name="Ops",
                     user_id="42", user_name="wang", agent_context="primary")
    agent.sync_turn("A message from the ops group", "ok")
    assert agent.flush(20)
    agent.shutdown()
    assert titles(hub, "tg-1") == ["A message from the ops group"]
    added = [json.loads(line)["add"] for line in spool.read_text().splitlines() if "add" in json.loads(line)]
    assert added[-1]["channel"] == {"platform": "Telegram", "chat_type": "group", "chat_id": "-100123",
                                    "chat_name": "Ops", "user_id": "42", "user_name": "wang"}
    kept = hub_json(hub, "import json; from memoryhub.memories.models import Entry; "
                         "e = Entry.objects.get(session_id='tg-1'); print(json.dumps([e.tags, e.channel, e.chat]))")
    assert kept == [["telegram", "telegram-group"], "-100123#u42",
                    {"platform": "telegram", "chat_type": "group", "chat_id": "-100123", "chat_name": "Ops",
                     "user_id": "42", "user_name": "wang"}]


def test_hub_channel_maps_hermes_chats_and_leaves_out_what_the_hub_would_refuse():
    assert hub_channel({"platform": "discord", "chat_type": "dm", "chat_id": "77", "user_id": "77"}) == {
        "platform": "discord", "chat_type": "private", "chat_id": "77", "user_id": "77"}
    assert hub_channel({"platform": "slack", "chat_type": "thread", "chat_id": "C1", "thread_id": "1.2"})[
        "chat_type"] == "group"
    assert hub_channel({"platform": "qq", "chat_type": "group", "chat_id": "1", "user_id": "x" * 101,
                        "user_name": "a\x00b"}) == {"platform": "qq", "chat_type": "group", "chat_id": "1",
                                                    "user_name": "ab"}
    assert hub_channel({"platform": "qq", "chat_type": "group", "chat_id": "has space"}) is None
    assert hub_channel({"platform": "", "chat_type": "group", "chat_id": "1"}) is None
    assert hub_channel({}) is None


def test_prefetch_leaves_out_the_hubs_notebooks_which_hermes_injects_itself(hub, tmp_path):
    token = hub.token(name="own-notebooks")
    with MemoryHubClient(hub.url, token) as client:
        client.call_tool("memory", "s", {"action": "add", "target": "memory", "content": "Hermes has this note already."})
        client.turn("s", "The kestrel staging box reboots on Sundays", "Noted.")
        assert "Hermes has this note already." in client.context("fresh", "kestrel staging")["text"]
    agent = provider_for(hub, token, tmp_path / "spool.jsonl")
    agent.initialize("own-notebooks-1")
    block = agent.prefetch("kestrel staging")
    agent.shutdown()
    assert "kestrel" in block and "## MEMORY" not in block and "Hermes has this note already." not in block
