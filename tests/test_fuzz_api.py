"""Bad input: any JSON at all gets a 2xx or one of docs/api.md's 4xx, never a 5xx (property-based, modest counts)."""

import json

import pytest
from hypothesis import HealthCheck, given, settings as hsettings, strategies as st

from memoryhub.operations import registry as tools

pytestmark = pytest.mark.django_db

ALLOWED = {200, 201, 400, 403, 404, 409, 413, 422}
TOOL_NAMES = sorted(tools.TOOLS)
KEYS = sorted({"session_id", "user", "assistant", "space", "workspace", "query", "max_chars", "at", "idempotency_key",
               "slug", "name", "provider", "access", "description", "config", "arguments"}
              | {k for t in tools.TOOLS.values() for k in t.schema()["function"]["parameters"]["properties"]})
FUZZ = hsettings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])

# #21: lone surrogates, NUL and non-characters (which st.text leaves out), ids in non-ASCII digits, huge digit runs.
hostile_text = st.text(alphabet=st.characters(codec=None, min_codepoint=0, max_codepoint=0x10FFFF), max_size=20) \
    | st.sampled_from(["\ud800", "a\udfffb", "\x00", "x\ufffe", "\U0010ffff", "²", "١٢", "t²", "１", "t٣",
                       "9" * 40, "default:1", "t" + "9" * 30])
scalars = st.none() | st.booleans() | st.integers(-2**63, 2**63) | st.floats(allow_nan=False, allow_infinity=False) \
    | st.text(max_size=40) | hostile_text | st.sampled_from(["", "default", "all", "local", "list", "get", "set", "fact",
                                                             "1", "-1", "2024-01-01T00:00:00+00:00", "/tmp/x", "../..",
                                                             "x" * 5000])
# Declared names, misspellings of them (unknown arguments must be refused by name) and anything at all.
keys = st.sampled_from(KEYS) | st.sampled_from([k[:-1] + "x" for k in KEYS if len(k) > 2]) | st.text(max_size=12) \
    | hostile_text
json_values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(keys, inner, max_size=5),
                           max_leaves=12)
bodies = st.dictionaries(keys, json_values, max_size=8) | json_values


def assert_clean(response) -> None:
    assert response.status_code in ALLOWED, (response.status_code, response.content[:500])
    payload = response.json()
    if response.status_code >= 400:
        assert set(payload) == {"error"} and payload["error"]["code"] and "Traceback" not in payload["error"]["message"]


@pytest.fixture
def unlimited(settings):
    settings.MEMORYHUB = {**settings.MEMORYHUB, "RATE_LIMIT_PER_MINUTE": 0}


@pytest.mark.parametrize("path", ["turns", "context", "spaces", "sessions/s1/end"])
def test_any_json_body_on_an_endpoint_is_a_clean_answer(api, unlimited, path):
    @FUZZ
    @given(body=bodies)
    def check(body):
        assert_clean(api.post(path, raw=json.dumps(body)))

    check()


@pytest.mark.parametrize("name", TOOL_NAMES)
def test_any_arguments_to_a_tool_are_a_clean_answer(api, unlimited, name):
    @FUZZ
    @given(arguments=st.dictionaries(keys, json_values, max_size=8) | json_values,
           session=st.none() | st.text(max_size=300) | st.integers())
    def check(arguments, session):
        assert_clean(api.post(f"tools/{name}", {"session_id": session, "arguments": arguments}))

    check()


@FUZZ
@given(raw=st.binary(max_size=200) | st.text(max_size=200).map(str.encode))
def test_bytes_that_are_not_json_are_a_clean_answer(api, unlimited, raw):
    assert_clean(api.post("turns", raw=raw))


@pytest.mark.parametrize("name", TOOL_NAMES)
def test_hostile_ids_and_unknown_arguments_are_refused_by_name(api, unlimited, name):
    """Every tool: an argument it does not declare is a 400 naming it, whatever else the call holds."""
    @FUZZ
    @given(arguments=st.dictionaries(st.sampled_from(KEYS), json_values, max_size=4), unknown=keys, value=json_values)
    def check(arguments, unknown, value):
        declared = tools.TOOLS[name].schema()["function"]["parameters"]["properties"]
        if unknown in declared or unknown == "session_id":
            return
        arguments = {k: v for k, v in arguments.items() if k in declared} | {unknown: value}
        response = api.post(f"tools/{name}", raw=json.dumps({"session_id": "s", "arguments": arguments}))
        assert_clean(response)
        assert response.status_code == 400, response.content
        field = response.json()["error"]["field"]
        named = [unknown or '""', json.dumps(unknown)[1:-1], *arguments]  # the unknown one, or bad text met before it
        assert any(field == n or field.startswith((f"{n}[", f"{n}.")) for n in named), (field, named)

    check()


@pytest.mark.parametrize("depth", [33, 2000, 200_000])
def test_deeply_nested_bodies_are_bad_requests(api, depth):
    body = '{"session_id": "s", "user": ' + "[" * depth + "]" * depth + "}"
    if len(body) > 1024 * 1024:
        assert api.post("turns", raw=body).status_code == 413
        return
    response = api.post("turns", raw=body)
    assert response.status_code == 400 and response.json()["error"]["code"] == "bad_request"


@pytest.mark.parametrize("path", ["turns", "tools/memory_note", "spaces"])
def test_oversized_bodies_are_too_large(api, path):
    body = json.dumps({"session_id": "s", "user": "x" * (1024 * 1024), "arguments": {"text": "x"}})
    response = api.post(path, raw=body)
    assert response.status_code == 413 and response.json()["error"]["code"] == "too_large"
