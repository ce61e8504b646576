"""The third-party spaces of one read, asked at once under one deadline for the whole call.

Asked one after another, one hanging provider cost a read its whole timeout per space (with one hanging
space, /context over several spaces took 12.4 s instead of 1.5 s, so a client's 3-second prefetch got
nothing, native memory included). Now every remote space is asked on a thread of its own as the read
starts, the native search runs meanwhile, and what has not answered when the deadline passes
(MEMORYHUB_REMOTE_READ_DEADLINE) is left out and named: `Missing`, which /context and memory_search
answer as `warnings` and the recall preview shows. A read of one space alone has nothing else to give, so
it waits for the provider's own timeout instead.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass

from django.conf import settings

from memoryhub.core import fanout
from memoryhub.core.http import without_endpoints
from memoryhub.memories import remote
from memoryhub.memories.recall.hits import Card
from memoryhub.memories.text.prose import clip
from memoryhub.spaces.models import MemorySpace
from memoryhub.spaces.provider_services import provider_for, record_space_error
from providers.base import Provider, ProviderError, Record

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Missing:
    """A third-party space whose memories a read does not hold: it failed, or had not answered by the deadline.

    `message` is what an agent is told (no internal address); `detail`, the whole error, is for people."""

    space: str
    code: str  # provider_timeout | provider_error, as the API's error codes
    message: str
    detail: str = ""

    def __str__(self) -> str:
        return f"{self.space}: {self.detail or self.message}"

    def as_dict(self) -> dict:
        return {"space": self.space, "code": self.code, "message": self.message}


def read_deadline() -> float:
    return float(settings.MEMORYHUB["REMOTE_READ_DEADLINE"])


def failed(space: MemorySpace, exc: ProviderError) -> Missing:
    return Missing(space.slug, "provider_timeout" if exc.timeout else "provider_error",
                   without_endpoints(exc.message), exc.message)


class Asked:
    """The searches of a read's remote spaces, under way; `cards()` collects them (in the calling thread)."""

    def __init__(self, spaces: list[MemorySpace], query: str, limit: int, *, deadline: float | None):
        self.deadline = deadline
        self.early: list[tuple[MemorySpace, ProviderError]] = []  # could not even be asked (a switched-off service)
        self.asked: list[tuple[MemorySpace, Provider]] = []
        for space in spaces:
            try:
                self.asked.append((space, provider_for(space)))  # reads the database: here, not on the threads
            except ProviderError as exc:
                self.early.append((space, exc))
        self.pending = fanout.start([lambda p=p: p.search(query, limit=limit) for _, p in self.asked],
                                    deadline=deadline) if self.asked else None

    def cards(self, origin: str | None, skip_tags: Iterable[str], missing: list | None,
              failures: list[ProviderError] | None) -> list[Card]:
        outcomes = self.pending.collect() if self.pending else []
        cards: list[Card] = []
        problems: list[tuple[MemorySpace, ProviderError]] = list(self.early)
        for (space, provider), outcome in zip(self.asked, outcomes):
            provider.close()
            if outcome.state == fanout.DONE:
                cards += cards_of(space, outcome.value, origin, skip_tags)
            elif isinstance(outcome.error, ProviderError):
                record_space_error(space, outcome.error)
                problems.append((space, outcome.error))
            elif outcome.error is not None:
                log.error("search in %s failed", space.slug, exc_info=outcome.error)
                problems.append((space, ProviderError(f"{provider.label} search failed: "
                                                      f"{type(outcome.error).__name__}")))
            else:  # late, or never started: not the provider's fault, so nothing is recorded against it
                problems.append((space, ProviderError(
                    f"{provider.label} did not answer within this read's {self.deadline:g} s deadline", timeout=True)))
        for space, exc in problems:
            log.warning("search in %s gave nothing: %s", space.slug, exc.message)
            if missing is not None:
                missing.append(failed(space, exc))
            if failures is not None:
                failures.append(exc)
        return cards


def cards_of(space: MemorySpace, records: list[Record], origin: str | None, skip_tags: Iterable[str]) -> list[Card]:
    """A remote space's records as cards, with the origin the hub remembers for each (the engines keep none)."""
    written_by = remote.origins(space, [r.id for r in records])
    return [Card(f"{space.slug}:{r.id}", space.slug, space.provider, clip(r.summary, 240),
                 r.category, r.at, r.score, written_by[str(r.id)])
            for r in records
            if (not origin or written_by[str(r.id)] == origin) and not set(skip_tags) & set(r.tags)]
