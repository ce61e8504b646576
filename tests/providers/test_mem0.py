"""Mem0 adapter against a loopback Mem0 server, in Platform and self-hosted mode."""

import pytest

from providers.base import ProviderError
from providers.mem0 import Mem0Provider
from tests.providers.contract import ContractSuite, provider_factory
from tests.providers.fakes.mem0 import Mem0Fake


@pytest.fixture
def fake():
    server = Mem0Fake()
    yield server
    server.stop()


@pytest.fixture(params=["platform", "self-hosted"])
def mode(request):
    return request.param


@pytest.fixture
def make_provider(fake, mode):
    config = {"endpoint": fake.url, "apiKey": fake.api_key, "mode": mode, "userId": "alice", "agentId": "hub"}
    with provider_factory(Mem0Provider, config) as make:
        yield make


@pytest.fixture
def bad_credentials_provider(make_provider):
    return make_provider(apiKey="wrong-key-987654")


class TestMem0Contract(ContractSuite):
    second_space = {"userId": "bob"}


def test_mode_field_is_a_platform_or_self_hosted_select():
    mode_field = next(f for f in Mem0Provider.service_fields if f.key == "mode")
    assert mode_field.input == "select" and mode_field.options == ("platform", "self-hosted")
    assert mode_field.default == "platform"


def test_platform_uses_token_auth_and_self_hosted_uses_x_api_key(make_provider, fake, mode):
    make_provider().status()
    headers = fake.log[-1].headers
    if mode == "platform":
        assert headers["authorization"] == f"Token {fake.api_key}" and "x-api-key" not in headers
    else:
        assert headers["x-api-key"] == fake.api_key and "authorization" not in headers


def test_write_is_accepted_and_visible_only_after_extraction(make_provider, fake):
    fake.defer = True
    provider = make_provider()
    receipt = provider.remember("Alice drinks oolong", title="Tea", tags=["drinks"])
    assert receipt.state == "accepted"
    assert provider.search("oolong") == []
    fake.process()
    [record] = provider.search("oolong")
    assert record.title == "Tea" and record.tags == ["drinks"] and 0 < record.score <= 1


def test_platform_write_returns_the_event_id(make_provider, fake, mode):
    receipt = make_provider().remember("Alice owns a bike")
    if mode == "platform":
        assert receipt.provider_id and receipt.detail["status"] == "PENDING"
    else:
        assert receipt.provider_id in fake.memories


def test_rerank_is_passed_through_on_platform_search(make_provider, fake, mode):
    make_provider(rerank=True).search("anything")
    if mode == "platform":
        assert fake.searches[-1]["rerank"] is True
    assert fake.searches[-1]["filters"] == {"user_id": "alice"}


def test_get_and_forget_refuse_another_users_memory(make_provider, fake):
    make_provider(userId="bob").remember("Bob hates mornings")
    bob_memory = next(iter(fake.memories))
    with pytest.raises(ProviderError):
        make_provider().get(bob_memory)
    with pytest.raises(ProviderError):
        make_provider().forget(bob_memory)
    assert bob_memory in fake.memories


def test_browse_pages_through_offsets(make_provider):
    provider = make_provider()
    for n in range(5):
        provider.remember(f"fact number {n}")
    texts = [r.text for r in provider.browse(limit=2, offset=3)]
    assert texts == ["fact number 3", "fact number 4"]


def test_unknown_mode_is_a_permanent_error(make_provider):
    with pytest.raises(ProviderError) as caught:
        make_provider(mode="oss").status()
    assert caught.value.permanent
