"""The operation declarations (memoryhub/operations): each input rule stated once and shown to agents as declared,
each refusal a sentence naming its field, each permission a named access check."""

import json

import pytest

from memoryhub.memories.models import Entry
from memoryhub.operations import registry

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("name", sorted(registry.OPERATIONS))
def test_every_operation_names_its_permission_and_describes_itself(name):
    operation = registry.OPERATIONS[name]
    assert operation.permission.__name__ != "<lambda>" and operation.permission.__doc__, name
    assert operation.description and operation.input.model_config["extra"] == "forbid"


@pytest.mark.parametrize("name", sorted(registry.OPERATIONS))
def test_the_schema_agents_see_is_plain_json_schema(name):
    """No $ref for clients that cannot follow one, no null alternatives, no titles, an object at the top."""
    parameters = registry.OPERATIONS[name].parameters()
    text = json.dumps(parameters)
    assert parameters["type"] == "object" and parameters["additionalProperties"] is False
    assert "$ref" not in text and "anyOf" not in text and '"null"' not in text and '"title": "' not in text


def test_the_title_cap_of_memory_save_is_in_the_schema_and_in_the_refusal(api):
    schema = next(t["function"]["parameters"] for t in api.get("tools").json()["tools"]
                  if t["function"]["name"] == "memory_save")
    assert schema["properties"]["title"]["maxLength"] == 300
    answer = api.tool("memory_save", category="fact", title="t" * 412, body="b")
    assert answer.status_code == 400
    assert answer.json()["error"] == {"code": "bad_request", "field": "title",
                                      "message": "title is 412 characters; the limit is 300"}


@pytest.mark.parametrize("arguments, field, words", [
    ({"query": "q", "limit": 0}, "limit", "limit must be between 1 and 50"),
    ({"query": "q", "limit": "5"}, "limit", "limit must be an integer"),
    ({"query": "q", "limit": True}, "limit", "limit must be an integer"),
    ({"query": 7}, "query", "query must be a string"),
    ({"query": "   "}, "query", "query must not be empty"),
    ({"limit": 3}, "query", "query is required"),
    ({"query": "q", "skipTags": "test"}, "skipTags", 'skipTags must be a list of tags, e.g. [] or ["test", "archived"]'),
    ({"query": "q", "limti": 3}, "limti", "unknown argument 'limti'; allowed: query, scope, limit, skipTags, space, "
                                          "workspace"),
])
def test_a_refusal_is_one_sentence_naming_the_field(api, arguments, field, words):
    answer = api.tool("memory_search", **arguments)
    assert answer.status_code == 400 and answer.json()["error"] == {"code": "bad_request", "field": field,
                                                                    "message": words}


def test_null_is_not_given_and_an_empty_choice_too(api):
    answer = api.tool("memory_search", query="deploy", limit=None, skipTags=None, space=None)
    assert answer.status_code == 200, answer.content
    turn = api.post("turns", {"session_id": "s", "user": "hello there", "assistant": "hi", "agent_context": "",
                              "at": None, "channel": None})
    assert turn.status_code == 201, turn.content
    assert api.tool("memory_search", query="q", queryy=None).json()["error"]["field"] == "queryy"  # still unknown


def test_nested_fields_are_named_by_their_path(api):
    answer = api.post("turns", {"session_id": "s", "user": "u", "assistant": "a",
                                "channel": {"platform": "qq", "chat_type": "group"}})
    assert answer.json()["error"]["field"] == "channel.chat_id"
    answer = api.tool("memory", operations=[{"action": "add", "target": "memory", "content": "x"},
                                            {"action": "replace", "target": "user", "content": "y"}])
    assert answer.json()["error"] == {"code": "bad_request", "field": "operations[1].old_text",
                                      "message": "operations[1].old_text is required"}
    assert not Entry.objects.exists()


def test_a_note_batch_refuses_bad_text_in_one_note_only(api):
    raw = b'{"session_id": "s", "arguments": {"notes": ["first note", "bad \\u0000 note", "third note"]}}'
    results = api.post("tools/memory_note_batch", raw=raw).json()["result"]["results"]
    assert [("error" in r) for r in results] == [False, True, False]
    assert results[1]["error"]["field"] == "notes" and "notes[1]" in results[1]["error"]["message"]
    assert sorted(Entry.objects.values_list("body", flat=True)) == ["first note", "third note"]


def test_a_hook_operation_is_not_a_tool_over_http(api):
    answer = api.tool("memory_turn", session_id="s", user="u", assistant="a")
    assert answer.status_code == 404 and "/api/v1/turns" in answer.json()["error"]["message"]


def test_the_thread_guard_lets_through_exactly_the_operations_declared_as_reads():
    """asgi.py keeps a request thread for reads; which paths are reads comes from the declarations alone, so a new
    operation is guarded (counted as a write) unless it says it only reads."""
    from memoryhub import asgi
    from memoryhub.operations.registry import OPERATIONS

    def scope(path):
        return {"type": "http", "method": "POST", "path": path}

    for name, op in OPERATIONS.items():
        path = op.endpoint.split()[1] if op.endpoint else f"/api/v1/tools/{name}"
        if "{" in path or not (op.tool or op.endpoint) or op.endpoint.startswith("GET"):
            continue
        assert asgi.may_wait_for_writes(scope(path)) is not op.reads, name
    assert not asgi.may_wait_for_writes(scope("/api/v1/context"))
    assert asgi.may_wait_for_writes(scope("/api/v1/turns"))
    assert asgi.may_wait_for_writes(scope("/spaces/default/note/"))
