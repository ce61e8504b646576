"""Hindsight adapter against a loopback server speaking the real 1.1 wire format."""

from __future__ import annotations

import pytest

from providers.base import ProviderError
from providers.hindsight import HindsightProvider
from tests.providers.fakes.hindsight import FakeHindsight

from tests.providers.contract import ContractSuite, adapter_fixtures

fake, make_provider, bad_credentials_provider = adapter_fixtures(
    FakeHindsight, HindsightProvider,
    lambda fake: {"endpoint": fake.url, "apiKey": "hs-secret", "bankId": "demo", "_timeout": 0.5}, bad_key="wrong-key")


@pytest.fixture
def hs(make_provider):
    return make_provider()


class TestHindsightContract(ContractSuite):
    """The shared contract suite; its fixtures are the module's `fake`, `make_provider`, `bad_credentials_provider`."""

    second_space = {"bankId": "second-bank"}


def test_remember_is_an_async_retain_and_only_accepted(fake, hs):
    receipt = hs.remember("The production database is PostgreSQL 16.", title="infra", category="fact", tags=["infra"])
    assert receipt.state == "accepted" and receipt.provider_id == receipt.detail["document_id"]  # #22: ids resolve
    _, path, _, body = fake.requests[-1]
    assert path == "/v1/default/banks/demo/memories" and body["async"] is True
    item = body["items"][0]
    assert item["metadata"] == {"source": "memoryhub", "category": "fact", "title": "infra"}
    assert item["document_id"] == receipt.detail["document_id"]
    assert body["operation_id"] == receipt.detail["operation_id"]


def test_recall_finds_retained_text_with_a_normalized_score(hs):
    hs.remember("The production database is PostgreSQL 16.", category="fact")
    [record] = hs.search("which database")
    assert record.text == "The production database is PostgreSQL 16." and record.category == "fact"
    assert 0.0 <= record.score <= 1.0


def test_recall_on_a_bank_not_created_yet_is_empty(hs):
    assert hs.search("anything") == []
    assert hs.browse() == []


def test_browse_and_get(hs):
    hs.remember("Alice prefers green tea.")
    [record] = hs.browse()
    assert hs.get(record.id).text == "Alice prefers green tea."


def test_forget_invalidates_softly(fake, hs):
    hs.remember("Alice prefers green tea.")
    [record] = hs.browse()
    hs.forget(record.id)
    method, _, _, body = fake.requests[-1]
    assert method == "PATCH" and body["state"] == "invalidated"
    assert hs.search("green tea") == [] and hs.browse() == []
    assert hs.get(record.id).extra["state"] == "invalidated"


def test_stats_entities_and_graph_come_from_the_bank(fake, hs):
    hs.remember("Postgres runs on db-1.")
    fake.banks["demo"]["units"].clear()
    fake.pending.clear()
    for text, ents in [("PostgreSQL runs on db-1.", ["PostgreSQL"]), ("Backups of PostgreSQL run nightly.", ["PostgreSQL"]),
                       ("Alice owns the backups.", [])]:
        fake.pending.append(("demo", "op", {"content": text, "entities": [{"text": e} for e in ents]}))
    fake.operations["op"] = {"status": "pending"}
    status = hs.status()
    assert status["healthy"] and status["stats"]["total_nodes"] == 3
    [entity] = hs.entities()
    assert (entity["id"], entity["name"], entity["mentions"]) == ("ent-PostgreSQL", "PostgreSQL", 2)
    graph = hs.graph()
    assert len(graph["nodes"]) == 3 and all(e["source"] != e["target"] for e in graph["edges"])
    first = graph["nodes"][0]["id"]
    assert len(hs.related(first, depth=1)) == 1 and len(hs.related(first, depth=2)) == 2


def test_older_server_without_stats_still_recalls_and_graphs(fake, hs):
    fake.has_stats = False
    hs.remember("Alice prefers green tea.")
    assert hs.status() == {"healthy": True, "database": "connected", "stats": None}
    assert hs.search("green tea") and hs.graph()["nodes"]


def test_bad_key_is_permanent_and_secret_free(bad_credentials_provider):
    with pytest.raises(ProviderError) as caught:
        bad_credentials_provider.remember("x")
    assert caught.value.permanent and "wrong-key" not in str(caught.value)
    with pytest.raises(ProviderError) as caught:
        bad_credentials_provider.status()
    assert caught.value.permanent


def test_retain_timeout_is_unknown(fake, hs):
    fake.slow_seconds = 1.0
    fake.set_fault("slow")
    receipt = hs.remember("slow")
    assert receipt.state == "unknown" and "timed out" in receipt.error


def test_a_resent_retain_does_no_new_work(fake, hs):
    receipt = hs.remember("once")
    body = fake.requests[-1][3]
    fake._retain("demo", body)
    hs.browse()
    assert len(fake.banks["demo"]["units"]) == 1 and receipt.state == "accepted"


@pytest.mark.parametrize("config", [{"bankId": ""}, {"bankId": "a/b"}, {"budget": "max"}])
def test_invalid_space_config_is_permanent(make_provider, config):
    with pytest.raises(ProviderError) as caught:
        make_provider(**config).search("x")
    assert caught.value.permanent


@pytest.mark.parametrize("fault", ["error500", "malformed", "huge", "disconnect"])
def test_faults_become_provider_errors(fake, make_provider, fault):
    provider = make_provider(_max_bytes=1024 * 1024)
    fake.set_fault(fault)
    with pytest.raises(ProviderError):
        provider.graph()
    fake.set_fault(None)
    fake.restart()
    provider.remember("back")
    assert provider.browse()
