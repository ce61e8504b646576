"""What a query says beyond its words, and how much each entry answers to it (ranking.py applies them).

Each signal rests on how people talk, not on any data set's wording, and each can be switched off alone so the
bench measures what it adds (ranking.without):

- **speaker**: a question that names someone is answered by what that person said ("When did Caroline go …"
  is answered by a turn of Caroline's, not by Melanie saying "Thanks, Caroline!"): turns by a speaker the
  query names count SPEAKER times.
- **when**: a question asking *when* is answered by a statement that says when ("yesterday", "last May",
  "两周前"): such turns count WHEN times.
- **dates**: a question naming days ("on 25 May, 2022", "in October 2023", "last week", "上周") asks about
  what was said on them or in the week after (things are told after they happen): DATES times, and the
  entries of those days are searched too, not only the best word matches overall.
- **phrases**: words quoted in the query ("…", “…”, 「…」, 《…》) found together, in order: PHRASES times.
- **entities**: entries indexed under an entity the query names (memories_entityref), other than the
  conversation's own speakers (said to, not about): ENTITIES times; and only an entity the query names
  brings other entries along (ranking.py).
- **session**: a conversation that covers more of the query's words makes each of its matches likelier,
  as a document's other passages make a passage likelier: a share SESSION of the score comes from the
  session's own BM25 (over the matched words of its candidates, each word saturating as in BM25).
- **neighbours** (ranking.py): the turns around a strong match in its session.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from datetime import date, datetime
from datetime import timezone as dt_timezone

from django.utils import timezone

from memoryhub.core import sql
from memoryhub.memories.search.fulltext import among, json_list, query_tokens
from memoryhub.memories.text.entities import capitalised_words, extract_entities
from memoryhub.memories.text.prose import speakers
from memoryhub.memories.text.times import ASKS_WHEN, Window, mentions_time, windows
from memoryhub.memories.text.tokens import index_tokens

SIGNALS = ("neighbours", "speaker", "session", "when", "dates", "phrases", "entities")
SPEAKER = 1.3
WHEN = 1.5
DATES = 2.0
TOLD_AFTER_DAYS = 7
PHRASES = 2.0
ENTITIES = 1.3
SESSION = 0.3
K1 = 1.2
HEAD_CHARS = 600  # of an entry's text read for its speakers, time words and phrases
_QUOTED = re.compile(r'"([^"]{2,120})"|“([^”]{2,120})”|「([^」]{1,60})」|《([^》]{1,60})》|‘([^’]{2,120})’')


@dataclass
class Asked:
    """A query read once: its tokens and what it says beyond them."""

    text: str
    tokens: list[str]
    windows: list[Window] = field(default_factory=list)
    asks_when: bool = False
    phrases: list[list[str]] = field(default_factory=list)
    entities: set[str] = field(default_factory=set)


def read(query: str, space_ids: list[int], today: date | None = None) -> Asked:
    phrases = [index_tokens(next(g for g in m.groups() if g)) for m in _QUOTED.finditer(query)]
    return Asked(query, query_tokens(query), windows(query, today or timezone.localdate()),
                 bool(ASKS_WHEN.search(query)), [p for p in phrases if len(p) > 1], _entities(query, space_ids))


def _entities(query: str, space_ids: list[int]) -> set[str]:
    """The entities the query names: as the write path extracts them, a capitalised word counting only when the
    spaces' entity index already holds it."""
    names = list(capitalised_words(query))[:50]
    known = set()
    if names and space_ids:
        known = {n for (n,) in sql.rows(
            f"SELECT DISTINCT name FROM memories_entityref WHERE space_id IN ({sql.placeholders(space_ids)}) "
            f"AND name IN ({sql.placeholders(names)})", [*space_ids, *names])}
    return set(extract_entities(query, known))


class About:
    """What ranking needs to know of one entry (its time, speakers and entities read only when a signal asks)."""

    __slots__ = ("entry_id", "space_id", "session_id", "kind", "head", "_at", "_entities", "_speakers", "weight")

    def __init__(self, entry_id: int, space_id: int, session_id: str, at, kind: str, head: str, entities):
        self.entry_id, self.space_id, self.session_id, self.kind, self.head = entry_id, space_id, session_id, kind, head
        self._at, self._entities, self._speakers = at, entities, None
        self.weight: float | None = None  # Weigher.factor's answer, once asked

    @property
    def session(self) -> tuple:
        """The conversation it belongs to; an entry of no session stands alone."""
        return (self.space_id, self.session_id) if self.session_id else ("entry", self.entry_id)

    @property
    def day(self) -> date:
        """The day it was said, in the hub's time zone (SQLite hands back naive UTC: read it the quick way)."""
        at = datetime.fromisoformat(self._at) if isinstance(self._at, str) else self._at
        if at.tzinfo is None:  # stored as UTC
            at = at.replace(tzinfo=dt_timezone.utc)
        return timezone.localtime(at).date()

    @property
    def entities(self) -> set[str]:
        return set(json_list(self._entities))

    @property
    def speakers(self) -> list[str]:
        if self._speakers is None:
            self._speakers = speakers(self.head)
        return self._speakers


def describe(ids: list[int], where: list[str], params: list) -> dict[int, About]:
    """The entries of `ids` the search's filters admit, each described once (one query)."""
    if not ids:
        return {}
    rows = sql.rows(
        f"SELECT e.id, e.space_id, e.session_id, e.at, e.kind, substr(e.body, 1, {HEAD_CHARS}), e.entities "
        f"FROM memories_entry e WHERE {among(ids, where)}", [*ids, *params])
    return {row[0]: About(row[0], row[1], row[2] or "", row[3], row[4], row[5] or "", row[6]) for row in rows}


class Weigher:
    """The factor by which each entry answers to what the query says beyond its words (1.0: nothing)."""

    def __init__(self, asked: Asked, off: frozenset[str]):
        self.asked = asked
        self.speaker = "speaker" not in off
        self.when = "when" not in off and asked.asks_when
        self.dates = [] if "dates" in off else asked.windows
        self.phrases = [] if "phrases" in off else asked.phrases
        self.entities = set() if "entities" in off else asked.entities
        self._named: dict[str, bool] = {}

    def not_speaking(self, pool: dict[int, About]) -> None:
        """Leave the conversation's own speakers out of the entities that count: their names are mostly said to
        them ("Thanks, Caroline!"), and the speaker signal already weighs what they said."""
        if self.entities:
            self.entities -= {name for about in pool.values() for name in about.speakers}

    def factor(self, about: About) -> float:
        if about.weight is None:
            about.weight = self._factor(about)
        return about.weight

    def _factor(self, about: About) -> float:
        f = 1.0
        if self.speaker and any(self.named(s) for s in about.speakers):
            f *= SPEAKER
        if self.when and mentions_time(about.head):
            f *= WHEN
        if self.dates and any(w.holds(about.day, after=TOLD_AFTER_DAYS) for w in self.dates):
            f *= DATES
        if self.phrases and _holds_phrase(index_tokens(about.head), self.phrases):
            f *= PHRASES
        if self.entities and self.entities & about.entities:
            f *= ENTITIES
        return f

    def named(self, speaker: str) -> bool:
        """Whether the query names this speaker (as a whole word; Chinese names anywhere)."""
        if speaker not in self._named:
            if re.search(r"[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]", speaker):
                self._named[speaker] = speaker in self.asked.text
            else:
                self._named[speaker] = bool(re.search(rf"(?<!\w){re.escape(speaker)}(?!\w)", self.asked.text, re.I))
        return self._named[speaker]


def _holds_phrase(tokens: list[str], phrases: list[list[str]]) -> bool:
    for phrase in phrases:
        n = len(phrase)
        if any(tokens[i:i + n] == phrase for i in range(len(tokens) - n + 1)):
            return True
    return False


def session_scores(pool: dict[int, About], matched: dict[int, set[str]], docs: dict[str, int],
                   corpus: int) -> dict[tuple, float]:
    """Each candidate session's BM25 over the query words its candidates hold, 0–1 against the best session.

    A word counts once per matching turn, saturating as term frequency does in BM25 (k1), weighted by its idf;
    the session is known only through the candidates, so this costs no query.
    """
    counts: dict[tuple, dict[str, int]] = {}
    for pk, about in pool.items():
        held = counts.setdefault(about.session, {})
        for token in matched.get(pk, ()):
            held[token] = held.get(token, 0) + 1
    corpus = max([corpus, *docs.values()])
    idf = {t: math.log(1 + (corpus - n + 0.5) / (n + 0.5)) for t, n in docs.items() if n}
    scores = {key: sum(idf.get(t, 0.0) * c * (K1 + 1) / (c + K1) for t, c in held.items())
              for key, held in counts.items()}
    best = max(scores.values(), default=0.0)
    return {key: score / best for key, score in scores.items()} if best > 0 else {}
