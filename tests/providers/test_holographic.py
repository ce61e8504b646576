"""Holographic adapter: the local atomic-JSON fact store, on real files in a temp directory."""

from __future__ import annotations

import json
import os
import threading

import pytest

from providers.base import ProviderError
from providers.holographic import HolographicProvider
from tests.providers.contract import ContractSuite


@pytest.fixture
def make(tmp_path):
    def make(**config):
        return HolographicProvider({"_store_dir": str(tmp_path / "ws"), **config})
    return make


class TestHolographicContract(ContractSuite):
    """The shared suite on real files; there is no server, so the fault tests skip."""

    second_space = {"_store_dir": "second-space"}

    @pytest.fixture
    def make_provider(self, tmp_path):
        def make(**overrides):
            config = {"_store_dir": str(tmp_path / "ws"), **overrides}
            if not os.path.isabs(config["_store_dir"]):
                config["_store_dir"] = str(tmp_path / config["_store_dir"])
            return HolographicProvider(config)
        return make

    @pytest.fixture
    def bad_credentials_provider(self):
        return None

    @pytest.fixture
    def fake(self):
        return None


def test_the_file_is_in_the_store_directory_the_hub_chose(make, tmp_path):
    """The service's dataPath is the hub's business (a folder of per-space stores: tests/test_provider_stores.py);
    the adapter keeps its file where it is told and refuses to guess a place."""
    assert make(dataPath=str(tmp_path / "elsewhere")).store.path == str(tmp_path / "ws" / "holographic.json")
    with pytest.raises(ProviderError):
        HolographicProvider({}).status()
    assert HolographicProvider.store_root(str(tmp_path / "old.json")) == str(tmp_path)


def test_a_symbolic_link_in_the_files_place_is_never_followed(make, tmp_path):
    outside = tmp_path / "outside.json"
    outside.write_text(json.dumps({"format": "memoryhub.holographic", "version": 1, "next_id": 2,
                                   "facts": {"1": {"id": "1", "content": "someone else's", "trust": 0.5}}}))
    (tmp_path / "ws").mkdir()
    (tmp_path / "ws" / "holographic.json").symlink_to(outside)
    provider = make()
    for attempt in (lambda: provider.search("someone"), lambda: provider.remember("mine")):
        with pytest.raises(ProviderError) as caught:
            attempt()
        assert "symbolic link" in caught.value.message
    assert "mine" not in outside.read_text()


def test_remember_is_an_exact_committed_fact(make):
    provider = make()
    receipt = provider.remember("Alice prefers green tea.", category="preference", tags=["drinks"])
    assert receipt.state == "committed"
    record = provider.get(receipt.provider_id)
    assert record.text == "Alice prefers green tea." and record.category == "preference" and record.tags == ["drinks"]
    assert record.extra["trust"] == 0.5


def test_same_content_is_deduplicated(make):
    provider = make()
    first, again = provider.remember("Same fact."), provider.remember("Same fact.")
    assert first.provider_id == again.provider_id and again.detail == {"duplicate": True}


def test_file_is_written_atomically_in_its_own_format(make, tmp_path):
    provider = make()
    provider.remember("Bob uses vim.")
    data = json.loads((tmp_path / "ws" / "holographic.json").read_text())
    assert data["format"] == "memoryhub.holographic" and data["version"] == 1
    assert not [p for p in os.listdir(tmp_path / "ws") if p.endswith(".tmp")]


def test_search_ranks_by_relevance_times_trust_and_drops_low_trust(make):
    provider = make(defaultTrust=0.9, minTrust=0.4)
    provider.remember("The deploy uses blue green rollout.")
    provider.remember("Deploy rollback needs approval.", trust=0.2)
    provider.remember("Lunch is at noon.")
    results = provider.search("deploy rollout")
    assert [r.text for r in results] == ["The deploy uses blue green rollout."]
    assert 0 < results[0].score <= 1


def test_trust_settings_are_validated(make):
    with pytest.raises(ProviderError) as caught:
        make(minTrust="high").search("anything")
    assert caught.value.permanent
    with pytest.raises(ProviderError):
        make(defaultTrust=2).remember("x")


def test_forget_is_a_hard_delete(make, tmp_path):
    provider = make()
    receipt = provider.remember("Secret plan Omega.")
    provider.forget(receipt.provider_id)
    assert "Omega" not in (tmp_path / "ws" / "holographic.json").read_text()
    with pytest.raises(ProviderError):
        provider.get(receipt.provider_id)
    with pytest.raises(ProviderError):
        provider.forget(receipt.provider_id)


def test_entities_graph_and_related(make):
    provider = make()
    a = provider.remember("John Doe maintains the billing service.").provider_id
    b = provider.remember("John Doe is on call this week.").provider_id
    c = provider.remember("The on call rotation changes every week.").provider_id
    provider.remember("Unrelated lunch note.")
    assert provider.entities()[0] == {"id": "entity:john doe", "name": "John Doe", "facts": [a, b], "mentions": 2}
    graph = provider.graph()
    assert {"source": a, "target": "entity:john doe", "type": "mentions", "weight": 1.0} in graph["edges"]
    assert any(e["type"] == "semantic" and {e["source"], e["target"]} == {b, c} for e in graph["edges"])
    assert [r.id for r in provider.related(a, depth=1)] == [b]
    assert [r.id for r in provider.related(a, depth=2)] == [b, c]


def test_entity_extraction_rules():
    from providers.holographic.text import entities
    assert entities('ask Mary Jones about "project x" and k8s aka kubernetes') == [
        "Mary Jones", "project x", "k8s", "kubernetes"]


def test_two_instances_on_one_file_lose_nothing(make, tmp_path):
    first, second = make(), make()

    def write(provider, prefix):
        for i in range(15):
            provider.remember(f"{prefix} fact number {i}")

    threads = [threading.Thread(target=write, args=(p, n)) for p, n in ((first, "one"), (second, "two"))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert first.status()["facts"] == 30
    assert len({r.id for r in second.browse(limit=100)}) == 30


def test_malformed_file_is_a_provider_error(make, tmp_path):
    (tmp_path / "ws").mkdir()
    (tmp_path / "ws" / "holographic.json").write_text('{"format": "memoryhub.holographic", "facts": [1]}')
    with pytest.raises(ProviderError):
        make().search("anything")
    (tmp_path / "ws" / "holographic.json").write_text("{not json")
    with pytest.raises(ProviderError):
        make().browse()
