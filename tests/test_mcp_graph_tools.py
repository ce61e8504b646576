"""memory_link and memory_feedback over /mcp (the SDK's own client) and through MemoryHubClient, against the
real served hub; the registry serves both faces, so the tools and their errors are the API's."""

from __future__ import annotations

import httpx
from memoryhub_client import MemoryHubClient, MemoryHubError

from tests.livehub import LiveHub
from tests.test_mcp import mcp_session, payload


def create_holographic_space(hub: LiveHub, token: str, slug: str) -> None:
    """A Holographic space with no service settings: its JSON store follows the hub's data directory."""
    r = httpx.post(f"{hub.url}/api/v1/spaces", headers={"Authorization": f"Bearer {token}"},
                   json={"slug": slug, "name": slug, "provider": "holographic", "config": {"minTrust": 0.3}})
    assert r.status_code == 201, r.text


def test_mcp_lists_both_tools_links_memories_and_moves_trust(hub):
    token = hub.token()
    create_holographic_space(hub, token, "mcp-holo")

    async def work(session):
        names = {t.name for t in (await session.list_tools()).tools}
        assert {"memory_link", "memory_feedback"} <= names
        a = payload(await session.call_tool("memory_save", {
            "category": "decision", "title": "Backups nightly", "body": "Backups run nightly at 02:00."}))["id"]
        b = payload(await session.call_tool("memory_save", {
            "category": "pitfall", "title": "Disk full", "body": "The backup disk filled up in March."}))["id"]
        linked = payload(await session.call_tool("memory_link", {"from": b, "to": a, "kind": "causal"}))
        recalled = payload(await session.call_tool("memory_recall", {"id": a}))
        refused = await session.call_tool("memory_feedback", {"id": a, "verdict": "wrong"})
        fact = payload(await session.call_tool("memory_note", {"text": "The office plant needs water on Mondays",
                                                                "space": "mcp-holo"}))["id"]
        judged = [payload(await session.call_tool("memory_feedback", {"id": fact, "verdict": "wrong"}))
                  for _ in range(3)]
        found = payload(await session.call_tool("memory_search", {"query": "office plant water"}))
        return a, b, linked, recalled, refused, fact, judged, found

    a, b, linked, recalled, refused, fact, judged, found = mcp_session(hub, token)(work)
    assert linked == {"from": b, "to": a, "kind": "causal"} and b in recalled["related"]
    assert refused.is_error and payload(refused)["error"]["code"] == "unsupported"
    assert [j["trust"] for j in judged] == [0.4, 0.3, 0.2] and all(j["id"] == fact for j in judged)
    assert fact not in [r["id"] for r in found["results"]]


def test_a_qq_token_over_mcp_cannot_link_a_local_memory(hub):
    local = hub.token()
    qq = hub.token("--origin", "qq", name="qq-bridge")

    def note(text: str):
        async def save(session):
            return payload(await session.call_tool("memory_note", {"text": text}))["id"]
        return save

    mine_local = mcp_session(hub, local)(note("Salary review is in June"))
    mine_qq = mcp_session(hub, qq)(note("The group barbecue is in June"))

    async def link(session):
        return await session.call_tool("memory_link", {"from": mine_qq, "to": mine_local})

    refused = mcp_session(hub, qq)(link)
    assert refused.is_error and payload(refused)["error"] == {
        "code": "not_found", "message": f"no memory {mine_local!r}", "field": "to"}


def test_the_python_client_links_and_gives_feedback(hub):
    with MemoryHubClient(hub.url, hub.token()) as client:
        create_holographic_space(hub, client.token, "client-holo")
        first = client.note("c1", "The staging server reboots on Sundays")["id"]
        second = client.note("c1", "Sunday reboots drop the staging cache")["id"]
        assert client.link("c1", first, second) == {"from": first, "to": second, "kind": "semantic"}
        assert second in client.recall("c1", first)["related"]
        fact = client.note("c1", "The release train leaves on Thursdays", space="client-holo")["id"]
        assert client.feedback("c1", fact, "helpful") == {"id": fact, "trust": 0.55}
        try:
            client.feedback("c1", first, "helpful")
        except MemoryHubError as exc:
            assert (exc.code, exc.status, exc.field) == ("unsupported", 422, "id")
        else:
            raise AssertionError("feedback on a native memory must be unsupported")
