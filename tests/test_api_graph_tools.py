"""#22 parts 5 and 6 for agents: memory_link and memory_feedback over POST /api/v1/tools/{name}.

Native spaces keep typed links (written through the write gateway); Holographic keeps trust scores in its
real JSON store under a temp directory. Every id goes through access/policy, so origin, vault, token and
inactive-space rules hold for both ends of a link.
"""

from __future__ import annotations

import pytest
from django.urls import reverse

from memoryhub.audit.models import AuditEvent
from memoryhub.memories.models import EDGE_TYPES, Edge, OpLog
from memoryhub.spaces.models import MemorySpace, ProviderService
from memoryhub.spaces.provider_services import provider_for

from tests.answers import result


def error(response, status: int, code: str, field: str | None = None) -> dict:
    assert response.status_code == status, response.content
    body = response.json()["error"]
    assert body["code"] == code and body.get("field") == field, body
    return body


def save(api, title: str, body: str, **extra) -> str:
    return result(api.tool("memory_save", category="decision", title=title, body=body, **extra))["id"]


@pytest.fixture
def holo(db, tmp_path):
    """A Holographic space (real JSON store in a temp dir), trust from 0.5, recall floor 0.3."""
    ProviderService.objects.create(kind="holographic", config={"dataPath": str(tmp_path / "facts.json")})
    return MemorySpace.objects.create(slug="holo", name="Holo", provider="holographic",
                                      config={"defaultTrust": 0.5, "minTrust": 0.3})


def explicit_links() -> int:
    """Edges someone asked for (the worker adds its own time and entity edges beside them)."""
    return Edge.objects.filter(metadata__has_key="created_by").count()


def trust_of(space: MemorySpace, record_id: str) -> float:
    return provider_for(space).get(record_id.partition(":")[2]).extra["trust"]


# --- the tool list ------------------------------------------------------------------------

def test_both_tools_are_listed_with_their_schemas(api):
    tools = {t["function"]["name"]: t["function"]["parameters"] for t in api.get("tools").json()["tools"]}
    link, feedback = tools["memory_link"], tools["memory_feedback"]
    assert link["required"] == ["from", "to"] and link["properties"]["kind"]["enum"] == EDGE_TYPES
    assert link["additionalProperties"] is False
    assert feedback["required"] == ["id", "verdict"] and feedback["properties"]["verdict"]["enum"] == ["helpful",
                                                                                                     "wrong"]


# --- memory_link --------------------------------------------------------------------------

def test_link_two_native_memories_then_recall_and_the_related_section_show_it(api, client, staff):
    deploy = save(api, "Deploy script", "The deploy script lives in ops/deploy.sh")
    vpn = save(api, "VPN first", "Deploys need the VPN up before the script runs")
    assert result(api.tool("memory_recall", id=deploy))["related"] == []
    assert result(api.tool("memory_link", **{"from": deploy, "to": vpn, "kind": "causal"})) == {
        "from": deploy, "to": vpn, "kind": "causal"}
    assert result(api.tool("memory_recall", id=deploy))["related"] == [vpn]
    assert result(api.tool("memory_recall", id=vpn))["related"] == [deploy]
    assert set(Edge.objects.filter(edge_type="causal").values_list("source_id", "target_id")) == {
        (int(deploy), int(vpn)), (int(vpn), int(deploy))}
    logged = OpLog.objects.get(operation="link")
    assert logged.actor == api.token.actor and logged.entry_id == deploy and "type=causal" in logged.detail
    related = client.get(reverse("dashboard:memory_related", args=["default"]) + f"?id={deploy}").content.decode()
    assert "VPN first" in related


def test_kind_defaults_to_semantic_and_relinking_overwrites_nothing_twice(api):
    a, b = save(api, "Kettle", "The kettle is in the kitchen"), save(api, "Tea", "Tea bags are above the kettle")
    assert result(api.tool("memory_link", **{"from": a, "to": b}))["kind"] == "semantic"
    result(api.tool("memory_link", **{"from": b, "to": a}))
    assert Edge.objects.filter(edge_type="semantic").count() == 2
    assert result(api.tool("memory_recall", id=a))["related"] == [b]


def test_recall_lists_only_explicit_links_not_the_workers_automatic_edges(api):
    a, b = save(api, "Kettle", "The kettle is in the kitchen"), save(api, "Tea", "Tea bags are above the kettle")
    assert Edge.objects.filter(source_id=int(b), target_id=int(a), edge_type="temporal").exists()  # the worker's
    assert result(api.tool("memory_recall", id=a))["related"] == []


def test_a_link_across_spaces_is_refused_naming_to(api):
    MemorySpace.objects.create(slug="other", name="Other")
    here, there = save(api, "Here", "The printer is on floor 2"), save(api, "There", "Floor 2 has a printer",
                                                                          space="other")
    body = error(api.tool("memory_link", **{"from": here, "to": there}), 400, "bad_request", "to")
    assert "'other'" in body["message"] and "'default'" in body["message"]
    assert not explicit_links() and not OpLog.objects.filter(operation="link").exists()


@pytest.mark.parametrize("arguments, field", [
    ({"to": "B"}, "from"),
    ({"from": "A"}, "to"),
    ({"from": "A", "to": "B", "kind": "narrative"}, "kind"),
    ({"from": "A", "to": "A"}, "to"),
    ({"from": "²", "to": "B"}, "from"),
    ({"from": 1, "to": "B"}, "from"),
])
def test_bad_link_arguments_name_the_field_and_link_nothing(api, arguments, field):
    ids = {"A": save(api, "One", "First memory about gardening"), "B": save(api, "Two", "Second memory about compost")}
    error(api.tool("memory_link", **{k: ids.get(v, v) if isinstance(v, str) else v for k, v in arguments.items()}),
          400, "bad_request", field)
    assert not explicit_links()


def test_unknown_ids_are_not_found_naming_their_end(api):
    a = save(api, "One", "First memory about gardening")
    error(api.tool("memory_link", **{"from": "987654", "to": a}), 404, "not_found", "from")
    error(api.tool("memory_link", **{"from": a, "to": "987654"}), 404, "not_found", "to")
    error(api.tool("memory_link", **{"from": a, "to": "9" * 40}), 404, "not_found", "to")


def test_a_provider_without_link_answers_unsupported(api, holo):
    first = result(api.tool("memory_note", text="Ada Lovelace wrote the first program", space="holo"))["id"]
    second = result(api.tool("memory_note", text="Ada Lovelace worked with Babbage", space="holo"))["id"]
    error(api.tool("memory_link", **{"from": first, "to": second}), 422, "unsupported", "from")
    MemorySpace.objects.create(slug="brv", name="ByteRover", provider="byterover")
    error(api.tool("memory_link", **{"from": "brv:a", "to": "brv:b"}), 422, "unsupported", "from")


def test_a_qq_token_cannot_link_local_memories_but_links_its_own(api, api_factory):
    local_a, local_b = save(api, "Merger", "Private talk about the merger"), save(api, "Offer", "The offer letter")
    qq = api_factory(name="qq-bot", origin="qq")
    mine_a = result(qq.tool("memory_note", text="group chat about the merger party"))["id"]
    mine_b = result(qq.tool("memory_note", text="the party is on Friday"))["id"]
    error(qq.tool("memory_link", **{"from": local_a, "to": local_b}), 404, "not_found", "from")
    error(qq.tool("memory_link", **{"from": mine_a, "to": local_a}), 404, "not_found", "to")
    error(qq.tool("memory_link", **{"from": f"default:{local_a}", "to": mine_b}), 404, "not_found", "from")
    assert not explicit_links()
    result(qq.tool("memory_link", **{"from": mine_a, "to": mine_b}))
    assert result(qq.tool("memory_recall", id=mine_a))["related"] == [mine_b]


def test_recall_lists_a_link_only_to_those_who_may_see_its_other_end(api, api_factory):
    qq = api_factory(name="qq-bot", origin="qq")
    mine = result(qq.tool("memory_note", text="group chat about the merger party"))["id"]
    local = save(api, "Merger", "Private talk about the merger")
    result(api.tool("memory_link", **{"from": local, "to": mine}))
    assert result(api.tool("memory_recall", id=mine))["related"] == [local]
    assert result(qq.tool("memory_recall", id=mine))["related"] == []


def test_token_vault_and_inactive_rules_hold_for_both_ends(api, api_factory):
    MemorySpace.objects.create(slug="other", name="Other")
    MemorySpace.objects.create(slug="diary", name="Diary", access="vault")
    a, b = save(api, "One", "Gardening notes"), save(api, "Two", "Compost notes")
    c, d = save(api, "Three", "Other notes", space="other"), save(api, "Four", "More other notes", space="other")
    hidden = save(api, "Secret", "The lighthouse key", space="diary")
    hidden_too = save(api, "Secret 2", "The lighthouse door", space="diary")
    limited = api_factory(name="limited", spaces=[MemorySpace.objects.get(slug="other")])
    error(limited.tool("memory_link", **{"from": a, "to": b}), 404, "not_found", "from")  # #31: no space named
    result(limited.tool("memory_link", **{"from": c, "to": d}))
    error(api.tool("memory_link", **{"from": hidden, "to": hidden_too}), 404, "not_found", "from")
    MemorySpace.objects.filter(slug="other").update(active=False)
    error(api.tool("memory_link", **{"from": c, "to": d, "kind": "entity"}), 403, "forbidden", "from")
    assert explicit_links() == 2


def test_a_native_memory_is_not_reachable_by_a_space_prefixed_id(api, api_factory):
    local = save(api, "Merger", "Private talk about the merger")
    qq = api_factory(name="qq-bot", origin="qq")
    error(qq.tool("memory_recall", id=f"default:{local}"), 404, "not_found", "id")
    error(qq.tool("memory_forget", id=f"default:{local}"), 404, "not_found", "id")
    assert result(api.tool("memory_recall", id=local))["body"] == "Private talk about the merger"


def test_a_recall_of_a_non_ascii_or_huge_number_is_not_found_never_500(api):
    error(api.tool("memory_recall", id="²"), 404, "not_found", "id")
    error(api.tool("memory_recall", id="9" * 40), 404, "not_found", "id")


def test_the_dashboard_link_refuses_a_kind_the_native_store_does_not_have(api, client, staff):
    a, b = save(api, "One", "Gardening notes"), save(api, "Two", "Compost notes")
    r = client.post(reverse("dashboard:memory_link", args=["default"]), {"from": a, "to": b, "kind": "narrative"},
                    headers={"HX-Request": "true"})
    assert r.status_code == 422 and "Kind must be one of" in r.content.decode()  # memory_link's own refusal
    assert not explicit_links()


# --- memory_feedback ----------------------------------------------------------------------

def test_wrong_verdicts_lower_trust_until_min_trust_drops_it_from_memory_search(api, holo):
    kettle = result(api.tool("memory_note", text="The kettle is in the kitchen", space="holo"))["id"]
    assert [r["id"] for r in result(api.tool("memory_search", query="kettle kitchen"))["results"]] == [kettle]
    assert result(api.tool("memory_feedback", id=kettle, verdict="wrong")) == {"id": kettle, "trust": 0.4}
    assert result(api.tool("memory_feedback", id=kettle, verdict="wrong"))["trust"] == 0.3
    assert [r["id"] for r in result(api.tool("memory_search", query="kettle kitchen"))["results"]] == [kettle]
    assert result(api.tool("memory_feedback", id=kettle, verdict="wrong"))["trust"] == 0.2
    assert result(api.tool("memory_search", query="kettle kitchen"))["results"] == []
    assert result(api.tool("memory_search", query="kettle kitchen", space="holo"))["results"] == []
    event = AuditEvent.objects.filter(action="memory.feedback").first()
    assert event.actor == api.token.actor and event.target == "holo"
    assert event.detail == {"id": kettle, "verdict": "wrong", "trust": [0.2]}


def test_helpful_raises_trust_and_ranks_the_memory_first(api, holo):
    first = result(api.tool("memory_note", text="Ada Lovelace wrote the first program", space="holo"))["id"]
    second = result(api.tool("memory_note", text="Ada Lovelace worked with Charles Babbage", space="holo"))["id"]
    assert result(api.tool("memory_feedback", id=second, verdict="helpful")) == {"id": second, "trust": 0.55}
    assert trust_of(holo, second) == pytest.approx(0.55) and trust_of(holo, first) == pytest.approx(0.5)
    ranked = result(api.tool("memory_search", query="Ada Lovelace", space="holo"))["results"]
    assert [r["id"] for r in ranked] == [second, first]


def test_feedback_where_the_provider_keeps_no_trust_is_unsupported(api):
    native = save(api, "Kettle", "The kettle is in the kitchen")
    error(api.tool("memory_feedback", id=native, verdict="helpful"), 422, "unsupported", "id")
    MemorySpace.objects.create(slug="brv", name="ByteRover", provider="byterover")
    error(api.tool("memory_feedback", id="brv:abc", verdict="wrong"), 422, "unsupported", "id")
    assert not AuditEvent.objects.filter(action="memory.feedback").exists()


@pytest.mark.parametrize("arguments, field", [
    ({"verdict": "wrong"}, "id"),
    ({"id": "holo:1"}, "verdict"),
    ({"id": "holo:1", "verdict": "useless"}, "verdict"),
])
def test_bad_feedback_arguments_name_the_field_and_change_nothing(api, holo, arguments, field):
    kettle = result(api.tool("memory_note", text="The kettle is in the kitchen", space="holo"))["id"]
    assert kettle == "holo:1"
    error(api.tool("memory_feedback", **arguments), 400, "bad_request", field)
    assert trust_of(holo, kettle) == 0.5


def test_feedback_on_an_unknown_record_is_not_found(api, holo):
    error(api.tool("memory_feedback", id="holo:99", verdict="wrong"), 404, "not_found", "id")
    error(api.tool("memory_feedback", id="nowhere:1", verdict="wrong"), 404, "not_found", "id")


def test_a_qq_token_cannot_give_feedback_on_a_local_memory_but_may_on_its_own(api, api_factory, holo):
    local = result(api.tool("memory_note", text="The merger closes in March", space="holo"))["id"]
    qq = api_factory(name="qq-bot", origin="qq")
    error(qq.tool("memory_feedback", id=local, verdict="wrong"), 404, "not_found", "id")
    assert trust_of(holo, local) == 0.5
    mine = result(qq.tool("memory_note", text="The party is on Friday", space="holo"))["id"]
    assert result(qq.tool("memory_feedback", id=mine, verdict="helpful"))["trust"] == 0.55


def test_feedback_respects_the_tokens_spaces_and_inactive_spaces(api, api_factory, holo):
    kettle = result(api.tool("memory_note", text="The kettle is in the kitchen", space="holo"))["id"]
    limited = api_factory(name="limited", spaces=[MemorySpace.objects.get(slug="default")])
    error(limited.tool("memory_feedback", id=kettle, verdict="wrong"), 404, "not_found", "id")  # #31: no space named
    MemorySpace.objects.filter(slug="holo").update(active=False)
    error(api.tool("memory_feedback", id=kettle, verdict="wrong"), 403, "forbidden", "id")
    MemorySpace.objects.filter(slug="holo").update(active=True, access="vault")
    error(api.tool("memory_feedback", id=kettle, verdict="wrong"), 404, "not_found", "id")
    assert trust_of(holo, kettle) == 0.5
