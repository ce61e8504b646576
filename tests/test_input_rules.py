"""Input rules (docs/api.md, Conventions): bad text, unknown fields and arguments, ids, unknown paths, bad Hosts.

Each answer is a 4xx in the API's error shape naming the field at fault, and nothing is written.
"""

import json

import pytest

from memoryhub.memories.models import Entry
from memoryhub.operations import registry

pytestmark = pytest.mark.django_db

BAD_TEXT = {"lone surrogate": "\\ud800", "low surrogate": "ab\\udfffcd", "NUL": "a\\u0000b",
            "non-character": "x\\ufffe", "plane non-character": "\\ud83f\\udfff"}


def error(response, status=400):
    assert response.status_code == status, response.content
    return response.json()["error"]


@pytest.mark.parametrize("bad", list(BAD_TEXT.values()), ids=list(BAD_TEXT))
@pytest.mark.parametrize("path, template, field", [
    ("turns", '{"session_id": "s", "user": "hi %s", "assistant": "ok"}', "user"),
    ("turns", '{"session_id": "s%s", "user": "hi", "assistant": "ok"}', "session_id"),
    ("context", '{"session_id": "s", "query": "%s"}', "query"),
    ("tools/memory_save", '{"session_id": "s", "arguments": {"category": "fact", "title": "t", "body": "b", '
                          '"tags": ["ok", "%s"]}}', "tags[1]"),
    ("tools/memory_note", '{"session_id": "s", "arguments": {"text": "%s"}}', "text"),
    ("spaces", '{"slug": "x", "name": "%s"}', "name"),
])
def test_text_the_hub_cannot_keep_is_a_bad_request_naming_the_field(api, bad, path, template, field):
    answer = error(api.post(path, raw=(template % bad).encode()))
    assert answer["code"] == "bad_request" and answer["field"] == field
    assert not Entry.objects.exists()


def test_a_bad_character_in_a_field_name_is_refused(api):
    answer = error(api.post("turns", raw=b'{"session_id": "s", "user": "u", "assistant": "a", "x\\ud800": 1}'))
    assert answer["code"] == "bad_request"


@pytest.mark.parametrize("name", sorted(registry.TOOLS))
def test_every_tool_refuses_an_argument_its_schema_does_not_declare(api, name):
    """Generated from the registry: a tool added tomorrow is covered too."""
    answer = error(api.tool(name, categroy="fact", title="t", body="b"))
    assert answer["code"] == "bad_request" and answer["field"] == "categroy"
    assert "categroy" in answer["message"]
    assert not Entry.objects.exists()


def test_a_misspelt_filter_never_widens_a_vault_request(api):
    api.post("spaces", {"slug": "safe", "name": "Safe", "access": "vault"})
    api.tool("memory_save", category="fact", title="t", body="b", space="safe")
    answer = error(api.tool("memory_request", space="safe", querry="nothing like this"))
    assert answer["field"] == "querry"


def test_unknown_keys_inside_a_notebook_operation_are_refused(api):
    answer = error(api.tool("memory", operations=[{"action": "add", "target": "memory", "content": "x",
                                                   "taget": "user"}]))
    assert answer["field"] == "operations[0].taget"


@pytest.mark.parametrize("path, body, field", [
    ("turns", {"session_id": "s", "user": "u", "assistant": "a", "spcae": "x"}, "spcae"),
    ("context", {"session_id": "s", "query": "q", "limit": 3}, "limit"),
    ("spaces", {"slug": "x", "name": "x", "acess": "vault"}, "acess"),
    ("tools/memory_note", {"session_id": "s", "arguments": {"text": "x"}, "space": "default"}, "space"),
    ("sessions/s1/end", {"grants": "all"}, "grants"),
])
def test_unknown_body_fields_are_refused_by_name(api, path, body, field):
    answer = error(api.post(path, body))
    assert answer["code"] == "bad_request" and answer["field"] == field
    assert not Entry.objects.exists()


@pytest.mark.parametrize("record_id", ["²", "١٢", "t²", "t٣", "9" * 30, "t" + "9" * 30, "１"])
@pytest.mark.parametrize("tool", ["memory_recall", "memory_forget"])
def test_ids_that_are_not_ascii_digits_are_not_ids(api, tool, record_id):
    api.tool("memory_note", text="a note to find")
    assert error(api.tool(tool, id=record_id), 404)["code"] == "not_found"


def test_a_non_ascii_content_length_is_not_a_crash(api):
    response = api.client.post("/api/v1/turns", data=b"{}", content_type="application/json",
                               CONTENT_LENGTH="²", **api.headers)
    assert response.status_code in (400, 413)


@pytest.mark.parametrize("method", ["get", "post"])
@pytest.mark.parametrize("path", ["/api/v1/nope", "/api/v1/tools/memory_note/extra", "/api/v2/tools", "/mcp/x"])
def test_unknown_agent_paths_answer_json(api, method, path):
    response = getattr(api.client, method)(path, **api.headers)
    assert response.status_code == 404 and response["Content-Type"] == "application/json"
    assert response.json()["error"]["code"] == "not_found"


def test_unknown_dashboard_paths_stay_html(client, staff):
    response = client.get("/no-such-page/")
    assert response.status_code == 404 and "application/json" not in response["Content-Type"]


def test_a_bad_host_header_on_the_api_answers_json(api):
    response = api.client.get("/api/v1/spaces", HTTP_HOST="evil.example", **api.headers)
    assert response.status_code == 400 and response["Content-Type"] == "application/json"
    assert response.json()["error"]["code"] == "bad_request"


def test_a_valid_body_still_works(api):
    """The checks refuse only what they name: Chinese, emoji and astral text pass untouched."""
    text = "记住：王哥喜欢 🍵 and 𝔘𝔫𝔦𝔠𝔬𝔡𝔢"
    saved = api.tool("memory_note", text=text).json()["result"]
    assert Entry.objects.get(pk=saved["id"]).body == text
    assert json.loads(api.tool("memory_recall", id=saved["id"]).content)["result"]["body"] == text


# --- MCP: the same rules before the SDK parses anything ---------------------------------------

def mcp_post(hub, token: str, raw: bytes):
    import httpx

    return httpx.post(f"{hub.url}/mcp", content=raw, timeout=30, headers={
        "Authorization": f"Bearer {token}", "Content-Type": "application/json",
        "Accept": "application/json, text/event-stream"})


def call_tool(name: str, arguments: str) -> bytes:
    return ('{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "%s", "arguments": %s}}'
            % (name, arguments)).encode()


@pytest.mark.parametrize("raw, field", [
    (b"[" * 100_000 + b"]" * 100_000, None),
    (b'{"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": ' + b"[" * 40 + b"]" * 40 + b"}", "params"),
    (b"this is not json", None),
    (b'{"hello": "world"}', "jsonrpc"),
    (b'{"jsonrpc": "2.0", "id": 1, "method": 5}', "method"),
    (call_tool("memory_note", '{"text": "\\ud800"}'), "text"),
    (call_tool("memory_note", '{"text": "a\\u0000b"}'), "text"),
])
def test_every_mcp_parsing_error_is_a_4xx_in_the_api_shape(hub, raw, field):
    response = mcp_post(hub, hub.token(), raw)
    assert response.status_code == 400, response.text
    answer = response.json()["error"]
    assert answer["code"] == "bad_request"
    assert answer.get("field") == field or answer["field"].startswith(f"{field}[")  # deep: the path to the depth


def test_an_unknown_mcp_tool_argument_is_a_tool_error_naming_it(hub):
    response = mcp_post(hub, hub.token(), call_tool("memory_note", '{"text": "x", "spcae": "default"}'))
    result = response.json()["result"]
    assert result["isError"] and result["structuredContent"]["error"]["field"] == "spcae"
