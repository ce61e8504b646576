"""The ByteRover adapter driving the real `brv` 3.14.0 CLI and its daemon (scripts/start-real-providers.sh).

brv's model is scripts/model_stub.py: a scripted agent that files a curate text as one context-tree
entry and answers a query with the excerpts brv's own search found. Everything else (the CLI, the
daemon, its search, its sandbox, the context tree on disk) is brv's.
"""

from __future__ import annotations

import json
import os
import urllib.request
import uuid
from pathlib import Path

import pytest

from providers.base import ProviderError
from providers.byterover import ByteRoverProvider
from tests.providers.contract import ContractSuite, without_fault_injection

pytestmark = [
    pytest.mark.integration,
    pytest.mark.skipif(not os.environ.get("MEMORYHUB_IT_BRV"),
                       reason="no real brv CLI (scripts/start-real-providers.sh)"),
]


@pytest.fixture(autouse=True)
def brv_home(monkeypatch):
    """brv keeps its daemon and provider settings under $HOME; the start script set one up."""
    monkeypatch.setenv("HOME", os.environ["MEMORYHUB_IT_BRV_HOME"])


@pytest.fixture
def make_provider(tmp_path):
    def make(**overrides):
        # the space's own directory as the hub hands it over (provider_services puts it in _store_dir)
        directory = tmp_path / overrides.pop("_store_dir", "ws")
        directory.mkdir(exist_ok=True)
        return ByteRoverProvider({"cliPath": os.environ.get("MEMORYHUB_IT_BRV"), "_store_dir": str(directory),
                                  "_timeout": 60, **overrides})
    return make


@pytest.fixture
def brv(make_provider):
    return make_provider()


def query_chats() -> int:
    """How often brv has asked the model stub to help answer a query (background chats don't count)."""
    with urllib.request.urlopen(os.environ["MEMORYHUB_IT_STUB_URL"] + "/_log", timeout=5) as response:
        return sum(chat["task"] == "query" for chat in json.load(response))


def processes_mentioning(marker: str) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and marker.encode() in (entry / "cmdline").read_bytes():
                found.append(int(entry.name))
        except OSError:
            continue
    return found


@without_fault_injection("test_bad_credentials_are_permanent_and_never_echo_the_key")
class TestByteRoverRealContract(ContractSuite):
    """The shared suite through the real CLI (local, without credentials)."""

    second_space = {"_store_dir": "second"}


def test_status_is_the_real_cli_in_the_working_directory(brv):
    status = brv.status()
    assert status["healthy"] and status["version"] == "3.14.0" and status["project"] == brv.working_directory()


def test_curate_writes_the_context_tree_and_query_finds_it(brv):
    marker = f"zq{uuid.uuid4().hex[:8]}"
    receipt = brv.remember(f"The {marker} service issues JWTs that expire after fifteen minutes.", title="auth")
    assert receipt.state == "accepted", receipt.error
    [written] = receipt.detail["files"]
    tree = Path(brv.working_directory(), ".brv", "context-tree")
    assert tree in Path(written).parents and marker in Path(written).read_text()
    [record] = brv.search(f"How long until a JWT of the {marker} service expires?")
    assert f"[auth] The {marker} service issues JWTs that expire after fifteen minutes." in record.text
    assert f".brv/context-tree/{Path(written).relative_to(tree)}" in record.extra["sources"]


def test_a_query_with_nothing_in_the_tree_is_empty_without_asking_the_model(brv):
    before = query_chats()
    assert brv.search("What is the retention period of the audit log?") == []
    assert query_chats() == before


def test_query_text_is_one_argument_never_a_flag_or_shell(brv, tmp_path):
    target = tmp_path / "pwned"
    assert brv.search(f"--help; touch {target} $(touch {target})") == []
    assert not target.exists()


def test_a_failure_reported_under_exit_status_zero_is_still_a_failure(brv):
    with pytest.raises(ProviderError, match="Query argument is required"):
        brv.search("   ")
    receipt = brv.remember("   ")
    assert receipt.state == "failed" and "context argument" in receipt.error


def test_a_slow_query_is_killed_at_the_timeout(make_provider):
    marker = f"zq{uuid.uuid4().hex[:8]}"
    with pytest.raises(ProviderError) as caught:
        make_provider(_timeout=0.3).search(f"What does {marker} do?")
    assert caught.value.timeout and processes_mentioning(marker) == []


def test_a_curate_cut_off_by_the_timeout_is_unknown(make_provider):
    receipt = make_provider(_curate_timeout=0.3).remember("Backups run nightly at two.")
    assert receipt.state == "unknown" and "timed out" in receipt.error


def test_output_over_the_cap_is_refused(make_provider):
    with pytest.raises(ProviderError, match="cap"):
        make_provider(_max_bytes=100).status()
