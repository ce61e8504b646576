"""The context block /api/v1/context injects: who the user is, then the evidence that bears on the query.

Budget goes by expected usefulness: who the user is first (frame.py: the persona frame whole, or shortened by its
declared priorities and saying what it left out, within half the budget), then the best search hits as cards in
their own words (the query-focused sentences of a long entry, its absolute date, its id), then whatever of the
frame was left out, in the room the cards left. Hits of one topic share one topic line; greetings and other turns
that say nothing, repeats, and hits the recall policy calls low take no budget. The block never exceeds
max_chars. Each line carries a reason (a code and its details) for the recall preview's "why" table; the
dashboard words them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from collections.abc import Collection, Iterable
from typing import Any, Callable

from memoryhub.core import sql
from memoryhub.memories.models import Topic
from memoryhub.memories.search import fulltext as fts
from memoryhub.memories.search.ranking import SESSION_NEIGHBOUR
from memoryhub.memories.recall import beside
from memoryhub.memories.recall.dates import day_for, resolve
from memoryhub.memories.recall.frame import Frame, frame_lines, matched_words
from memoryhub.memories.recall.hits import Card, entry_card
from memoryhub.memories.text.prose import clip, excerpt, low_information, speakers
from memoryhub.memories.text.tokens import tokenize
from memoryhub.spaces.models import MemorySpace

RELEVANT = "## Possibly relevant (expand with memory_recall id)"
CARD_CHARS = 400         # the most one card's words may take at relevance 1 (CARD_FLOOR at relevance 0)
CARD_FLOOR = 160
TITLE_CHARS = 50
SHORTEST_CARD = 80       # a card cut shorter than this to fit says too little: left out instead
WHO_SHARE = 2            # who the user is takes at most 1/WHO_SHARE of the budget before the cards

Reason = dict[str, Any]  # {"code": "hit", "rank": 2, …}: why a line is in the block, or why it is not


@dataclass
class Context:
    """The block, the items it shows (the API's `items`), and for the recall preview why each is there
    and what was left out."""

    text: str
    items: list[dict[str, Any]]
    why: dict[str, Reason] = field(default_factory=dict)
    left_out: list[tuple[str, Reason]] = field(default_factory=list)
    neighbours: list[Card] = field(default_factory=list)  # shown beside a hit, though search did not hand them in

    @property
    def chars(self) -> int:
        return len(self.text)


@dataclass(eq=False)
class Shown:
    """A hit in the block: its card, its rank among the hits, its topic (when that has other turns), its words."""

    card: Card
    rank: int
    topic: Topic | None
    text: str = ""


# --- cards -----------------------------------------------------------------------------------

def evidence(card: Card, query: set[str], limit: int, weight: Callable[[str], float]) -> str:
    """The card's own words, relative dates resolved: the entry's text (query-focused when long), a remote
    record's text."""
    entry = card.entry
    if entry is None:
        return excerpt(card.summary, query, limit, weight)
    text = entry.body
    if entry.kind in ("save", "digest") and entry.title and not entry.body.startswith(entry.title):
        text = f"{entry.title}: {entry.body}"
    return excerpt(resolve(text, entry.at), query, limit, weight)


def card_chars(score: float | None) -> int:
    """The room a card's words may take: more for a likelier hit."""
    return int(CARD_FLOOR + (CARD_CHARS - CARD_FLOOR) * min(1.0, max(0.0, score or 0.0)))


def card_line(run: list[Shown], grouped_day: str | None) -> str:
    """`- 8 May 2023 · decision · <its words> | id=42 in t7`; under a topic line the date only where it differs.

    A run of hits that follow one another in their session is one line, their turns in order (`| id=41, 42`)."""
    shown, card = run[0], run[0].card
    when = day_for(card.entry.at, shown.text) if card.entry is not None else card.at[:10]
    parts = [] if when == grouped_day else [when]
    if card.category not in ("context", "general", ""):
        parts.append(card.category)
    parts.append(said_in_turn(run))
    tail = " | id=" + ", ".join(s.card.id for s in run)
    if grouped_day is None and shown.topic is not None:
        tail += f" in t{shown.topic.pk}"
    return ("  - " if grouped_day is not None else "- ") + " · ".join(parts) + tail


def said_in_turn(run: list[Shown]) -> str:
    """The run's words, one turn after another; a speaker who goes on is not named again, and one named before
    by several words is named by the first alone (when no other speaker shares it)."""
    out: list[str] = []
    named: list[str] = []
    for shown in run:
        text = shown.text
        labels = speakers(shown.card.entry.body if shown.card.entry is not None else text)
        label = labels[0] if labels and text.startswith(labels[0]) else ""
        if label:
            rest = text[len(label) + 1:].lstrip()
            first = label.split()[0]
            if named and named[-1] == label:
                text = rest
            elif label in named and " " in label and sum(n.split()[0] == first for n in set(named)) == 1:
                text = f"{first}{text[len(label)]} {rest}"
        named += labels or [""]
        out.append(text)
    return _join_said(out)


def _join_said(pieces: list[str]) -> str:
    return "".join(p if not i or p[:1] in "，。" else " " + p for i, p in enumerate(pieces))


def runs(card: list[Shown], adjacent: set[tuple[int, int]]) -> list[list[Shown]]:
    """A card's hits (in the order said) split wherever one does not directly follow the other in its session."""
    out: list[list[Shown]] = []
    for shown in card:
        if out and (_pk(out[-1][-1]), _pk(shown)) in adjacent:
            out[-1].append(shown)
        else:
            out.append([shown])
    return out


def _pk(shown: Shown) -> int | None:
    return shown.card.entry.pk if shown.card.entry is not None else None


def adjacent_pairs(cards: list[Card]) -> set[tuple[int, int]]:
    """(earlier, later) pairs of the cards' entries that are neighbouring turns of one session (backbone edges)."""
    ids = [c.entry.pk for c in cards if c.entry is not None and c.entry.kind == "turn"]
    if len(ids) < 2:
        return set()
    marks = sql.placeholders(ids)
    return {(a, b) for a, b in sql.rows(
        f"SELECT source_id, target_id FROM memories_edge WHERE source_id IN ({marks}) AND target_id IN ({marks}) "
        f"AND edge_type = 'temporal' AND {sql.json_text('metadata', 'direction')} = %s", [*ids, *ids, "precedes"])}


def topic_line(topic: Topic) -> str:
    """`- 8 May 2023 · 25 turns · decision — <title> | id=t7` above the hits said in that topic."""
    turns = f"{topic.turn_count} turn{'' if topic.turn_count == 1 else 's'}"
    kind = "" if topic.kind in ("context", "general") else f" · {topic.kind}"
    return (f"- {day_for(topic.started_at, topic.title)} · {turns}{kind} — {clip(topic.title, TITLE_CHARS)} "
            f"| id=t{topic.pk}")


def same_topic(shown: Shown, other: Shown) -> bool:
    return shown.topic is not None and other.topic is not None and shown.topic.pk == other.topic.pk


def _follows(adjacent: set[tuple[int, int]], shown: Shown, other: Shown) -> bool:
    a, b = _pk(shown), _pk(other)
    return (a, b) in adjacent or (b, a) in adjacent


def ordered(chosen: list[Shown], adjacent: set[tuple[int, int]] = frozenset()) -> list[list[Shown]]:
    """The cards as the block shows them, best first: a topic's hits together, and hits that follow one another
    in their session together, in the order they were said."""
    cards: dict[Any, list[Shown]] = {}
    key_of: dict[int, Any] = {}
    for shown in chosen:
        pk = _pk(shown)
        key = ("t", shown.topic.pk) if shown.topic is not None else next(
            (key_of[other] for other in key_of if (other, pk) in adjacent or (pk, other) in adjacent), ("e", id(shown)))
        if pk is not None:
            key_of[pk] = key
        cards.setdefault(key, []).append(shown)
    return [sorted(card, key=lambda s: (s.card.at, s.card.id)) for card in cards.values()]


def hit_reason(card: Card, rank: int, query: set[str]) -> Reason:
    text = card.entry.body if card.entry is not None else card.summary
    return {"code": "hit", "rank": rank, "score": card.score, "via": card.via, "words": matched_words(text, query)}


def token_weights(query: set[str]) -> Callable[[str], float]:
    """How much a matching query word counts when choosing sentences: rarer words more (by entries holding them)."""
    if not query:
        return lambda token: 1.0
    counts = fts.doc_counts(sorted(query))
    return lambda token: 1.0 / (1.0 + math.log1p(counts.get(token, 0)))


# --- packing -------------------------------------------------------------------------------

class Block:
    """The block being packed: lines and cards are tried one at a time and kept only while the text fits."""

    def __init__(self, max_chars: int, frame: Frame):
        self.max_chars = max_chars
        self.frame = frame
        self.chosen: list[Shown] = []
        self.left_out: list[tuple[str, Reason]] = []
        self.adjacent: set[tuple[int, int]] = set()  # neighbouring turns among the hits (adjacent_pairs)
        self._lines: dict[tuple, str] = {}  # rendered card and topic lines, reused while packing

    def text(self) -> str:
        parts = self.frame.render()
        if self.chosen:
            parts.append(RELEVANT)
            for card in ordered(self.chosen, self.adjacent):
                together = runs(card, self.adjacent)
                if len(together) == 1 and (card[0].topic is None or len(card) == 1):
                    parts.append(self._line(together[0], None))
                    continue
                topic = card[0].topic
                if topic is None:
                    parts += [self._line(run, None) for run in together]
                    continue
                parts.append(self._line(topic, "topic"))
                parts += [self._line(run, self._line(topic, "day")) for run in together]
        return "\n".join(parts)

    def _line(self, what: list[Shown] | Topic, under: str | None) -> str:
        key = (tuple((s.card.id, s.text) for s in what), under) if isinstance(what, list) else (what.pk, under)
        if key not in self._lines:
            if under == "topic":
                self._lines[key] = topic_line(what)
            elif under == "day":
                self._lines[key] = day_for(what.started_at, what.title)
            else:
                self._lines[key] = card_line(what, under)
        return self._lines[key]

    def add_card(self, shown: Shown, words: Callable[[int], str]) -> bool:
        """The hit at full length if it fits, else cut to the room left (unless that leaves too little)."""
        self.chosen.append(shown)
        shown.text = words(card_chars(shown.card.score))
        if len(self.text()) <= self.max_chars:
            return True
        shown.text = ""
        room = self.max_chars - len(self.text())
        if room >= SHORTEST_CARD:
            shown.text = words(room)
            if len(self.text()) <= self.max_chars:
                return True
        self.chosen.pop()
        return False

    def add_neighbour(self, shown: Shown, words: Callable[[int], str], max_cards: int) -> bool:
        """A turn beside a hit, whole, if it fits and joins its hit's card (so the card count does not grow)."""
        before = self.cards()
        self.chosen.append(shown)
        shown.text = words(CARD_CHARS)
        if len(self.text()) <= self.max_chars and self.cards() <= max(before, max_cards):
            return True
        self.chosen.pop()
        return False

    def cards(self) -> int:
        return len(ordered(self.chosen, self.adjacent))

    def result(self, query: set[str]) -> Context:
        items: list[dict[str, Any]] = []
        why: dict[str, Reason] = {}
        for line in self.frame.shown():
            for item in line.items:
                if item["id"] not in why:
                    items.append(item)
                    why[item["id"]] = line.why
        for card in ordered(self.chosen, self.adjacent):
            if len(card) > 1 and card[0].topic is not None:
                topic_id = f"t{card[0].topic.pk}"
                items.append({"id": topic_id, "kind": "topic", "score": max(s.card.score or 0.0 for s in card)})
                why[topic_id] = {"code": "topic", "hits": len(card)}
            for shown in card:
                items.append({"id": shown.card.id, "kind": "entry", "score": shown.card.score})
                why[shown.card.id] = hit_reason(shown.card, shown.rank, query)
        left_out = [(line.text, {"code": "who_share"}) for line in self.frame.left_out()] + self.left_out
        return Context(self.text(), items, why, left_out)


def build(spaces: list[MemorySpace], cards: list[Card], query: str, *, max_chars: int, origin: str | None,
          max_cards: int, skip_tags: Iterable[str] = (), known: Collection[str] = frozenset()) -> Context:
    """Pack the block by usefulness within max_chars (see the module docstring); `cards` come best first.
    `origin`, `skip_tags` and `known` are the search's: the turns shown beside its hits pass the same filters, and
    none whose text the reader already has (`known`)."""
    query_tokens = set(tokenize(query))
    block = Block(max_chars, Frame(frame_lines(spaces, origin, query_tokens)))
    block.frame.keep(lambda: len(block.text()) <= max_chars // WHO_SHARE)
    weight = token_weights(query_tokens)
    block.adjacent = adjacent_pairs(cards)
    topics = Topic.objects.only("id", "turn_count", "kind", "title", "started_at").in_bulk(
        {c.entry.topic_id for c in cards if c.entry is not None and c.entry.topic_id})
    seen: set[str] = set()
    for rank, card in enumerate(cards, 1):
        said = card.entry.body if card.entry is not None else card.summary
        body = " ".join(said.split())
        topic = topics.get(card.entry.topic_id) if card.entry is not None and card.entry.topic_id else None
        shown = Shown(card, rank, topic if topic is not None and topic.turn_count > 1 else None)
        opens_card = not any(same_topic(shown, s) or _follows(block.adjacent, shown, s) for s in block.chosen)
        if low_information(said):
            why_not: Reason | None = {"code": "greeting"}
        elif body in seen:
            why_not = {"code": "duplicate"}
        elif card.tier == "low":
            why_not = {"code": "low", "score": card.score}
        elif opens_card and block.cards() >= max_cards:
            why_not = {"code": "cards", "cards": max_cards}
        elif block.add_card(shown, lambda limit, card=card: evidence(card, query_tokens, limit, weight)):
            seen.add(body)
            why_not = None
        else:
            why_not = {"code": "budget"}
        if why_not:
            block.left_out.append((clip(card.summary or body, 100), why_not))
    block.frame.keep(lambda: len(block.text()) <= max_chars)  # what the frame left out, in the room cards left
    neighbours = beside_hits(block, spaces, fts.filters([s.pk for s in spaces if s.is_native], recallable_only=False,
                                                          origin=origin, skip_tags=skip_tags), topics, known)
    for shown in neighbours:
        block.add_neighbour(shown, lambda limit, card=shown.card: evidence(card, query_tokens, limit, weight), max_cards)
    ctx = block.result(query_tokens)
    ctx.neighbours = [s.card for s in block.chosen if s in neighbours]
    return ctx



def beside_hits(block: Block, spaces: list[MemorySpace], search_filters: tuple[list[str], list],
                topics: dict[int, Topic], known: Collection[str]) -> list[Shown]:
    """The short turns beside the shown turn hits (beside.py), as cards joined to their hit's: a neighbour's
    score is its hit's at ranking's SESSION_NEIGHBOUR."""
    hits = {_pk(s): s for s in sorted(block.chosen, key=lambda s: s.rank)
            if s.card.entry is not None and s.card.entry.kind == "turn"}
    found = beside.turns_beside(list(hits), {_pk(s) for s in block.chosen}, search_filters, longest=CARD_CHARS,
                                known=known)
    spaces_by_id = {s.pk: s for s in spaces}
    out: list[Shown] = []
    for one in found:
        parent, entry = hits[one.hit], one.entry
        card = entry_card(entry, round((parent.card.score or 0.0) * SESSION_NEIGHBOUR, 4), spaces_by_id[entry.space_id])
        card.via = "session"
        topic = topics.get(entry.topic_id) if entry.topic_id else None
        out.append(Shown(card, parent.rank, topic if topic is not None and topic.turn_count > 1 else None))
        block.adjacent.add((entry.pk, one.hit) if one.before else (one.hit, entry.pk))
    return out
