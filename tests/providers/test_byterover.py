"""ByteRover adapter driving a fake `brv` executable through real subprocesses."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from providers.base import ProviderError
from providers.byterover import ByteRoverProvider
from tests.providers.contract import ContractSuite

FAKE_BRV = str(Path(__file__).parent / "fakes" / "brv")


@pytest.fixture
def log(tmp_path, monkeypatch):
    path = tmp_path / "brv.log"
    monkeypatch.setenv("BRV_FAKE_LOG", str(path))
    return lambda: [json.loads(line) for line in path.read_text().splitlines()]


@pytest.fixture
def make(tmp_path):
    def make(**config):
        os.makedirs(tmp_path / "ws", exist_ok=True)
        return ByteRoverProvider({"cliPath": FAKE_BRV, "_store_dir": str(tmp_path / "ws"), **config})
    return make


class TestByteRoverContract(ContractSuite):
    """The shared suite through the fake CLI; the HTTP fault tests do not apply to a CLI."""

    second_space = {"_store_dir": "second"}

    @pytest.fixture
    def make_provider(self, tmp_path):
        def make(**overrides):
            config = {"cliPath": FAKE_BRV, "_store_dir": "ws", **overrides}
            config["_store_dir"] = str(tmp_path / config["_store_dir"])
            os.makedirs(config["_store_dir"], exist_ok=True)
            return ByteRoverProvider(config)
        return make

    @pytest.fixture
    def bad_credentials_provider(self):
        return None

    @pytest.fixture
    def fake(self):
        return None


def test_capabilities_are_only_status_query_curate():
    caps = ByteRoverProvider.capabilities
    assert caps.search and caps.remember and not (caps.browse or caps.forget or caps.graph or caps.related)
    with pytest.raises(ProviderError):
        ByteRoverProvider({}).browse()
    with pytest.raises(ProviderError):
        ByteRoverProvider({}).forget("x")


def test_curate_then_query_in_the_workspace(make, log, tmp_path):
    provider = make(apiKey="brv-secret-key")
    receipt = provider.remember("The JWT expiry is fifteen minutes.", title="auth")
    assert receipt.state == "accepted" and not receipt.provider_id
    [record] = provider.search("jwt expiry")
    assert "fifteen minutes" in record.text and record.extra["sources"][0].startswith(".brv/context-tree/")
    assert receipt.detail["files"][0].endswith(".md")
    calls = log()
    assert [c["argv"] for c in calls] == [
        ["curate", "--format", "json", "--", "[auth] The JWT expiry is fifteen minutes."],
        ["query", "--format", "json", "--", "jwt expiry"]]
    assert all(c["cwd"] == str(tmp_path / "ws") and c["has_key"] for c in calls)


def test_query_without_hits_is_empty(make):
    assert make().search("nothing here at all") == []


def test_query_text_that_looks_like_a_flag_stays_an_argument(make, log):
    make().search("--help; rm -rf / $(reboot)")
    assert log()[0]["argv"] == ["query", "--format", "json", "--", "--help; rm -rf / $(reboot)"]


def test_status(make, tmp_path):
    status = make().status()
    assert status["healthy"] and status["version"] == "3.14.0" and status["project"] == str(tmp_path / "ws")


def test_the_working_directory_is_the_one_the_hub_chose(make, tmp_path):
    """Where a space's tree lives is the hub's decision (tests/test_provider_stores.py); the adapter only runs
    there, and refuses a directory that is missing or not given rather than inventing one."""
    assert make().working_directory() == str(tmp_path / "ws")
    for config in ({"_store_dir": str(tmp_path / "missing")}, {"_store_dir": ""}):
        with pytest.raises(ProviderError) as caught:
            make(**config).status()
        assert caught.value.permanent


def test_missing_cli_is_permanent(make):
    with pytest.raises(ProviderError) as caught:
        make(cliPath="/nonexistent/brv").status()
    assert caught.value.permanent


def test_timeout_kills_the_process(make, log, monkeypatch):
    monkeypatch.setenv("BRV_FAKE_SLEEP", "30")
    with pytest.raises(ProviderError) as caught:
        make(_timeout=2).search("slow query")
    assert caught.value.timeout
    pid = log()[0]["pid"]
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)


def test_curate_timeout_is_unknown(make, monkeypatch):
    monkeypatch.setenv("BRV_FAKE_SLEEP", "30")
    receipt = make(_curate_timeout=2).remember("slow curate")
    assert receipt.state == "unknown" and "timed out" in receipt.error


def test_failure_exit_codes(make, monkeypatch):
    monkeypatch.setenv("BRV_FAKE_EXIT", "3")
    assert make().remember("x").state == "failed"
    with pytest.raises(ProviderError, match="exited 3: Error: injected failure"):
        make().search("anything")


def test_a_failure_under_exit_status_zero_is_still_a_failure(make, monkeypatch):
    monkeypatch.setenv("BRV_FAKE_FAIL", "No provider connected.")
    receipt = make().remember("x")
    assert receipt.state == "failed" and "No provider connected." in receipt.error
    for call in (lambda: make().search("anything"), lambda: make().status()):
        with pytest.raises(ProviderError, match="No provider connected."):
            call()


def test_a_curate_task_that_failed_midway_is_unknown(make, monkeypatch):
    monkeypatch.setenv("BRV_FAKE_TASK_FAIL", "LLM provider error")
    receipt = make().remember("x")
    assert receipt.state == "unknown" and "LLM provider error" in receipt.error


def test_output_over_the_cap_is_refused(make, monkeypatch):
    monkeypatch.setenv("BRV_FAKE_HUGE", str(3 * 1024 * 1024))
    with pytest.raises(ProviderError, match="cap"):
        make(_max_bytes=64 * 1024).search("anything")
    assert make(_max_bytes=64 * 1024).remember("x").state == "unknown"


def test_environment_is_minimal_and_secrets_stay_out_of_output(make, log, monkeypatch):
    monkeypatch.setenv("MEMORYHUB_SECRET_KEY", "hub-secret")
    monkeypatch.setenv("BRV_FAKE_EXIT", "1")
    provider = make(apiKey="brv-secret-key")
    receipt = provider.remember("x")
    assert "MEMORYHUB_SECRET_KEY" not in log()[0]["env"] and "brv-secret-key" not in receipt.error
