"""What a write is given (Draft) and what it answers (Written): the gateway's in and out."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from datetime import datetime

from memoryhub.memories.models import Category, Entry, Kind, Source
from memoryhub.spaces.models import MemorySpace
from providers.base import Receipt


@dataclass
class Draft:
    """One entry to write, as its caller has it; `write` redacts it and works out the rest.

    A turn gives `user` and `assistant` (its body, title, summary and category follow from them)
    or, as one line of a transcript, its `body`; every other kind gives `title` and `body`. A
    repeated `idempotency_key` returns the entry it first made (importers derive theirs from the
    source record, so a re-import adds nothing); in a vault only to its `writer` (the token's id) in
    the same session.
    """

    kind: str = Kind.NOTE
    user: str = ""
    assistant: str = ""
    title: str = ""
    body: str = ""
    summary: str = ""
    category: str = Category.GENERAL
    tags: list[str] = field(default_factory=list)
    related: list[str] = field(default_factory=list)
    entities: list[str] = field(default_factory=list)
    at: datetime | None = None
    session_id: str = ""
    source: str = Source.AGENT
    origin: str = "local"
    channel: str = ""
    chat: dict = field(default_factory=dict)
    importance: int = 3
    idempotency_key: str = ""
    writer: str = ""
    provenance: dict = field(default_factory=dict)  # an imported or copied memory's source system, id, metadata


@dataclass
class Written:
    """What one write produced, in the shape the API answers with."""

    space: MemorySpace
    entry: Entry | None = None
    receipt: Receipt | None = None
    created: bool = True
    redactions: int = 0
    facts: dict[str, list] = field(default_factory=lambda: {"asserted": [], "invalidated": []})
    remote_write: int | None = None  # the RemoteWrite row that keeps a third-party write

    @property
    def id(self) -> str:
        """The id the write answers with. A third-party vault answers its own record of the write (`<slug>:w<n>`),
        never the engine's id: an engine that dedups or counts (Holographic's 1, 2, 3 …) would tell a copy of what
        the vault holds, or how much it holds. So does a write the engine gave no id (its outcome unknown)."""
        if self.entry is not None:
            return str(self.entry.pk)
        if self.receipt is None:
            return ""
        anonymous = not (self.receipt.provider_id or self.receipt.uri)
        if (self.space.is_vault or anonymous) and self.remote_write is not None:
            return f"{self.space.slug}:w{self.remote_write}"
        return f"{self.space.slug}:{self.receipt.provider_id or self.receipt.uri}"


def stored_key(space: MemorySpace, draft: Draft) -> str:
    """The idempotency key as stored, native entry or third-party write alike. A vault's is its writer's own (token
    and session): a key another agent or session sends, guessed or reused, writes anew instead of answering with
    the one it made."""
    if not draft.idempotency_key or not space.is_vault:
        return draft.idempotency_key
    scoped = "\x00".join((draft.writer, draft.session_id, draft.idempotency_key))
    return "vault-" + hashlib.sha256(scoped.encode("utf-8", "surrogatepass")).hexdigest()[:40]


def content_hash(title: str, body: str) -> str:
    """What makes two entries "the same text": a byte-identical live entry is not written twice."""
    return hashlib.sha256(f"{title}\x00{body}".encode()).hexdigest()

