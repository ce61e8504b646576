"""Honcho adapter against a loopback Honcho v3 server: the shared contract plus Honcho specifics."""

import pytest

from providers.base import ProviderError
from providers.honcho import HonchoProvider
from tests.providers.contract import ContractSuite, adapter_fixtures
from tests.providers.fakes.honcho import HonchoFake

fake, make_provider, bad_credentials_provider = adapter_fixtures(
    HonchoFake, HonchoProvider,
    lambda fake: {"endpoint": fake.url, "apiKey": fake.api_key, "workspace": "hub", "userId": "alice",
                  "agentId": "assistant"})


class TestHonchoContract(ContractSuite):
    second_space = {"userId": "bob"}


def test_conclusion_is_written_by_the_agent_peer_about_the_user(make_provider, fake):
    receipt = make_provider().remember("Alice prefers tea", title="ignored title")
    stored = fake.conclusions[receipt.provider_id]
    assert (stored["observer_id"], stored["observed_id"]) == ("assistant", "alice")
    assert receipt.state == "committed" and receipt.detail["dropped"] == ["title"]


def test_without_agent_peer_the_user_observes_itself(make_provider, fake):
    receipt = make_provider(agentId="").remember("Alice likes rain")
    assert fake.conclusions[receipt.provider_id]["observer_id"] == "alice"


def test_browse_pages_through_offsets(make_provider):
    provider = make_provider()
    ids = [provider.remember(f"fact number {n}").provider_id for n in range(7)]
    assert [r.id for r in provider.browse(limit=3, offset=2)] == ids[2:5]
    assert [r.id for r in provider.browse(limit=3, offset=6)] == ids[6:]


def test_endpoint_with_version_suffix_is_accepted(make_provider, fake):
    assert make_provider(endpoint=fake.url + "/v3/").status()["healthy"]


def test_missing_workspace_setting_is_permanent(make_provider):
    with pytest.raises(ProviderError) as caught:
        make_provider(workspace="").status()
    assert caught.value.permanent


def test_forget_of_unknown_id_is_an_error(make_provider):
    with pytest.raises(ProviderError):
        make_provider().forget("nope")
