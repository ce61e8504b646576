"""The shared provider contract suite: every adapter must pass it against its fake (or real local store).

Subclass as `class TestXContract(ContractSuite)` and provide fixtures:
    make_provider(**space_overrides) -> Provider   # configured against the fake; overrides merge into the config
    bad_credentials_provider -> Provider | None     # None when the kind has no credentials
    fake -> object with .set_fault(name|None) for "slow", "error500", "malformed", "huge", "disconnect",
            and .restart(); None when the kind does no network I/O (the fault tests then skip)
and set the class attribute `second_space` to space overrides naming another space on the same service
(None skips the isolation test). A fake may also list "wrongtypes"/"missingfields" in `extra_faults`.
Against a real server, decorate the subclass with `without_fault_injection` instead of providing `fake`.
"""

from __future__ import annotations

import time
import uuid
from contextlib import contextmanager
from typing import Any, Callable, ClassVar

import pytest

from providers.base import (
    DELETION_MODES, RECEIPT_STATES, WRITE_MODES, Capabilities, Provider, ProviderError, Receipt, Record,
)

READ_METHODS = ("status", "search", "browse")


def adapter_fixtures(fake_class: type, provider_class: type, config: Callable[[Any], dict[str, Any]],
                     bad_key: str = "wrong-key-987654"):
    """The three fixtures an HTTP adapter's test module needs: its running fake, a provider factory
    (overrides merge into `config(fake)`; every provider made is closed afterwards) and bad credentials.

    Use: `fake, make_provider, bad_credentials_provider = adapter_fixtures(Fake, Provider, lambda f: {...})`.
    """

    @pytest.fixture
    def fake():
        server = fake_class()
        yield server
        server.stop()

    @pytest.fixture
    def make_provider(fake):
        with provider_factory(provider_class, config(fake)) as make:
            yield make

    @pytest.fixture
    def bad_credentials_provider(make_provider):
        return make_provider(apiKey=bad_key)

    return fake, make_provider, bad_credentials_provider


@contextmanager
def provider_factory(provider_class: type, config: dict[str, Any]):
    """`make(**overrides)` builds a provider on `config` with the overrides merged in; all are closed on exit."""
    made: list[Provider] = []

    def make(**overrides: Any) -> Provider:
        made.append(provider_class({**config, **overrides}))
        return made[-1]

    try:
        yield make
    finally:
        for provider in made:
            provider.close()


def eventually(probe: Callable[[], Any], seconds: float = 3.0) -> Any:
    """Poll `probe` until it returns something truthy (async providers index writes in the background)."""
    deadline = time.monotonic() + seconds
    while True:
        value = probe()
        if value or time.monotonic() > deadline:
            return value
        time.sleep(0.05)


def unique_text(word: str) -> str:
    """A memory text no other test wrote, so searches cannot match leftovers."""
    return f"{word} zq{uuid.uuid4().hex[:10]} remembers the blue teapot"


def call_read(provider: Provider, method: str) -> Any:
    if method == "search":
        return provider.search("blue teapot", limit=5)
    if method == "browse":
        return provider.browse(limit=5)
    return provider.status()


def find(provider: Provider, text: str) -> Record | None:
    """The record holding `text`, looked up the way the provider allows (search, else browse)."""
    caps = provider.capabilities
    records = provider.search(text, limit=20) if caps.search else provider.browse(limit=200)
    return next((r for r in records if text in r.text), None)


NEEDS_A_FAKE = (
    "test_malformed_upstream_data_is_a_provider_error", "test_slow_upstream_times_out_quickly",
    "test_server_error_is_not_permanent", "test_oversized_response_is_refused",
    "test_dropped_connection_is_a_provider_error", "test_a_write_that_may_have_landed_is_never_committed",
    "test_writes_survive_a_server_restart",
)


def without_fault_injection(*also: str):
    """Class decorator for a suite run against a real server: leaves out the tests that need a fake to
    misbehave on cue (and `also`, tests that do not apply to the kind), rather than skipping them."""

    def drop(cls: type) -> type:
        for name in (*NEEDS_A_FAKE, *also):
            setattr(cls, name, None)
        return cls

    return drop


class ContractSuite:
    """Behaviour every provider adapter promises the hub."""

    second_space: ClassVar[dict[str, Any] | None] = None

    # -- declaration -------------------------------------------------------------------------

    def test_declaration_is_well_formed(self, make_provider):
        provider = make_provider()
        cls = type(provider)
        assert cls.kind and cls.label
        assert isinstance(cls.capabilities, Capabilities)
        assert cls.capabilities.write_mode in WRITE_MODES
        assert cls.capabilities.deletion_mode in DELETION_MODES
        assert cls.capabilities.forget == (cls.capabilities.deletion_mode != "none")
        for f in cls.service_fields + cls.space_fields:
            assert f.input != "select" or f.options, f"select field {f.key} has no options"
            assert f.input != "secret" or f.secret, f"secret input {f.key} must be marked secret"

    def test_unclaimed_capabilities_raise_provider_error(self, make_provider):
        provider = make_provider()
        caps = provider.capabilities
        calls = {
            "search": lambda: provider.search("x"), "browse": lambda: provider.browse(),
            "graph": lambda: provider.graph(), "related": lambda: provider.related("x"),
            "remember": lambda: provider.remember("x"), "link": lambda: provider.link("a", "b"),
            "forget": lambda: provider.forget("x"), "get": lambda: provider.get("x"),
            "entities": lambda: provider.entities(),
        }
        unclaimed = [name for name in calls if not getattr(caps, name)]
        if not unclaimed:
            pytest.skip("every capability is claimed")
        for name in unclaimed:
            with pytest.raises(ProviderError):
                calls[name]()

    def test_claimed_reads_work(self, make_provider):
        provider = make_provider()
        status = provider.status()
        assert isinstance(status, dict) and isinstance(status.get("healthy"), bool)
        caps = provider.capabilities
        if caps.search:
            assert all(isinstance(r, Record) for r in provider.search("anything", limit=3))
        if caps.browse:
            records = provider.browse(limit=3)
            assert isinstance(records, list) and len(records) <= 3
        if caps.graph:
            graph = provider.graph(limit=10)
            assert isinstance(graph.get("nodes"), list) and isinstance(graph.get("edges"), list)

    def test_service_check_needs_no_space_settings(self, make_provider):
        """#22: "Test connection" on the provider page has no space; a blank space field must not fail it."""
        provider = make_provider()
        blank = make_provider(**{f.key: "" for f in type(provider).space_fields})
        assert blank.check()["healthy"] is True

    # -- credentials and faults --------------------------------------------------------------

    def test_bad_credentials_are_permanent_and_never_echo_the_key(self, bad_credentials_provider, make_provider):
        if bad_credentials_provider is None:
            pytest.skip("this kind has no credentials")
        for call in (bad_credentials_provider.status, bad_credentials_provider.check):
            with pytest.raises(ProviderError) as caught:
                call()
            assert caught.value.permanent
        secrets = [str(bad_credentials_provider.config.get(k)) for k in bad_credentials_provider.secret_keys()]
        secrets += [str(make_provider().config.get(k)) for k in bad_credentials_provider.secret_keys()]
        for secret in filter(lambda s: s not in ("", "None"), secrets):
            assert secret not in str(caught.value) and secret not in caught.value.uri

    @pytest.mark.parametrize("fault", ["malformed", "wrongtypes", "missingfields"])
    def test_malformed_upstream_data_is_a_provider_error(self, make_provider, fake, fault):
        if fake is None:
            pytest.skip("no network I/O")
        if fault != "malformed" and fault not in getattr(fake, "extra_faults", ()):
            pytest.skip(f"the fake does not offer {fault}")
        provider = make_provider(_timeout=0.5)
        fake.set_fault(fault)
        for method in READ_METHODS:
            if method != "status" and not getattr(provider.capabilities, method):
                continue
            with pytest.raises(ProviderError):
                call_read(provider, method)

    def test_slow_upstream_times_out_quickly(self, make_provider, fake):
        if fake is None:
            pytest.skip("no network I/O")
        provider = make_provider(_timeout=0.5)
        fake.set_fault("slow")  # the fake answers after 3 s: a timeout says the adapter gave up at its 0.5 s
        with pytest.raises(ProviderError) as caught:
            provider.status()
        assert caught.value.timeout

    def test_server_error_is_not_permanent(self, make_provider, fake):
        if fake is None:
            pytest.skip("no network I/O")
        provider = make_provider(_timeout=0.5)
        fake.set_fault("error500")
        for method in READ_METHODS:
            if method == "status" or getattr(provider.capabilities, method):
                with pytest.raises(ProviderError) as caught:
                    call_read(provider, method)
                assert not caught.value.permanent

    def test_oversized_response_is_refused(self, make_provider, fake):
        if fake is None:
            pytest.skip("no network I/O")
        provider = make_provider(_timeout=2, _max_bytes=64 * 1024)
        fake.set_fault("huge")
        with pytest.raises(ProviderError) as caught:
            provider.status()
        assert "cap" in str(caught.value)

    def test_dropped_connection_is_a_provider_error(self, make_provider, fake):
        if fake is None:
            pytest.skip("no network I/O")
        provider = make_provider(_timeout=0.5)
        fake.set_fault("disconnect")
        with pytest.raises(ProviderError):
            provider.status()

    @pytest.mark.parametrize("fault", ["slow", "error500", "disconnect", "redirect"])
    def test_a_write_that_may_have_landed_is_never_committed(self, make_provider, fake, fault):
        """#32: a redirect (302, then the target's 200 with no id) is no commit either: only the id the vendor's API
        documents proves a write."""
        if fake is None:
            pytest.skip("no network I/O")
        provider = make_provider(_timeout=0.5)
        if not provider.capabilities.remember:
            pytest.skip("remember is not claimed")
        provider.status()  # lets adapters do their get-or-create setup before the fault
        fake.set_fault(fault)
        try:
            receipt = provider.remember(unique_text("faulty"))
        except ProviderError as exc:
            assert not exc.permanent
            return
        assert receipt.state == "unknown" and receipt.error and receipt.uri

    # -- data behaviour ----------------------------------------------------------------------

    def _remember(self, provider: Provider, text: str) -> Receipt:
        receipt = provider.remember(text, title="Teapot", category="fact", tags=["contract"])
        assert isinstance(receipt, Receipt) and receipt.state in RECEIPT_STATES
        assert receipt.state != "failed", receipt.error
        if provider.capabilities.write_mode == "async":
            assert receipt.state != "committed", "an async write cannot be committed on return"
        if provider.capabilities.write_mode == "exact":
            assert receipt.state == "committed" and receipt.provider_id
        return receipt

    def _needs_write_and_read(self, provider: Provider) -> None:
        caps = provider.capabilities
        if not caps.remember or not (caps.search or caps.browse):
            pytest.skip("needs remember and a read surface")

    def test_write_search_browse_forget_round_trip(self, make_provider):
        provider = make_provider()
        self._needs_write_and_read(provider)
        text = unique_text("roundtrip")
        receipt = self._remember(provider, text)
        record = eventually(lambda: find(provider, text))
        assert record is not None, "the write never became visible"
        assert record.id and text in record.text
        if provider.capabilities.write_mode == "exact":
            assert record.id == receipt.provider_id
        if provider.capabilities.search and provider.score_semantics != "none":
            scored = [r for r in provider.search(text, limit=5) if text in r.text]
            assert all(r.score is None or isinstance(r.score, float) for r in scored)
        if provider.capabilities.browse:
            assert any(text in r.text for r in provider.browse(limit=200))
        if not provider.capabilities.forget:
            return
        for seen in [r for r in (provider.browse(limit=200) if provider.capabilities.browse else [record])
                     if text in r.text]:
            provider.forget(seen.id)
        assert eventually(lambda: find(provider, text) is None), "forget did not remove the memory"

    def test_results_show_the_engines_text_not_the_hub_title(self, make_provider):
        """#22: a hit's summary is what the engine stored or extracted; the title the hub sent is only a fallback."""
        provider = make_provider()
        self._needs_write_and_read(provider)
        text = unique_text("summary")
        self._remember(provider, text)
        record = eventually(lambda: find(provider, text))
        assert record is not None and text in record.summary and record.summary != "Teapot"

    def test_every_id_handed_out_resolves_or_get_is_not_claimed(self, make_provider):
        """#22: a search hit's id and a write receipt's id both read back with get(), unless `get` is unclaimed."""
        provider = make_provider()
        self._needs_write_and_read(provider)
        text = unique_text("resolvable")
        receipt = self._remember(provider, text)
        record = eventually(lambda: find(provider, text))
        if not provider.capabilities.get:
            with pytest.raises(ProviderError):
                provider.get(record.id)
            return
        assert text in provider.get(record.id).text
        ids = eventually(lambda: provider.resolve_write(
            provider.verify(receipt) if receipt.state == "pending_verification" else receipt))
        assert ids, f"the write {receipt.provider_id or receipt.uri!r} never resolved to a record id"
        assert any(text in provider.get(i).text for i in ids)

    def test_entities_are_listed_with_their_memories_where_claimed(self, make_provider):
        provider = make_provider()
        if not provider.capabilities.entities:
            pytest.skip("entities are not claimed")
        for entity in provider.entities(limit=5):
            assert entity["id"] and entity["name"] and isinstance(entity["mentions"], int)
            assert all(isinstance(r, Record) for r in provider.entity_records(entity["id"], limit=5))

    def test_records_never_carry_the_key(self, make_provider):
        provider = make_provider()
        self._needs_write_and_read(provider)
        text = unique_text("secretless")
        self._remember(provider, text)
        record = eventually(lambda: find(provider, text))
        for key in provider.secret_keys():
            secret = provider.config.get(key)
            if secret:
                assert str(secret) not in repr(record)

    def test_two_spaces_on_one_service_are_isolated(self, make_provider):
        if self.second_space is None:
            pytest.skip("the test class names no second space")
        first, second = make_provider(), make_provider(**self.second_space)
        self._needs_write_and_read(first)
        text = unique_text("isolated")
        self._remember(first, text)
        assert eventually(lambda: find(first, text)) is not None
        assert find(second, text) is None
        if second.capabilities.browse:
            assert not any(text in r.text for r in second.browse(limit=200))

    def test_a_fresh_instance_sees_earlier_writes(self, make_provider):
        provider = make_provider()
        self._needs_write_and_read(provider)
        text = unique_text("reload")
        self._remember(provider, text)
        eventually(lambda: find(provider, text))
        provider.close()
        assert eventually(lambda: find(make_provider(), text)) is not None

    def test_writes_survive_a_server_restart(self, make_provider, fake):
        if fake is None:
            pytest.skip("no server to restart")
        provider = make_provider()
        self._needs_write_and_read(provider)
        text = unique_text("restart")
        self._remember(provider, text)
        eventually(lambda: find(provider, text))
        fake.restart()
        assert eventually(lambda: find(make_provider(), text)) is not None
