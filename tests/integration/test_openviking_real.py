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


def test_test_connection_checks_the_service_alone(make):
    """#22: the provider page's test needs no space field and proves the key against the real server."""
    status = make(discoveryUser="", targetUri="", user="").check()
    assert status["healthy"] is True and status["user"] == os.environ["MEMORYHUB_IT_OPENVIKING_USER"]
    with pytest.raises(ProviderError) as caught:
        make(apiKey="not-a-real-key-123").check()
    assert caught.value.permanent and caught.value.status in (401, 403)


@pytest.mark.django_db
def test_test_connection_from_the_hub_records_the_outcome(settings, tmp_path):
    from memoryhub.spaces import secrets
    from memoryhub.spaces.connection import check_service
    from memoryhub.spaces.models import ProviderService

    settings.MEMORYHUB = {**settings.MEMORYHUB, "SECRETS_FILE": tmp_path / "secrets.json", "PROVIDER_TIMEOUT": 30}
    ProviderService.objects.create(kind="openviking", config={"endpoint": os.environ["MEMORYHUB_IT_OPENVIKING_URL"],
                                                              "account": os.environ["MEMORYHUB_IT_OPENVIKING_ACCOUNT"]})
    secrets.save("openviking", {"apiKey": "not-a-real-key-123"})
    failed = check_service("openviking")
    assert not failed.ok and "refused the API key" in failed.message
    outcome = check_service("openviking", {"apiKey": os.environ["MEMORYHUB_IT_OPENVIKING_KEY"],
                                           "endpoint": os.environ["MEMORYHUB_IT_OPENVIKING_URL"]})
    assert outcome.ok and outcome.unsaved, outcome.message


def test_every_id_handed_out_reads_back(make):
    """#22: the verified write's id and a search hit's id both resolve with get()."""
    provider = make()
    text = "Integration: the staging cluster is called bluefin and lives in rack 7."
    committed = provider.verify(provider.remember(text, category="fact", title="cluster"))
    assert committed.state == "committed", committed.error
    assert provider.resolve_write(committed) == [committed.provider_id]
    assert provider.get(committed.provider_id).text == text
    hit = next(r for r in provider.search("staging cluster bluefin rack") if r.text == text)
    assert provider.get(hit.id).text == text and text in hit.summary
    provider.forget(committed.provider_id)
