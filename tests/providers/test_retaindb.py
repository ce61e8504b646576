"""RetainDB adapter against a loopback RetainDB API v1 server."""

import pytest

from providers.base import ProviderError
from providers.retaindb import RetainDBProvider
from tests.providers.contract import ContractSuite, adapter_fixtures
from tests.providers.fakes.retaindb import RetainDBFake

fake, make_provider, bad_credentials_provider = adapter_fixtures(
    RetainDBFake, RetainDBProvider,
    lambda fake: {"endpoint": fake.url, "apiKey": fake.api_key, "project": "hub", "userId": "alice"})


class TestRetainDBContract(ContractSuite):
    second_space = {"project": "other"}


def test_write_is_sync_typed_and_read_back(make_provider, fake):
    receipt = make_provider().remember("Alice wants to learn Go", category="goal", title="Go")
    assert receipt.state == "committed" and receipt.detail["dropped"] == ["title"]
    sent = next(r.body for r in fake.log if r.method == "POST" and r.path == "/v1/memory")
    assert sent["write_mode"] == "sync" and sent["memory_type"] == "goal"
    assert [r.method for r in fake.log[-1:]] == ["GET"], "the write is verified by reading it back"


def test_write_without_an_id_is_not_committed(make_provider, fake, monkeypatch):
    monkeypatch.setattr(fake, "write", lambda req: (200, {"success": True, "mode": "sync", "trace_id": "t"}))
    assert make_provider().remember("no id here").state == "pending_verification"


def test_refused_write_is_a_failed_receipt(make_provider, fake, monkeypatch):
    monkeypatch.setattr(fake, "write", lambda req: (200, {"success": False, "message": "quota"}))
    receipt = make_provider().remember("over quota")
    assert receipt.state == "failed" and receipt.error == "quota"


def test_users_in_one_project_are_isolated(make_provider):
    make_provider().remember("alice only fact")
    assert make_provider(userId="bob").search("alice only fact") == []


def test_bearer_prefix_in_the_key_is_not_doubled(make_provider, fake):
    make_provider(apiKey=f"Bearer {fake.api_key}").status()
    assert fake.log[-1].headers["authorization"] == f"Bearer {fake.api_key}"


def test_forget_refuses_another_projects_memory(make_provider, fake):
    receipt = make_provider(project="other").remember("elsewhere")
    with pytest.raises(ProviderError):
        make_provider().forget(receipt.provider_id)
    assert receipt.provider_id in fake.memories
