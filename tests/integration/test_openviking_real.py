"""The OpenViking adapter against a real openviking-server (start it with scripts/start-real-providers.sh)."""

from __future__ import annotations

import os

import pytest

from providers.base import ProviderError
from providers.openviking import OpenVikingProvider
from tests.providers.contract import provider_factory

pytestmark = [
    pytest.mark.integration,
    pytest.mark.skipif(not os.environ.get("MEMORYHUB_IT_OPENVIKING_URL"),
                       reason="no real OpenViking server (scripts/start-real-providers.sh)"),
]


@pytest.fixture
def make():
    config = {"endpoint": os.environ.get("MEMORYHUB_IT_OPENVIKING_URL"),
              "apiKey": os.environ.get("MEMORYHUB_IT_OPENVIKING_KEY"),
              "account": os.environ.get("MEMORYHUB_IT_OPENVIKING_ACCOUNT"),
              "discoveryUser": os.environ.get("MEMORYHUB_IT_OPENVIKING_USER"), "_timeout": 30}
    with provider_factory(OpenVikingProvider, config) as make:
        yield make


def test_user_key_discovery_accepts_the_real_root(make):
    user = os.environ["MEMORYHUB_IT_OPENVIKING_USER"]
    resolved = make().validate_config()
    assert resolved["root"] == f"viking://user/{user}/memories" and resolved["mode"] == "user-key"


def test_admin_discovery_with_the_account_admin_key(make):
    resolved = make(discoveryUser="", user=os.environ["MEMORYHUB_IT_OPENVIKING_USER"]).validate_config()
    assert resolved["mode"] == "admin" and os.environ["MEMORYHUB_IT_OPENVIKING_USER"] in resolved["users"]


def test_missing_user_root_is_refused(make):
    with pytest.raises(ProviderError):
        make(discoveryUser="nobody-here").validate_config()


def test_write_verify_recall_browse_forget(make):
    provider = make()
    text = "Integration: Alice prefers jasmine tea over coffee in the morning."
    receipt = provider.remember(text, category="preference", title="tea")
    assert receipt.state == "pending_verification", receipt.error
    committed = provider.verify(receipt)
    assert committed.state == "committed", committed.error
    assert any(r.id == committed.provider_id and r.text == text for r in provider.search("jasmine tea morning"))
    assert any(r.id == committed.provider_id and r.text == text for r in provider.browse(limit=200))
    provider.forget(committed.provider_id)
    with pytest.raises(ProviderError):
        provider.get(committed.provider_id)


def test_legacy_root_expands_against_the_real_server(make):
    provider = make(discoveryUser="", targetUri="viking://user/memories")
    assert provider.root() == f"viking://user/{os.environ['MEMORYHUB_IT_OPENVIKING_USER']}/memories"
