"""Supermemory adapter against a loopback Supermemory server."""

import pytest

from providers.base import ProviderError
from providers.supermemory import SupermemoryProvider
from tests.providers.contract import ContractSuite, adapter_fixtures
from tests.providers.fakes.supermemory import SupermemoryFake

fake, make_provider, bad_credentials_provider = adapter_fixtures(
    SupermemoryFake, SupermemoryProvider,
    lambda fake: {"endpoint": fake.url, "apiKey": fake.api_key, "containerTag": "hub"})


class TestSupermemoryContract(ContractSuite):
    second_space = {"containerTag": "other"}


def test_write_is_accepted_with_flat_metadata(make_provider, fake):
    receipt = make_provider().remember("Alice reads sci-fi", title="Books", tags=["hobby", "books"])
    assert receipt.state == "accepted" and receipt.detail == {"status": "queued"}
    assert fake.documents[receipt.provider_id]["metadata"]["tags"] == "hobby,books"


def test_browse_shows_a_document_before_extraction_and_dedupes_by_id(make_provider, fake):
    fake.extract = False
    provider = make_provider()
    receipt = provider.remember("Alice collects stamps")
    [pending] = provider.browse()
    assert pending.id == receipt.provider_id and pending.extra == {"kind": "document", "status": "queued"}
    fake.extract_pending()
    records = provider.browse()
    assert sorted(r.extra["kind"] for r in records) == ["document", "memory"]
    assert len({r.id for r in records}) == len(records) == 2


def test_browse_offsets_slice_the_merged_list(make_provider):
    provider = make_provider()
    for n in range(3):
        provider.remember(f"fact number {n}")
    everything = provider.browse(limit=50)
    assert [r.id for r in provider.browse(limit=2, offset=3)] == [r.id for r in everything[3:5]]


def test_search_mode_is_sent_and_validated(make_provider, fake):
    make_provider(searchMode="memories").search("stamps")
    assert fake.log[-1].body["searchMode"] == "memories"
    with pytest.raises(ProviderError) as caught:
        make_provider(searchMode="fuzzy").search("stamps")
    assert caught.value.permanent


def test_search_scores_are_similarities(make_provider):
    provider = make_provider(searchMode="memories")
    provider.remember("Alice grows tomatoes")
    [hit] = provider.search("tomatoes")
    assert hit.score == 1.0 and hit.extra["kind"] == "memory"


def test_graph_projects_documents_and_their_memories(make_provider):
    provider = make_provider()
    receipt = provider.remember("Alice plays chess", title="Chess")
    graph = provider.graph()
    types = {node["id"]: node["type"] for node in graph["nodes"]}
    assert types[receipt.provider_id] == "document"
    [edge] = graph["edges"]
    assert edge["source"] == receipt.provider_id and types[edge["target"]] == "memory"


def test_forget_memory_is_a_provider_forget(make_provider, fake):
    provider = make_provider()
    provider.remember("Alice sails")
    memory = next(r for r in provider.browse() if r.extra["kind"] == "memory")
    provider.forget(memory.id)
    assert fake.memories[memory.id]["isForgotten"] is True
    assert memory.id not in {r.id for r in provider.browse()}


def test_forget_of_a_document_in_another_container_is_refused(make_provider, fake):
    receipt = make_provider(containerTag="other").remember("elsewhere")
    with pytest.raises(ProviderError):
        make_provider().forget(receipt.provider_id)
    assert receipt.provider_id in fake.documents
