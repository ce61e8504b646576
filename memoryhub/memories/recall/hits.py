"""A search hit as every reader gets it (search results, the context block, the dashboard): a Card."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from memoryhub.memories.models import Entry
from memoryhub.memories.text.prose import clip
from memoryhub.spaces.models import MemorySpace


@dataclass
class Card:
    """One search result: a summary and an id to expand, never the full text."""

    id: str
    space: str
    provider: str
    summary: str
    category: str
    at: str
    score: float | None
    origin: str
    entry: Entry | None = field(default=None, repr=False)
    tier: str = "unknown"
    via: str = "keyword"  # keyword | session | entity: how search found it (ranking.py)
    order: float | None = None  # where search lists it among native hits, when that is not by score (cards.py)

    def as_dict(self) -> dict[str, Any]:
        return {"id": self.id, "space": self.space, "summary": self.summary, "category": self.category,
                "at": self.at, "score": self.score, "origin": self.origin, "provider": self.provider,
                "tier": self.tier}


def entry_card(entry: Entry, score: float | None, space: MemorySpace) -> Card:
    return Card(str(entry.pk), space.slug, space.provider, entry.summary or clip(entry.body, 160), entry.category,
                entry.at_iso, score, entry.origin, entry)
