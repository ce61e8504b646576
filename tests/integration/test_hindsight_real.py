"""The Hindsight adapter against a real hindsight-api 1.1.0 (start it with scripts/start-real-providers.sh).

The server runs without an LLM (each retained item is one `world` memory unit, no extracted
entities), with stub embeddings, on Postgres + pgvector, with its built-in API-key auth on.
"""

from __future__ import annotations

import os
import uuid

import pytest

from providers.base import ProviderError
from providers.hindsight import HindsightProvider
from tests.providers.contract import ContractSuite, eventually, provider_factory, without_fault_injection

pytestmark = [
    pytest.mark.integration,
    pytest.mark.skipif(not os.environ.get("MEMORYHUB_IT_HINDSIGHT_URL"),
                       reason="no real Hindsight server (scripts/start-real-providers.sh)"),
]


def new_bank() -> str:
    return f"it-{uuid.uuid4().hex[:12]}"


@pytest.fixture
def make_provider():
    """Providers on one fresh bank per test (overrides merge into the config); all closed afterwards."""
    config = {"endpoint": os.environ.get("MEMORYHUB_IT_HINDSIGHT_URL"),
              "apiKey": os.environ.get("MEMORYHUB_IT_HINDSIGHT_KEY"), "bankId": new_bank(), "_timeout": 30}
    with provider_factory(HindsightProvider, config) as make:
        yield make


@pytest.fixture
def hs(make_provider):
    return make_provider()


@without_fault_injection()
class TestHindsightRealContract(ContractSuite):
    """The shared contract suite on the real server."""

    second_space = {"bankId": new_bank()}

    @pytest.fixture
    def bad_credentials_provider(self, make_provider):
        return make_provider(apiKey="wrong-key-987654")


def retain_directly(provider: HindsightProvider, items: list[dict]) -> None:
    """A synchronous retain past the adapter, for data the adapter never sends (caller-named entities)."""
    provider.http.post(f"{provider.bank}/memories", {"items": items, "async": False})


def test_a_bank_not_created_yet_is_empty_and_the_server_is_live(hs):
    assert hs.status() == {"healthy": True, "database": "connected", "stats": None}
    assert hs.search("anything at all") == [] and hs.browse() == [] and hs.graph() == {"nodes": [], "edges": []}


def test_retain_completes_on_the_server_and_reads_back_everything(hs):
    at = "2026-03-04T05:06:07+00:00"
    receipt = hs.remember("The production database is PostgreSQL 16 on the db-1 host.", title="infra",
                          category="fact", tags=["infra"], at=at)
    # #22: the write's id is its own document id, which resolves to the memory units once retained.
    assert receipt.state == "accepted" and receipt.provider_id == receipt.detail["document_id"], receipt.error
    operation = f"{hs.bank}/operations/{receipt.detail['operation_id']}"
    assert eventually(lambda: hs.http.get(operation)["status"] == "completed", seconds=10)
    [found] = hs.search("Which host runs the production database?")
    assert hs.resolve_write(receipt) == [found.id]
    assert found.text == "The production database is PostgreSQL 16 on the db-1 host."
    assert (found.title, found.category, found.tags) == ("infra", "fact", ["infra"])
    assert 0.0 < found.score <= 1.0 and found.extra["document_id"] == receipt.detail["document_id"]
    [listed] = hs.browse()
    got = hs.get(found.id)
    assert listed.id == got.id == found.id and got.text == found.text and got.extra["state"] == "valid"
    assert got.at.startswith("2026-03-04T05:06:07")


def test_recall_ranks_the_closer_memory_first(hs):
    for text in ("Alice prefers green tea in the morning.", "The green house has a tea garden.",
                 "Servers restart every Sunday night."):
        hs.remember(text)
    records = eventually(lambda: len(hs.browse()) == 3 and hs.search("green tea morning"), seconds=10)
    assert records[0].text == "Alice prefers green tea in the morning."
    assert all(a.score >= b.score for a, b in zip(records, records[1:]))
    assert "Servers restart every Sunday night." not in [r.text for r in records]


def test_a_resent_retain_does_no_new_work(hs):
    sent = []
    post = hs.http.post

    def post_twice(path, body=None, **kw):
        sent.append(body)
        post(path, body, **kw)
        return post(path, body, **kw)

    hs.http.post = post_twice
    receipt = hs.remember("Deploys happen on Tuesdays.")
    assert receipt.state == "accepted" and sent[0]["operation_id"] == receipt.detail["operation_id"]
    assert eventually(lambda: hs.browse(), seconds=10)
    assert [r.text for r in hs.browse()] == ["Deploys happen on Tuesdays."]


def test_forget_invalidates_the_memory_softly(hs):
    hs.remember("Bob's locker code is 4711.")
    [record] = eventually(lambda: hs.search("locker code"), seconds=10)
    hs.forget(record.id)
    assert hs.search("locker code") == [] and hs.browse() == []
    assert hs.get(record.id).extra["state"] == "invalidated"
    with pytest.raises(ProviderError) as caught:
        hs.http.delete(f"{hs.bank}/memories/{record.id}")
    assert getattr(caught.value, "status", None) == 405, "a real per-memory delete exists now; revisit forget()"


def test_stats_entities_graph_and_related_come_from_the_bank(hs):
    retain_directly(hs, [
        {"content": "PostgreSQL runs on db-1.", "entities": [{"text": "PostgreSQL"}]},
        {"content": "Backups of PostgreSQL run nightly.", "entities": [{"text": "PostgreSQL"}]},
        {"content": "Alice owns the backups."},
    ])
    stats = hs.status()["stats"]
    # One retain without document ids is one document on the server, holding a unit per item.
    assert stats["bank_id"] == hs.config["bankId"] and stats["total_nodes"] == 3 and stats["total_documents"] == 1
    [entity] = hs.entities()
    assert entity["name"] == "PostgreSQL" and entity["mentions"] == 2 and entity["id"]
    graph = hs.graph()
    by_text = {n["text"]: n for n in graph["nodes"]}
    assert set(by_text) == {"PostgreSQL runs on db-1.", "Backups of PostgreSQL run nightly.", "Alice owns the backups."}
    assert by_text["PostgreSQL runs on db-1."]["entities"] == ["PostgreSQL"]
    assert by_text["Alice owns the backups."]["entities"] == []
    assert graph["edges"] and all(e["source"] != e["target"] and e["type"] for e in graph["edges"])
    start = by_text["PostgreSQL runs on db-1."]["id"]
    related = hs.related(start, depth=2)
    assert related and start not in [r.id for r in related]
    assert {r.id for r in related} <= {n["id"] for n in graph["nodes"]}


def test_a_wrong_key_is_permanent_for_reads_and_writes(make_provider):
    provider = make_provider(apiKey="wrong-key-987654")
    for call in (provider.status, lambda: provider.search("x"), lambda: provider.remember("x")):
        with pytest.raises(ProviderError) as caught:
            call()
        assert caught.value.permanent and "wrong-key-987654" not in str(caught.value)


def test_bank_errors(make_provider):
    with pytest.raises(ProviderError) as caught:
        make_provider(bankId="a/b").search("x")
    assert caught.value.permanent
    with pytest.raises(ProviderError) as caught:
        make_provider().get(str(uuid.uuid4()))
    assert getattr(caught.value, "status", None) == 404 and not caught.value.permanent


def test_unmatched_recall_and_unknown_memory_on_an_existing_bank(hs):
    hs.remember("Carol plays the cello.")
    assert eventually(lambda: hs.browse(), seconds=10)
    assert hs.search("quantum chromodynamics lattice") == []
    with pytest.raises(ProviderError):
        hs.get(str(uuid.uuid4()))
