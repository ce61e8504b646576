"""GET/POST /api/v1/spaces and GET /api/v1/providers."""

import pytest

from memoryhub.spaces.workspaces import default_space
from memoryhub.spaces.models import MemorySpace

KINDS = ["native", "openviking", "honcho", "mem0", "hindsight", "holographic", "retaindb", "byterover", "supermemory"]
CAPS = {"search", "browse", "graph", "entities", "related", "remember", "link", "forget", "get", "write_mode", "deletion_mode"}  # API.md lists `get`


def test_providers_lists_all_nine_kinds_with_capabilities(api):
    providers = api.get("providers").json()["providers"]
    assert [p["kind"] for p in providers] == KINDS
    for p in providers:
        assert set(p) >= {"kind", "label", "locality", "configured", "available", "capabilities"}
        assert set(p["capabilities"]) == CAPS
    native = providers[0]
    assert native["configured"] and native["available"] and native["locality"] == "local"
    byterover = next(p for p in providers if p["kind"] == "byterover")
    assert byterover["capabilities"]["browse"] is False and byterover["capabilities"]["forget"] is False


def test_capability_matrix_matches_the_seed(api):
    caps = {p["kind"]: p["capabilities"] for p in api.get("providers").json()["providers"]}
    assert caps["native"]["write_mode"] == "exact" and caps["native"]["deletion_mode"] == "soft"
    assert caps["openviking"]["write_mode"] == "verified" and caps["openviking"]["deletion_mode"] == "controlled-hard"
    assert caps["mem0"]["write_mode"] == "async" and caps["mem0"]["deletion_mode"] == "hard"
    assert caps["hindsight"]["deletion_mode"] == "invalidate" and caps["hindsight"]["graph"]
    assert caps["supermemory"]["deletion_mode"] == "provider-forget"
    assert not caps["honcho"]["graph"] and not caps["retaindb"]["related"]


def test_spaces_lists_the_default_space(api):
    spaces = api.get("spaces").json()["spaces"]
    assert spaces[0]["slug"] == "default" and spaces[0]["provider"] == "native"
    assert set(spaces[0]) == {"slug", "name", "provider", "access", "active", "capabilities"}


def test_create_space(api):
    r = api.post("spaces", {"slug": "diary", "name": "Diary", "access": "vault", "description": "private"})
    assert r.status_code == 201
    assert r.json()["slug"] == "diary" and r.json()["access"] == "vault" and r.json()["active"] is True
    assert MemorySpace.objects.get(slug="diary").selection["source"] == "manual"


def test_create_space_with_provider_config(api):
    r = api.post("spaces", {"slug": "h", "name": "H", "provider": "hindsight", "config": {"bankId": "b1"}})
    assert r.status_code == 201 and r.json()["provider"] == "hindsight"


def test_existing_slug_is_a_conflict(api):
    r = api.post("spaces", {"slug": "default", "name": "Again"})
    assert r.status_code == 409 and r.json()["error"]["code"] == "conflict"


def test_restricted_token_cannot_create_spaces(api_factory):
    agent = api_factory(spaces=[default_space()])
    r = agent.post("spaces", {"slug": "x", "name": "X"})
    assert r.status_code == 403


def test_restricted_token_lists_only_its_spaces(api_factory):
    notes = MemorySpace.objects.create(slug="notes", name="Notes")
    agent = api_factory(spaces=[notes])
    assert [s["slug"] for s in agent.get("spaces").json()["spaces"]] == ["notes"]


@pytest.mark.parametrize(
    "body, field",
    [
        ({"name": "X"}, "slug"),
        ({"slug": "Bad Slug!", "name": "X"}, "slug"),
        ({"slug": "x"}, "name"),
        ({"slug": "x", "name": "X", "provider": "nosuch"}, "provider"),
        ({"slug": "x", "name": "X", "access": "secret"}, "access"),
        ({"slug": "x", "name": "X", "config": "nope"}, "config"),
        ({"slug": "x", "name": "X", "provider": "mem0", "config": {"colour": "red", "userId": "u"}}, "config"),
        ({"slug": "x", "name": "X", "provider": "mem0", "config": {}}, "config"),
    ],
)
def test_bad_space_input_names_the_field_and_creates_nothing(api, body, field):
    r = api.post("spaces", body)
    assert r.status_code == 400 and r.json()["error"]["field"] == field
    assert not MemorySpace.objects.filter(slug="x").exists()


def test_smart_selection_with_local_only_picks_a_local_provider_by_rule(api):
    r = api.post("spaces", {"slug": "smart", "name": "Smart", "selection": {
        "candidates": ["mem0", "holographic"], "boundary": "local-only", "required": ["related"]}})
    assert r.status_code == 201, r.content
    space = MemorySpace.objects.get(slug="smart")
    assert space.provider in ("native", "holographic")
    assert space.selection["source"] == "rules" and space.selection["reason"]
    assert "mem0" not in space.selection["eligible"]


def test_smart_selection_without_llm_breaks_ties_deterministically(api):
    picks = set()
    for i in range(3):
        r = api.post("spaces", {"slug": f"s{i}", "name": "S", "selection": {"candidates": ["holographic", "native"]}})
        picks.add(r.json()["provider"])
    assert len(picks) == 1


def test_native_is_always_a_local_candidate(api):
    r = api.post("spaces", {"slug": "only", "name": "N", "selection": {
        "candidates": ["mem0"], "boundary": "local-only", "required": ["link", "graph"]}})
    assert r.status_code == 201 and r.json()["provider"] == "native"


@pytest.mark.parametrize("selection", [{"candidates": ["nosuch"]}, {"candidates": []}, {"candidates": ["native"],
                                        "boundary": "moon"}, "smart"])
def test_bad_selection_is_a_clear_error(api, selection):
    r = api.post("spaces", {"slug": "bad", "name": "N", "selection": selection})
    assert r.status_code == 400 and r.json()["error"]["field"].startswith("selection")
