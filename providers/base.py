"""The provider contract: one base class, one error type, plain data classes.

An adapter declares what it can do (capabilities) and which settings it needs
(service fields, shared by every space of that provider, and space fields). The hub
only calls, shows or offers what the declaration claims.
"""

from __future__ import annotations

import os
from dataclasses import asdict, dataclass, field
from typing import Any, ClassVar

from memoryhub.core.http import UpstreamError

WRITE_MODES = ("exact", "verified", "async")
DELETION_MODES = ("soft", "hard", "controlled-hard", "invalidate", "provider-forget", "none")
RECEIPT_STATES = ("committed", "accepted", "pending_verification", "unknown", "failed")


# The one error type of the provider layer: the HTTP client raises it, adapters raise it, the hub catches it.
# Fields: message, uri, permanent, timeout, status, retryable, unknown_outcome (see UpstreamError).
ProviderError = UpstreamError


class SpaceError(ProviderError):
    """An error of one space alone, not of the service: a setting of the space, or an id that is not one of its
    records. Permanent for that space or record, never a reason to switch the whole service off."""

    def __init__(self, message: str, **kw: Any):
        super().__init__(message, permanent=True, **kw)


class SpaceConfigError(SpaceError):
    """A space's own setting is missing or wrong (Mem0's userId, Hindsight's bank, a user the key cannot reach);
    `key` names the setting, so creating or editing the space can refuse it beside its field."""

    def __init__(self, message: str, key: str = "", **kw: Any):
        super().__init__(message, **kw)
        self.key = key


class ServiceDisabled(ProviderError):
    """The hub switched this provider's service off after it refused the saved settings (a bad key): nothing was
    asked. Never recorded as a new error of the service, so its message does not grow by quoting itself."""

    def __init__(self, message: str, **kw: Any):
        super().__init__(message, permanent=True, **kw)


@dataclass(frozen=True)
class Capabilities:
    search: bool = False
    browse: bool = False
    graph: bool = False
    entities: bool = False
    related: bool = False
    remember: bool = False
    link: bool = False
    forget: bool = False
    get: bool = False  # every id this provider hands out (search hits, write receipts) can be read back
    write_mode: str = "exact"
    deletion_mode: str = "none"

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


TEXT_KEPT = ("verbatim", "extracted")


@dataclass(frozen=True)
class Keeps:
    """What a memory written through `remember` still has when it is read back (browse, get): what a copy into this
    provider keeps, so the copy preview can name the rest. Links are `capabilities.link`, asynchronous extraction is
    `capabilities.write_mode`; sessions, topics and facts are the hub's own and stay with native spaces."""

    text: str = "verbatim"  # verbatim | extracted (the engine rewrites, splits or merges what it is sent)
    title: bool = False
    category: bool = False
    tags: bool = False
    dates: bool = False  # the memory's own date, not the time it was written

    def __post_init__(self) -> None:
        if self.text not in TEXT_KEPT:
            raise ValueError(f"Keeps.text must be one of {TEXT_KEPT}")

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def gettext_noop(text: str) -> str:
    """Marks a declared label, help text or description for translation: makemessages collects it and the dashboard
    shows it in the reader's language. Adapters stay free of Django, so the text itself is returned unchanged."""
    return text


@dataclass(frozen=True)
class Field:
    """One configuration field; drives the dashboard forms and validation."""

    key: str
    label: str
    input: str = "text"  # text | url | secret | number | boolean | select | path
    required: bool = False
    secret: bool = False
    default: Any = None
    help: str = ""
    options: tuple[str, ...] = ()
    minimum: float | None = None  # number fields: the range a value must fall in
    maximum: float | None = None

    def problem(self, value: Any) -> str:
        """Why `value` cannot be this field's value, as the end of a sentence, or "" (blank is for `required`)."""
        if value is None or value == "":
            return ""
        if self.input == "select" and str(value) not in self.options:
            return f"must be one of {', '.join(self.options)}"
        if self.input == "boolean" and not isinstance(value, bool) and str(value).lower() not in ("true", "false"):
            return "must be true or false"
        if self.input == "number":
            try:
                number = float(value)
            except (TypeError, ValueError):
                return "must be a number"
            if isinstance(value, bool) or number != number:
                return "must be a number"
            if (self.minimum is not None and number < self.minimum) or (self.maximum is not None and number > self.maximum):
                return f"must be between {self.minimum:g} and {self.maximum:g}, not {number:g}"
        return ""


@dataclass
class Record:
    """One memory as a provider returns it.

    `text` is what the engine stored or extracted; `title` is only what the hub sent along (metadata), so
    result cards show `summary`: an adapter's `extra["summary"]` when it has a better line, else the engine's text.
    """

    id: str
    text: str
    title: str = ""
    category: str = "general"
    at: str = ""
    tags: list[str] = field(default_factory=list)
    score: float | None = None
    origin: str = "local"
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def summary(self) -> str:
        """The line a result card shows: an adapter's own summary, else the engine's text, the hub's title last."""
        return str(self.extra.get("summary") or "").strip() or self.text.strip() or self.title


@dataclass
class Receipt:
    """What a write did. Only a verified, full commit may say `committed`."""

    state: str
    provider_id: str = ""
    uri: str = ""
    error: str = ""
    detail: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.state not in RECEIPT_STATES:
            raise ValueError(f"unknown receipt state {self.state!r}")


class Provider:
    """Base class of every adapter.

    `config` is the merged service config (with secrets) and space config. Methods
    an adapter's capabilities do not claim raise ProviderError; the hub never calls them.
    """

    kind: ClassVar[str] = ""
    label: ClassVar[str] = ""
    locality: ClassVar[str] = "remote"  # local | remote
    workspace_binding: ClassVar[str] = "provider-global"  # automatic | optional-override | provider-global
    score_semantics: ClassVar[str] = "none"  # normalized | native | none
    capabilities: ClassVar[Capabilities] = Capabilities()
    keeps: ClassVar[Keeps] = Keeps()
    service_fields: ClassVar[tuple[Field, ...]] = ()
    space_fields: ClassVar[tuple[Field, ...]] = ()
    description: ClassVar[str] = ""
    discovers: ClassVar[bool] = False  # discover() lists what the service key can reach (users, roots)
    verifies_writes: ClassVar[bool] = False  # verify() turns pending_verification into a final state
    has_trust: ClassVar[bool] = False  # feedback() moves a per-memory trust score that filters recall
    write_seconds: ClassVar[float | None] = None  # a write may take this long (None: the hub's write deadline)
    # A local provider keeps one store per space on this machine; the hub picks its directory and hands it over as
    # config["_store_dir"]: the space's `store_dir_field` if it names one, else a folder for the space under the
    # service's `store_root_field` (or the hub's data directory).
    store_root_field: ClassVar[str] = ""
    store_dir_field: ClassVar[str] = ""
    # A remote provider's records are reached by these service and space fields (Mem0's userId, Hindsight's
    # bankId): two spaces with the same values share the engine's records.
    identity_fields: ClassVar[tuple[str, ...]] = ()

    def __init__(self, config: dict[str, Any] | None = None, space: Any = None):
        self.config = dict(config or {})
        self.space = space

    @classmethod
    def secret_keys(cls) -> set[str]:
        return {f.key for f in cls.service_fields + cls.space_fields if f.secret}

    @classmethod
    def store_root(cls, value: str) -> str:
        """The folder a `store_root_field` value names."""
        return os.path.abspath(os.path.expanduser(value))

    @classmethod
    def is_configured(cls, service_config: dict[str, Any]) -> bool:
        return all(service_config.get(f.key) not in (None, "") for f in cls.service_fields if f.required)

    def _unsupported(self, what: str) -> ProviderError:
        return SpaceError(f"{self.label} does not support {what}")

    def status(self) -> dict[str, Any]:
        raise self._unsupported("status")

    def check(self) -> dict[str, Any]:
        """"Test connection" for the service alone: reach the vendor's health or auth route with the service
        settings only, never needing a space's fields. Adapters whose status needs no space may keep this."""
        return self.status()

    @classmethod
    def space_problems(cls, config: dict[str, Any]) -> dict[str, str]:
        """What is wrong with a space's settings without asking the vendor: each value against its field's
        declaration (select options, number ranges), then the kind's own rules (space_rules). {key: why}."""
        fields = {f.key: f for f in cls.space_fields}
        problems = {key: why for key, field in fields.items() if (why := field.problem(config.get(key)))}
        for key, why in cls.space_rules(config).items():
            problems.setdefault(key, why)
        return problems

    @classmethod
    def space_rules(cls, config: dict[str, Any]) -> dict[str, str]:
        """A kind's own offline rules for its space fields (identifier formats…), {key: why}; none by default."""
        return {}

    def validate_space(self) -> None:
        """Ask the vendor whether this space's settings work with the service's (OpenViking: is the space's user
        reachable with the key?); raise SpaceConfigError naming the key when not. Nothing to ask by default."""

    def validate_config(self) -> dict[str, Any] | None:
        """Refuse a service config before it is saved (raise a permanent ProviderError); None when there is
        nothing to check beyond the form. OpenViking proves its root or Admin discovery here."""
        return None

    def verify(self, receipt: Receipt) -> Receipt:
        """Re-check a `pending_verification` write; only adapters that return that state override this."""
        raise self._unsupported("verification")

    def resolve_write(self, receipt: Receipt) -> list[str]:
        """The record ids a write became: the receipt's own id for exact writes; async adapters ask the engine
        (an empty list while it is still processing). The hub keeps the answer beside the write."""
        return [receipt.provider_id] if receipt.provider_id and self.capabilities.write_mode != "async" else []

    def search(self, query: str, limit: int = 10, **filters: Any) -> list[Record]:
        raise self._unsupported("search")

    def browse(self, limit: int = 50, offset: int = 0, **filters: Any) -> list[Record]:
        raise self._unsupported("browse")

    def get(self, record_id: str) -> Record:
        raise self._unsupported("get")

    def remember(self, text: str, *, title: str = "", category: str = "general",
                 tags: list[str] | None = None, at: str = "", **extra: Any) -> Receipt:
        raise self._unsupported("remember")

    def forget(self, record_id: str) -> None:
        raise self._unsupported("forget")

    def graph(self, limit: int = 200) -> dict[str, Any]:
        raise self._unsupported("graph")

    def related(self, record_id: str, depth: int = 2) -> list[Record]:
        raise self._unsupported("related")

    def link(self, source_id: str, target_id: str, edge_type: str = "semantic", weight: float = 0.5) -> None:
        raise self._unsupported("link")

    def stats(self) -> dict[str, Any] | None:
        """The engine's own counters for this space (Hindsight's bank stats), or None when it keeps none."""
        return None

    def entities(self, limit: int = 100) -> list[dict[str, Any]]:
        """[{"id", "name", "mentions"}], most mentioned first."""
        raise self._unsupported("entities")

    def entity_records(self, entity_id: str, limit: int = 50) -> list[Record]:
        """The memories that mention one entity of entities()."""
        raise self._unsupported("entities")

    def feedback(self, record_id: str, helpful: bool) -> Record:
        """A person's or an agent's verdict on a memory (helpful / wrong); adapters with trust scores move them."""
        raise self._unsupported("feedback")

    def discover(self) -> list[dict[str, Any]]:
        raise self._unsupported("discover")

    def secret_values(self) -> list[str]:
        """The configured values of the kind's secret fields: an error must never quote them, even cut."""
        fields = (*self.service_fields, *self.space_fields)
        return [str(self.config[f.key]) for f in fields if f.secret and self.config.get(f.key)]

    def close(self) -> None:
        """Release connections; called when the hub is done with this instance."""
