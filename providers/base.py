"""The provider contract: one base class, one error type, plain data classes.

An adapter declares what it can do (capabilities) and which settings it needs
(service fields, shared by every space of that provider, and space fields). The hub
only calls, shows or offers what the declaration claims.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, ClassVar

WRITE_MODES = ("exact", "verified", "async")
DELETION_MODES = ("soft", "hard", "controlled-hard", "invalidate", "provider-forget", "none")
RECEIPT_STATES = ("committed", "accepted", "pending_verification", "unknown", "failed")


class ProviderError(Exception):
    """Anything that went wrong talking to a provider.

    `permanent` marks errors that will not go away by retrying (bad credentials, a
    missing bank); the hub disables the service until someone fixes its config.
    """

    def __init__(self, message: str, permanent: bool = False, timeout: bool = False, uri: str = ""):
        super().__init__(message)
        self.message = message
        self.permanent = permanent
        self.timeout = timeout
        self.uri = uri


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
    write_mode: str = "exact"
    deletion_mode: str = "none"

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


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


@dataclass
class Record:
    """One memory as a provider returns it."""

    id: str
    text: str
    title: str = ""
    category: str = "general"
    at: str = ""
    tags: list[str] = field(default_factory=list)
    score: float | None = None
    origin: str = "local"
    extra: dict[str, Any] = field(default_factory=dict)


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
    service_fields: ClassVar[tuple[Field, ...]] = ()
    space_fields: ClassVar[tuple[Field, ...]] = ()
    description: ClassVar[str] = ""

    def __init__(self, config: dict[str, Any] | None = None, space: Any = None):
        self.config = dict(config or {})
        self.space = space

    @classmethod
    def secret_keys(cls) -> set[str]:
        return {f.key for f in cls.service_fields + cls.space_fields if f.secret}

    @classmethod
    def is_configured(cls, service_config: dict[str, Any]) -> bool:
        return all(service_config.get(f.key) not in (None, "") for f in cls.service_fields if f.required)

    def _unsupported(self, what: str) -> ProviderError:
        return ProviderError(f"{self.label} does not support {what}", permanent=True)

    def status(self) -> dict[str, Any]:
        raise self._unsupported("status")

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

    def discover(self) -> list[dict[str, Any]]:
        raise self._unsupported("discover")

    def close(self) -> None:
        """Release connections; called when the hub is done with this instance."""
