"""memory_turn and memory_context over MCP answer what POST /api/v1/turns and /context answer for the same input
(one operation behind both faces), and the context block is a prompt and a resource a client can pin; checked with
the official SDK client against the real served hub.

The hub is shared with other tests, so what these write stays out of their way: words no other test asks about,
facts of an origin of their own, notebooks of a workspace of their own."""

from __future__ import annotations

from urllib.parse import urlencode

import httpx
import pytest
from mcp.shared.exceptions import MCPError

from tests.test_mcp import mcp_session, payload

SESSION = "pinned-session"


def http(hub, token: str, path: str, body: dict) -> httpx.Response:
    return httpx.post(f"{hub.url}/api/v1/{path}", json=body, headers={"Authorization": f"Bearer {token}"}, timeout=30)


def normal(answer):
    """An answer without what differs between two writes of the same turn: ids, times, the space's slug."""
    if isinstance(answer, dict):
        return {k: normal(v) for k, v in answer.items() if k not in ("id", "at", "space", "said_at", "source")}
    if isinstance(answer, list):
        return [normal(v) for v in answer]
    return answer


def test_memory_turn_answers_as_post_turns_does(hub):
    for slug in ("by-http", "by-mcp"):
        assert http(hub, hub.token(), "spaces", {"slug": slug, "name": slug}).status_code == 201
    token = hub.token("--origin", "mcpcheck", name="turns-both-ways")
    turn = {"session_id": "s-turn", "user": "my name is Zoltan Quibbleworth", "assistant": "hello Zoltan"}
    by_http = http(hub, token, "turns", {**turn, "space": "by-http", "idempotency_key": "http-1"})
    assert by_http.status_code == 201, by_http.text

    async def work(session):
        fresh = payload(await session.call_tool("memory_turn", {**turn, "space": "by-mcp", "idempotency_key": "m-1"}))
        repeat = payload(await session.call_tool("memory_turn", {**turn, "space": "by-http", "idempotency_key": "http-1"}))
        batch = payload(await session.call_tool("memory_turn", {"space": "by-mcp", "turns": [
            {**turn, "user": "the quibbleworth kiln moved to bay nine", "idempotency_key": "mcp-b1"},
            {"session_id": "s-turn", "assistant": "no user here", "idempotency_key": "mcp-b2"}]}))
        # a model has no conversation id to give: the MCP session's is used, for one turn and for a batch's turns
        unnamed = payload(await session.call_tool("memory_turn", {
            "user": "the quibbleworth kiln needs a new thermocouple", "assistant": "x", "space": "by-mcp"}))
        unnamed_batch = payload(await session.call_tool("memory_turn", {"space": "by-mcp", "turns": [
            {"user": "the quibbleworth glaze is cobalt", "assistant": "y", "idempotency_key": "mcp-b3"}]}))
        return fresh, repeat, batch, (unnamed, unnamed_batch)

    fresh, repeat, batch, (unnamed, unnamed_batch) = mcp_session(hub, token, **{"X-MemoryHub-Session": "s-mcp"})(work)
    assert normal(fresh) == normal(by_http.json()) and fresh["entry"]["space"] == "by-mcp"
    assert [f["value"] for f in fresh["facts"]["asserted"]] == ["Zoltan Quibbleworth"]
    again = http(hub, token, "turns", {**turn, "space": "by-http", "idempotency_key": "http-1"})
    assert again.status_code == 200 and repeat == again.json()  # the same entry, nothing written twice
    assert [r["status"] for r in batch["results"]] == [201, 400]
    assert batch["results"][1]["error"] == {"code": "bad_request", "message": "user is required", "field": "user"}
    assert unnamed["entry"]["space"] == "by-mcp" and [r["status"] for r in unnamed_batch["results"]] == [201]


def test_memory_context_the_prompt_and_the_resource_give_the_post_context_block(hub):
    token = hub.token(name="context-both-ways")
    workspace = "/srv/zephyrine-quarry"
    http(hub, token, "tools/memory_save", {"session_id": "seed", "arguments": {
        "category": "decision", "title": "Zephyrine quarry store", "body": "The zephyrine quarry runs on Xylobase 7.",
        "workspace": workspace}})
    http(hub, token, "tools/memory", {"session_id": "seed", "arguments": {
        "action": "add", "target": "memory", "content": "Zephyrine quarry ships with make ship.",
        "workspace": workspace}})
    body = {"session_id": SESSION, "query": "what does the zephyrine quarry run on", "workspace": workspace,
            "max_chars": 1200}
    by_http = http(hub, token, "context", body)
    assert by_http.status_code == 200 and "Xylobase 7" in by_http.json()["text"]
    assert "make ship" in by_http.json()["text"]  # the workspace's pinned notebook

    async def work(session):
        tool = payload(await session.call_tool("memory_context", body))
        prompts = (await session.list_prompts()).prompts
        prompt = await session.get_prompt("memory_context", {"query": body["query"], "workspace": workspace,
                                                              "max_chars": "1200"})
        resources = (await session.list_resources()).resources
        templates = (await session.list_resource_templates()).resource_templates
        read = await session.read_resource("memoryhub://context?" + urlencode(
            {"query": body["query"], "workspace": workspace, "max_chars": 1200}))
        return tool, prompts, prompt, resources, templates, read

    tool, prompts, prompt, resources, templates, read = mcp_session(
        hub, token, **{"X-MemoryHub-Session": SESSION})(work)
    assert tool == http(hub, token, "context", body).json() == by_http.json()

    async def unnamed(session):  # what a model calls: the query alone, the session the MCP session's
        listed = {t.name: t.input_schema for t in (await session.list_tools()).tools}
        answer = payload(await session.call_tool("memory_context", {k: v for k, v in body.items() if k != "session_id"}))
        return listed, answer

    listed, answer = mcp_session(hub, token, **{"X-MemoryHub-Session": SESSION})(unnamed)
    assert answer == by_http.json()
    assert "session_id" not in listed["memory_context"]["required"]
    assert "this MCP session" in listed["memory_context"]["properties"]["session_id"]["description"]
    assert "session_id" not in listed["memory_turn"]["properties"]["turns"]["items"]["required"]
    assert [p.name for p in prompts] == ["memory_context"]
    assert {a.name for a in prompts[0].arguments} >= {"query", "space", "workspace", "max_chars", "session_id"}
    assert prompt.messages[0].role == "user" and prompt.messages[0].content.text == by_http.json()["text"]
    assert [str(r.uri) for r in resources] == ["memoryhub://context"]
    assert templates[0].uri_template.startswith("memoryhub://context{?query,")
    assert read.contents[0].text == by_http.json()["text"] and read.contents[0].mime_type == "text/markdown"


def test_a_bad_prompt_or_resource_argument_is_a_protocol_error_naming_the_field(hub):
    token = hub.token(name="context-refusals")

    async def work(session):
        errors = []
        for attempt in (lambda: session.get_prompt("memory_context", {"max_chars": "many"}),
                        lambda: session.read_resource("memoryhub://context?colour=red"),
                        lambda: session.read_resource("memoryhub://elsewhere"),
                        lambda: session.get_prompt("memory_elsewhere", {})):
            with pytest.raises(MCPError) as caught:
                await attempt()
            errors.append(caught.value.error.data["error"])
        return errors

    bad_number, unknown, elsewhere, no_prompt = mcp_session(hub, token)(work)
    assert (bad_number["code"], bad_number["field"]) == ("bad_request", "max_chars")
    assert (unknown["code"], unknown["field"]) == ("bad_request", "colour")
    assert elsewhere["code"] == no_prompt["code"] == "not_found"
