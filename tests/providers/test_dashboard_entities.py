"""#22 part 5/6: entities, related memories, links and trust feedback in the dashboard, hidden where undeclared."""

from __future__ import annotations

import pytest
from django.urls import reverse

from memoryhub.memories.models import Edge
from memoryhub.memories.write import gateway
from memoryhub.spaces.models import MemorySpace, ProviderService
from memoryhub.spaces.provider_services import provider_for

pytestmark = pytest.mark.django_db
HX = {"HX-Request": "true"}


@pytest.fixture(autouse=True)
def secrets_file(settings, tmp_path):
    settings.MEMORYHUB = {**settings.MEMORYHUB, "SECRETS_FILE": tmp_path / "state" / "memory-providers.json"}


@pytest.fixture
def holo(tmp_path):
    ProviderService.objects.create(kind="holographic", config={"dataPath": str(tmp_path / "facts.json")})
    space = MemorySpace.objects.create(slug="holo", name="holo", provider="holographic", config={"minTrust": 0.3})
    provider = provider_for(space)
    for text in ("Ada Lovelace wrote the first program", "Ada Lovelace worked with Charles Babbage",
                 "The kettle is in the kitchen"):
        provider.remember(text)
    return space


def test_the_entity_page_lists_entities_with_counts_and_their_memories(client, staff, holo):
    page = client.get(reverse("dashboard:entities", args=["holo"])).content.decode()
    assert "Ada Lovelace" in page and '<td class="num">2</td>' in page
    r = client.get(reverse("dashboard:entities", args=["holo"]) + "?entity=entity:ada lovelace", headers=HX)
    html = r.content.decode()
    assert "wrote the first program" in html and "Charles Babbage" in html and "kettle" not in html


def test_entity_tab_and_pages_exist_only_where_entities_are_declared(client, staff, holo):
    MemorySpace.objects.create(slug="m0", name="m0", provider="mem0", config={"userId": "u"})
    assert client.get(reverse("dashboard:entities", args=["m0"])).status_code == 404
    assert client.get(reverse("dashboard:memory_related", args=["m0"]) + "?id=1").status_code == 404
    assert client.post(reverse("dashboard:memory_link", args=["m0"]), {"from": "1", "to": "2"}).status_code == 404
    assert client.post(reverse("dashboard:memory_feedback", args=["m0"]), {"id": "1"}).status_code == 404
    assert 'href="/spaces/holo/entities/"' in client.get(reverse("dashboard:space", args=["holo"])).content.decode()


def test_a_persons_wrong_verdicts_drop_a_fact_below_min_trust_and_out_of_recall(client, staff, holo):
    provider = provider_for(holo)
    [kettle] = provider.search("kettle kitchen")
    for _ in range(2):
        r = client.post(reverse("dashboard:memory_feedback", args=["holo"]), {"id": kettle.id, "verdict": "wrong"},
                        headers=HX)
        assert r.status_code == 200
    assert "0.30" in r.content.decode()
    client.post(reverse("dashboard:memory_feedback", args=["holo"]), {"id": kettle.id, "verdict": "wrong"}, headers=HX)
    assert provider_for(holo).search("kettle kitchen") == []
    assert provider_for(holo).get(kettle.id).extra["trust"] == pytest.approx(0.2)


def test_helpful_raises_trust_and_ranks_the_fact_higher(holo):
    provider = provider_for(holo)
    first, second = sorted(provider.search("Ada Lovelace"), key=lambda r: r.id)
    provider.feedback(second.id, helpful=True)
    ranked = provider.search("Ada Lovelace")
    assert ranked[0].id == second.id and ranked[0].extra["trust"] == pytest.approx(0.55)


def test_native_memory_page_offers_related_and_a_person_can_link_two_memories(client, staff):
    space = MemorySpace.objects.create(slug="nat", name="nat", provider="native")
    a = gateway.write(space, gateway.Draft(body="The deploy script lives in ops/deploy.sh", title="deploy", summary="The deploy script lives in ops/deploy.sh")).entry
    b = gateway.write(space, gateway.Draft(body="Deploys need the VPN up first", title="vpn", summary="Deploys need the VPN up first")).entry
    page = client.get(reverse("dashboard:entry", args=["nat", a.pk])).content.decode()
    assert f"/spaces/nat/related/?id={a.pk}" in page
    r = client.post(reverse("dashboard:memory_link", args=["nat"]), {"from": str(a.pk), "to": str(b.pk), "kind": "causal"},
                    headers=HX)
    assert r.status_code == 200 and "Linked." in r.content.decode() and f"<code>#{b.pk}</code> <span translate=\"no\">vpn" \
        in r.content.decode()
    assert Edge.objects.filter(source=a, target=b, edge_type="causal").exists()
    related = client.get(reverse("dashboard:memory_related", args=["nat"]) + f"?id={a.pk}").content.decode()
    assert f"/spaces/nat/entries/{b.pk}/" in related and "Cause and effect" in related


def test_hindsight_stats_show_on_its_entity_page(client, staff):
    from tests.providers.fakes.hindsight import FakeHindsight

    fake = FakeHindsight()
    try:
        ProviderService.objects.create(kind="hindsight", config={"endpoint": fake.url})
        from memoryhub.spaces import secrets
        secrets.save("hindsight", {"apiKey": fake.api_key})
        space = MemorySpace.objects.create(slug="hs", name="hs", provider="hindsight", config={"bankId": "demo"})
        provider_for(space).remember("The production database is PostgreSQL 16.")
        page = client.get(reverse("dashboard:entities", args=["hs"])).content.decode()
        assert "Hindsight stats" in page and "total_nodes" in page
    finally:
        fake.stop()
