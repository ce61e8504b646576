"""MemoryHubProvider's set-up against the real served hub: mistakes found at initialize with the fix named, the
Hermes setup hooks (config schema, save_config, register), and the package's typing marker."""

from __future__ import annotations

import json
import logging
import sys
import tomllib
from importlib import import_module

import pytest
from memoryhub_client import MemoryHubProvider, register

from tests.client_helpers import archived, make_space, provider_for, titles
from tests.livehub import ROOT, free_port

CLIENT = ROOT / "clients" / "python"


@pytest.fixture(autouse=True)
def hermes_home(monkeypatch, tmp_path):
    """A Hermes home of the test's own, so no memoryhub.json of the machine's user is read."""
    home = tmp_path / "hermes-home"
    monkeypatch.setenv("HERMES_HOME", str(home))
    for name in ("MEMORYHUB_URL", "MEMORYHUB_TOKEN", "MEMORYHUB_SPACE", "MEMORYHUB_WORKSPACE", "MEMORYHUB_SPOOL"):
        monkeypatch.delenv(name, raising=False)
    return home


def test_a_token_of_several_spaces_without_a_space_is_unavailable_and_keeps_its_turns(hub, tmp_path, caplog):
    make_space(hub, "multi-work")
    make_space(hub, "multi-home")
    token = hub.token("--space", "multi-work", "--space", "multi-home", name="two-spaces")
    spool = tmp_path / "spool.jsonl"
    warnings: list[str] = []
    agent = provider_for(hub, token, spool)
    assert agent.is_available()  # before initialize: configured, and no network asked
    with caplog.at_level(logging.WARNING, logger="memoryhub_client"):
        agent.initialize("multi-1", platform="cli", warning_callback=warnings.append)
    fix = "set MEMORYHUB_SPACE to one of: multi-home, multi-work"
    assert not agent.is_available()
    assert fix in agent.unavailable_reason() and "MEMORYHUB_SPACE is not set" in agent.unavailable_reason()
    assert any(fix in w for w in warnings) and any(fix in r.getMessage() for r in caplog.records)

    agent.sync_turn("Written before anyone set MEMORYHUB_SPACE", "ok")  # kept, not dropped
    assert not agent.flush(1)
    status = agent.status()
    assert status["available"] is False and fix in status["problem"] and status["queued"] == 1
    agent.drain_timeout = 0.2
    agent.shutdown()

    fixed = provider_for(hub, token, spool, space="multi-home")  # the person follows the message
    fixed.initialize("multi-1")
    assert fixed.is_available() and fixed.flush(20)
    assert titles(hub, "multi-1") == ["Written before anyone set MEMORYHUB_SPACE"]
    fixed.shutdown()


def test_a_space_the_token_may_not_use_names_the_ones_it_may(hub, tmp_path):
    make_space(hub, "only-this")
    make_space(hub, "not-that")
    agent = provider_for(hub, hub.token("--space", "only-this", name="one-space"), tmp_path / "s.jsonl",
                         space="not-that")
    agent.initialize("wrong-space")
    assert not agent.is_available()
    assert agent.unavailable_reason().startswith("MEMORYHUB_SPACE='not-that' is refused")
    assert agent.unavailable_reason().endswith("set MEMORYHUB_SPACE to one of: only-this")
    agent.drain_timeout = 0.1
    agent.shutdown()


def test_a_token_the_hub_refuses_is_named(hub, tmp_path):
    agent = provider_for(hub, "mh_not_a_token", tmp_path / "s.jsonl")
    agent.initialize("bad-token")
    assert not agent.is_available() and "does not accept MEMORYHUB_TOKEN" in agent.unavailable_reason()
    agent.drain_timeout = 0.1
    agent.shutdown()


def test_an_unreachable_hub_is_no_configuration_error(tmp_path):
    agent = MemoryHubProvider(f"http://127.0.0.1:{free_port()}", "mh_x", spool_path=tmp_path / "s.jsonl")
    agent.initialize("offline")
    assert agent.is_available() and agent.unavailable_reason() == ""
    agent.drain_timeout = 0.1
    agent.shutdown()


def test_an_unrestricted_token_needs_no_space(hub, tmp_path):
    agent = provider_for(hub, hub.token(name="all-spaces"), tmp_path / "s.jsonl")
    agent.initialize("unrestricted")
    assert agent.is_available()
    agent.shutdown()


def test_setup_asks_for_the_settings_and_saves_all_but_the_secret(hub, tmp_path, monkeypatch):
    schema = {f["key"]: f for f in MemoryHubProvider().get_config_schema()}
    assert list(schema) == ["url", "token", "space", "workspace", "spool"]
    assert schema["token"]["secret"] and schema["token"]["env_var"] == "MEMORYHUB_TOKEN"
    assert not any(f.get("secret") for key, f in schema.items() if key != "token")

    home = tmp_path / "profile-home"
    make_space(hub, "saved-space")
    MemoryHubProvider().save_config({"url": hub.url, "space": "saved-space", "token": "mh_must_not_be_saved"},
                                    str(home))
    saved = json.loads((home / "memoryhub.json").read_text())
    assert saved == {"url": hub.url, "space": "saved-space"}

    monkeypatch.setenv("MEMORYHUB_TOKEN", hub.token(name="from-env"))  # Hermes puts the secret in the environment
    agent = MemoryHubProvider(retry_max_delay=0.5)
    assert agent.client.url != hub.url  # nothing saved in the default home
    agent.initialize("saved-1", hermes_home=str(home), platform="cli")
    assert agent.client.url == hub.url and agent.space == "saved-space" and agent.is_available()
    agent.sync_turn("Settings came from the saved file", "ok")
    assert agent.flush(20)
    agent.shutdown()
    assert archived(hub, "saved-1") == [{"title": "Settings came from the saved file", "space": "saved-space"}]
    assert list(home.glob("memoryhub-spool-*.jsonl"))  # the spool lives in the Hermes home

    monkeypatch.setenv("MEMORYHUB_SPACE", "from-env")  # the environment wins over the file
    assert MemoryHubProvider(hermes_home=home).space == "from-env"


def test_hermes_finds_the_provider_through_its_entry_point(tmp_path, monkeypatch):
    project = tomllib.loads((CLIENT / "pyproject.toml").read_text())
    target = project["project"]["entry-points"]["hermes_agent.memory_providers"]["memoryhub"]
    module = import_module(target)  # Hermes loads a module with register(ctx) from this entry point

    class Collector:  # what Hermes passes to register(ctx)
        provider = None

        def register_memory_provider(self, provider):
            self.provider = provider

    ctx = Collector()
    module.register(ctx)
    assert isinstance(ctx.provider, MemoryHubProvider) and ctx.provider.name == "memoryhub"

    # Inside Hermes, the provider is also a MemoryProvider, so hooks newer than this client have their defaults.
    (tmp_path / "agent").mkdir()
    (tmp_path / "agent" / "__init__.py").write_text("")
    (tmp_path / "agent" / "memory_provider.py").write_text(
        "from abc import ABC, abstractmethod\n"
        "class MemoryProvider(ABC):\n"
        "    @property\n    @abstractmethod\n    def name(self): ...\n"
        "    @abstractmethod\n    def is_available(self): ...\n"
        "    @abstractmethod\n    def initialize(self, session_id, **kwargs): ...\n"
        "    @abstractmethod\n    def get_tool_schemas(self): ...\n"
        "    def recall_status(self):\n        return None\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "agent", raising=False)
    try:
        register(ctx)
        from agent.memory_provider import MemoryProvider

        assert isinstance(ctx.provider, MemoryProvider) and isinstance(ctx.provider, MemoryHubProvider)
        assert ctx.provider.recall_status() is None and ctx.provider.name == "memoryhub"
    finally:
        sys.modules.pop("agent.memory_provider", None)
        sys.modules.pop("agent", None)


def test_the_package_is_typed():
    project = tomllib.loads((CLIENT / "pyproject.toml").read_text())
    assert "py.typed" in project["tool"]["setuptools"]["package-data"]["memoryhub_client"]
    assert (CLIENT / "memoryhub_client" / "py.typed").exists()
