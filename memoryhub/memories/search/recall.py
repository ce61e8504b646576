"""Reading memory back: search across spaces (native and third-party) and the budgeted context block."""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field
from typing import Any

from memoryhub.memories.growth import facts, persona, topics
from memoryhub.memories.search import policies, ranking
from memoryhub.memories.write import gateway
from memoryhub.memories.search import fulltext as fts
from memoryhub.memories.models import Entry, Persona
from memoryhub.memories.text import clip, token_set
from memoryhub.spaces import space_settings
from memoryhub.spaces.models import MemorySpace
from memoryhub.spaces.services import provider_for, record_space_error
from providers.base import ProviderError
from providers.registry import get_provider_class

log = logging.getLogger(__name__)


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

    def as_dict(self) -> dict[str, Any]:
        return {"id": self.id, "space": self.space, "summary": self.summary, "category": self.category,
                "at": self.at, "score": self.score, "origin": self.origin, "provider": self.provider,
                "tier": self.tier}


def entry_card(entry: Entry, score: float | None, space: MemorySpace) -> Card:
    return Card(str(entry.pk), space.slug, space.provider, entry.summary or clip(entry.body, 160), entry.category,
                entry.at_iso, score, entry.origin, entry)


def native_relevance(query_tokens: set[str], entry: Entry, rank: float, top: float,
                     similarity: float | None = None) -> float:
    """A 0–1 relevance: half the rank against the best hit, half the share of query words the entry has,
    or, when embeddings are on and that is more, how close it comes to the query in meaning."""
    if not query_tokens:
        return round(min(1.0, rank / top), 4)
    words = token_set(" ".join([entry.title, entry.summary, entry.body[:4000], " ".join(entry.tags or [])]))
    coverage = max(len(query_tokens & words) / len(query_tokens), fts.meaning(similarity))
    return round(min(1.0, 0.5 * rank / top + 0.5 * coverage), 4)


def search(spaces: list[MemorySpace], query: str, *, limit: int = 8, origin: str | None = None,
           recallable_only: bool = False, extend: bool = True, errors: list[str] | None = None,
           policy: dict | None = None, strict: bool = False) -> list[Card]:
    """Cards from every space, best first, each with a relevance tier.

    When the spaces span several providers (whose scores mean different things), the recall
    policy (space_settings: strict-v1 by default) fetches extra candidates and filters by tier.
    Provider failures are collected in `errors`, never raised, unless `strict` and every space
    failed: an explicit search then deserves a clear error (502/504) rather than silence.
    """
    failures: list[ProviderError] = []
    config = policy or space_settings.defaults()
    mixed = len({s.provider for s in spaces}) > 1
    wanted = policies.candidate_limit(limit, config["recallMultiplier"]) if mixed else limit
    cards: list[Card] = []
    native = [s for s in spaces if s.is_native]
    if native:
        by_id = {s.pk: s for s in native}
        hits = ranking.rank(list(by_id), query, limit=wanted, origin=origin, recallable_only=recallable_only,
                            extend=extend)
        entries = Entry.objects.in_bulk([h.entry_id for h in hits])
        top = hits[0].rank if hits else 1.0
        query_tokens = token_set(query)
        for h in hits:
            entry = entries.get(h.entry_id)
            if entry:
                cards.append(entry_card(entry, native_relevance(query_tokens, entry, h.rank, top, h.similarity),
                                        by_id[entry.space_id]))
    for space in spaces:
        if not space.is_native:
            cards += remote_cards(space, query, wanted, origin, errors, failures)
    if strict and failures and len(failures) == len(spaces):
        raise failures[0]
    for card in cards:
        card.tier = policies.tier(card.score, get_provider_class(card.provider).score_semantics, config)
    if mixed:
        return policies.apply(cards, limit, config)
    cards.sort(key=lambda c: c.score if c.score is not None else 0.0, reverse=True)
    return cards[:limit]


def remote_cards(space: MemorySpace, query: str, limit: int, origin: str | None,
                 errors: list[str] | None, failures: list[ProviderError] | None = None) -> list[Card]:
    try:
        records = provider_for(space).search(query, limit=limit)
    except ProviderError as exc:
        log.warning("search in %s failed: %s", space.slug, exc.message)
        record_space_error(space, exc)
        if errors is not None:
            errors.append(f"{space.slug}: {exc.message}")
        if failures is not None:
            failures.append(exc)
        return []
    return [Card(f"{space.slug}:{r.id}", space.slug, space.provider, clip(r.summary, 240),
                 r.category, r.at, r.score, r.origin)
            for r in records if not origin or r.origin == origin]


REFERENCE = re.compile(
    r"上次|上回|那个|那件事|之前(?:说|提|聊)|刚才|前面(?:说|提)|"
    r"(?i:\blast time\b|\bthat (?:thing|one|issue|problem|bug|idea)\b|\bas (?:i|we) (?:said|discussed)\b|"
    r"\bwe (?:talked|spoke) about\b|\bearlier\b)"
)
REFERENCE_TURNS = 3


def expand_references(query: str, spaces: list[MemorySpace], session_id: str, origin: str | None) -> str:
    """"That thing last time" names nothing searchable: add what this session (else the space) said last."""
    if not REFERENCE.search(query):
        return query
    recent = Entry.objects.recallable().filter(space__in=[s for s in spaces if s.is_native])
    if origin:
        recent = recent.filter(origin=origin)
    in_session = recent.filter(session_id=session_id) if session_id else recent.none()
    chosen = in_session if in_session.exists() else recent
    summaries = chosen.order_by("-at", "-id").values_list("summary", flat=True)[:REFERENCE_TURNS]
    return " ".join([query, *summaries])


def note_recall(cards: list[Card], query: str, actor: str) -> None:
    """Agent recall bumps access counts and is logged per space."""
    per_space: dict[MemorySpace, list[Entry]] = {}
    for card in cards:
        if card.entry is not None:
            per_space.setdefault(card.entry.space, []).append(card.entry)
    gateway.record_recall(per_space, query, actor)


# --- the context block ---------------------------------------------------------------
@dataclass
class Context:
    text: str
    items: list[dict[str, Any]]

    @property
    def chars(self) -> int:
        return len(self.text)


class Budget:
    """Adds sections while they fit in max_chars; never exceeds it."""

    def __init__(self, max_chars: int):
        self.max_chars = max_chars
        self.parts: list[str] = []
        self.items: list[dict[str, Any]] = []

    @property
    def used(self) -> int:
        return len("\n".join(self.parts))

    def add(self, line: str, item: dict[str, Any] | None = None) -> bool:
        extra = len(line) + (1 if self.parts else 0)
        if self.used + extra > self.max_chars:
            return False
        self.parts.append(line)
        if item:
            self.items.append(item)
        return True

    def result(self) -> Context:
        return Context("\n".join(self.parts), self.items)


def who_the_user_is(spaces: list[MemorySpace], origin: str | None, budget: "Budget", max_chars: int) -> None:
    """Profile and frame (facts + kept events) of each native space, each line once."""
    lines: list[str] = []
    items: list[dict[str, Any]] = []
    for space in spaces:
        if not space.is_native:
            continue
        profile = Persona.objects.filter(space=space).values_list("profile", flat=True).first() or ""
        frame = persona.project_frame(space, origin)
        for line in (profile.strip().splitlines() + frame.splitlines()):
            if line.strip() and line not in lines:
                lines.append(line)
        if profile.strip() or frame:
            items.append({"id": f"persona:{space.slug}", "kind": "persona", "score": None})
        items += [{"id": f"fact:{pk}", "kind": "fact", "score": None}
                  for pk in facts.current_facts(space, origin).values_list("pk", flat=True)[:50]]
    if lines:
        text = "## Who the user is\n" + clip_lines(lines, max(0, max_chars // 2))
        if budget.add(text):
            budget.items += items


def clip_lines(lines: list[str], limit: int) -> str:
    """Whole lines while they fit."""
    out: list[str] = []
    for line in lines:
        if len("\n".join(out + [line])) > limit:
            break
        out.append(line)
    return "\n".join(out)


def build_context(spaces: list[MemorySpace], query: str, *, max_chars: int, origin: str | None,
                  max_cards: int = 8, session_id: str = "") -> tuple[Context, list[Card]]:
    """Who the user is (always), then topic and entry cards by relevance, within max_chars; no full text."""
    budget = Budget(max_chars)
    who_the_user_is(spaces, origin, budget, max_chars)
    query = expand_references(query, spaces, session_id, origin)
    cards = search(spaces, query, limit=max_cards, origin=origin, recallable_only=True) if query.strip() else []
    if cards and budget.add("## Possibly relevant (expand with memory_recall id)"):
        shown_topics: set[int] = set()
        for card in cards:
            entry = card.entry
            if entry is not None and entry.topic_id and entry.topic.turn_count > 1:
                if entry.topic_id in shown_topics:
                    continue
                shown_topics.add(entry.topic_id)
                budget.add("- " + topics.card(entry.topic), {"id": f"t{entry.topic_id}", "kind": "topic",
                                                              "score": card.score})
                continue
            line = f"- {card.at[:16].replace('T', ' ')} · {card.category} — {clip(card.summary, 200)} | id={card.id}"
            budget.add(line, {"id": card.id, "kind": "entry", "score": card.score})
    return budget.result(), cards


def inject(spaces: list[MemorySpace], query: str, *, origin: str | None, session_id: str = "",
           max_chars: int | None = None, home: MemorySpace | None = None) -> tuple[Context, list[Card]]:
    """Exactly what /api/v1/context injects (the dashboard's recall preview calls this too).

    Spaces whose `inject` setting is off are left out; the budget and card count default to the
    home space's settings (the space writes go to), else the global defaults.
    """
    config = space_settings.effective(home)
    budget = config["maxInjectChars"] if max_chars is None else max_chars
    injected = [s for s in spaces if space_settings.effective(s)["inject"]]
    return build_context(injected, query, max_chars=budget, origin=origin, max_cards=config["maxRecall"],
                         session_id=session_id)
