"""OpenViking adapter against a loopback server speaking the real 0.5.2 wire format."""

from __future__ import annotations

import pytest

from providers.base import SpaceConfigError, ProviderError, Receipt
from providers.openviking import OpenVikingProvider
from tests.providers.fakes.openviking import FakeOpenViking

from tests.providers.contract import ContractSuite, adapter_fixtures

ROOT = "viking://user/alice/memories"


fake, make_provider, bad_credentials_provider = adapter_fixtures(
    FakeOpenViking, OpenVikingProvider,
    lambda fake: {"endpoint": fake.url, "apiKey": "key-alice", "account": "acme", "discoveryUser": "alice",
                  "_timeout": 0.5},
    bad_key="key-wrong")


@pytest.fixture
def ov(make_provider):
    return make_provider()


class TestOpenVikingContract(ContractSuite):
    """The shared contract suite; its fixtures are the module's `fake`, `make_provider`, `bad_credentials_provider`."""

    second_space = {"targetUri": "viking://user/bob/memories", "discoveryUser": "bob", "apiKey": "key-bob"}


def _written(fake, provider, text="Alice prefers green tea.", **kw) -> Receipt:
    receipt = provider.remember(text, **kw)
    assert receipt.state == "pending_verification", receipt.error
    return receipt


def test_remember_creates_a_new_md_with_create_wait_and_tags(fake, ov):
    receipt = _written(fake, ov, category="preference", title="Tea", tags=["drinks"])
    assert receipt.uri.startswith(f"{ROOT}/preferences/tea-") and receipt.uri.endswith(".md")
    method, path, _, body = fake.requests[-1]
    assert (method, path) == ("POST", "/api/v1/content/write")
    assert body["mode"] == "create" and body["wait"] is True and body["uri"] == receipt.uri
    assert body["tags"] == ["source:memoryhub", "category:preference", "drinks"]


def test_two_writes_never_share_a_uri(fake, ov):
    assert _written(fake, ov).uri != _written(fake, ov).uri


@pytest.mark.parametrize("category, folder", [
    ("preference", "preferences"), ("insight", "experiences"), ("decision", "experiences"),
    ("context", "events"), ("fact", "entities"), ("general", "entities"),
])
def test_categories_map_to_memory_folders(fake, ov, category, folder):
    assert _written(fake, ov, category=category).uri.startswith(f"{ROOT}/{folder}/")


def test_verify_commits_with_the_exact_file_uri(fake, ov):
    receipt = ov.verify(_written(fake, ov))
    assert receipt.state == "committed", receipt.error
    assert receipt.provider_id == receipt.uri and receipt.uri.startswith(ROOT)
    assert receipt.detail["file_id"]


def test_verify_refuses_a_byte_mismatch(fake, ov):
    receipt = _written(fake, ov)
    fake.size_skew = 3
    result = ov.verify(receipt)
    assert result.state == "failed" and "bytes" in result.error and not result.provider_id


def test_verify_waits_while_the_vector_index_is_not_done(fake, ov):
    fake.vector_status = "queued"
    result = ov.verify(_written(fake, ov))
    assert result.state == "pending_verification" and "vector index" in result.error


def test_verify_timeout_stays_pending(fake, ov):
    receipt = _written(fake, ov)
    fake.slow_seconds = 1.0
    fake.set_fault("slow")
    result = ov.verify(receipt)
    assert result.state == "pending_verification" and "timed out" in result.error


def test_verify_refuses_a_read_back_that_differs(fake, ov):
    receipt = _written(fake, ov)
    fake.readback_suffix = " (edited)"
    result = ov.verify(receipt)
    assert result.state == "failed" and "read-back" in result.error


def test_verify_refuses_a_uri_the_server_did_not_confirm(fake, ov):
    receipt = _written(fake, ov)
    receipt.detail["written_uri"] = f"{ROOT}/preferences/other.md"
    assert ov.verify(receipt).state == "failed"


def test_verify_reports_a_missing_file(fake, ov):
    receipt = _written(fake, ov)
    fake.files.clear()
    result = ov.verify(receipt)
    assert result.state == "failed" and "missing" in result.error


def test_write_timeout_is_unknown_not_failed_and_not_retried(fake, ov):
    fake.write_delay = 1.0
    receipt = ov.remember("Slow write")
    assert receipt.state == "unknown"
    assert f"{fake.url}/api/v1/content/write" in receipt.error and receipt.uri in receipt.error
    assert sum(1 for r in fake.requests if r[1] == "/api/v1/content/write") == 1


def test_verifying_an_unconfirmed_write_stays_unknown(fake, ov):
    fake.write_delay = 1.0
    receipt = ov.remember("Slow write")
    assert ov.verify(receipt).state == "unknown"


def test_index_failure_is_unknown_and_the_file_may_exist(fake, ov):
    fake.write_fails_index = True
    receipt = ov.remember("Indexing breaks")
    assert receipt.state == "unknown" and receipt.uri in fake.files
    assert "PROCESSING_ERROR" in receipt.error or "embedding" in receipt.error


def test_bad_key_write_raises_permanent_without_the_key(make_provider):
    with pytest.raises(ProviderError) as caught:
        make_provider(apiKey="key-wrong").remember("x")
    assert caught.value.permanent and "key-wrong" not in str(caught.value)


def test_validate_config_with_discovery_user_checks_the_root_read_only(fake, ov):
    resolved = ov.validate_config()
    assert resolved == {"mode": "user-key", "account": "acme", "user": "alice", "root": ROOT, "users": ["alice"]}
    assert fake.requests[-1][:3] == ("GET", "/api/v1/fs/ls", {"uri": ROOT})
    assert not any(r[0] != "GET" for r in fake.requests)


def test_validate_config_rejects_a_missing_root(fake, ov):
    fake.missing_roots.add(ROOT)
    with pytest.raises(ProviderError, match="does not exist") as caught:
        ov.validate_config()
    assert caught.value.permanent


def test_validate_config_rejects_denied_access(make_provider):
    with pytest.raises(ProviderError, match="denied") as caught:
        make_provider(discoveryUser="bob").validate_config()
    assert caught.value.permanent


def test_validate_config_rejects_an_invalid_answer(fake, ov):
    fake.set_fault("malformed")
    with pytest.raises(ProviderError):
        ov.validate_config()


def test_health_alone_is_not_enough(fake, ov):
    fake.missing_roots.add(ROOT)
    assert ov.status()["healthy"]
    with pytest.raises(ProviderError):
        ov.validate_config()


def test_admin_discovery_lists_users_and_checks_the_space_root(fake, make_provider):
    provider = make_provider(apiKey="key-admin", discoveryUser="", user="alice")
    resolved = provider.validate_config()
    assert resolved["mode"] == "admin" and resolved["root"] == ROOT
    assert set(resolved["users"]) == {"alice", "admin", "bob"}
    assert "key-" not in repr(resolved)
    assert {s["targetUri"] for s in provider.discover()} >= {ROOT, "viking://user/bob/memories"}


def test_admin_error_is_not_downgraded(fake, make_provider):
    provider = make_provider(discoveryUser="", user="alice")
    with pytest.raises(ProviderError) as caught:
        provider.validate_config()
    assert caught.value.permanent
    assert not any(r[1] == "/api/v1/fs/ls" for r in fake.requests)


def test_admin_discovery_rejects_a_user_outside_the_account(make_provider):
    with pytest.raises(ProviderError, match="not in account"):
        make_provider(apiKey="key-admin", discoveryUser="", user="carol").validate_config()


def test_legacy_root_expands_with_the_configured_user(make_provider):
    assert make_provider(discoveryUser="", targetUri="viking://user/memories", user="alice").root() == ROOT


def test_legacy_root_without_user_uses_the_authenticated_user(make_provider):
    assert make_provider(discoveryUser="", targetUri="viking://user/memories").root() == ROOT


def test_space_user_must_match_the_key_user(make_provider):
    with pytest.raises(SpaceConfigError, match="is not the key's user") as caught:
        make_provider(user="bob").root()
    assert caught.value.key == "user"
    with pytest.raises(ProviderError, match="belongs to"):
        make_provider(targetUri="viking://user/bob/memories").root()


@pytest.mark.parametrize("target", ["viking://resources/x", "viking://user/../memories", "viking://user/a b/memories"])
def test_invalid_target_uris_are_rejected(make_provider, target):
    with pytest.raises(ProviderError) as caught:
        make_provider(discoveryUser="", targetUri=target, user="").root()
    assert caught.value.permanent


def test_forget_deletes_only_that_file(fake, ov):
    keep, gone = ov.verify(_written(fake, ov, text="keep")), ov.verify(_written(fake, ov, text="gone"))
    ov.forget(gone.provider_id)
    assert gone.uri not in fake.files and keep.uri in fake.files
    assert fake.requests[-1][:3] == ("DELETE", "/api/v1/fs", {"uri": gone.uri, "wait": "true"})


@pytest.mark.parametrize("uri", [
    "viking://user/bob/memories/preferences/x.md",
    f"{ROOT}/preferences/../../../bob/memories/x.md",
    f"{ROOT}/preferences/.overview.md",
    f"{ROOT}/preferences",
    f"{ROOT}/preferences/x.md?recursive=true",
    f"{ROOT}//x.md",
    ROOT,
])
def test_forget_refuses_anything_but_an_exact_user_md(fake, ov, uri):
    with pytest.raises(ProviderError):
        ov.forget(uri)
    assert not any(r[0] == "DELETE" for r in fake.requests)


def test_search_reads_full_text_and_skips_overviews(fake, ov):
    long_text = "Alice prefers green tea in the morning, and " + "more detail " * 20
    _written(fake, ov, text=long_text)
    records = ov.search("green tea")
    assert [r.text for r in records] == [long_text]
    assert records[0].category == "fact" and records[0].score is not None


def test_browse_and_get_return_full_text(fake, ov):
    receipt = _written(fake, ov, text="Bob likes chess and long walks.", category="context")
    [record] = ov.browse()
    assert record.text == "Bob likes chess and long walks." and record.category == "context"
    assert ov.get(receipt.uri).text == record.text


def test_graph_projects_folders_and_files(fake, ov):
    receipt = _written(fake, ov, category="decision")
    graph = ov.graph()
    ids = {n["id"] for n in graph["nodes"]}
    assert {ROOT, f"{ROOT}/experiences", receipt.uri} <= ids
    assert {"source": f"{ROOT}/experiences", "target": receipt.uri, "type": "contains"} in graph["edges"]


@pytest.mark.parametrize("fault", ["error500", "malformed", "huge", "disconnect"])
def test_faults_become_provider_errors(fake, make_provider, fault):
    provider = make_provider(_max_bytes=1024 * 1024)
    fake.set_fault(fault)
    with pytest.raises(ProviderError):
        provider.browse()
    fake.set_fault(None)
    assert provider.browse() == []


def test_server_restart_keeps_files(fake, ov):
    receipt = _written(fake, ov)
    fake.restart()
    assert ov.verify(receipt).state == "committed"
