"""Queries that point back ("that", "it", "上次那个", "他说的那个"): what they refer to, from the session's last turns.

"How did we fix it?" names nothing searchable but "fix"; the session's last turns say what "it" is. Their most
distinctive words (by how few entries hold them) are searched too, beside the query, and what they find counts
at most REFERENT_SHARE of the query's best match: the referents help the query, they never outweigh it. A query
that names nothing but the pointing back ("上次那个怎么样了") has no words of its own to outweigh: then what the
referents find leads. The turns they come from follow what else they find (an older memory sharing their words is likelier what
"last time" means, so they come after every one of those; when there is none, they are the answer).

A query points back when it says so ("last time", "as we discussed", "上次", "刚才", "他说的") or when a pronoun
stands for what it names too little to find on its own (at most FEW_WORDS words of its own).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from memoryhub.memories.models import Entry
from memoryhub.memories.search import fulltext as fts
from memoryhub.memories.search.ranking import Ranked
from memoryhub.memories.text.prose import PHATIC, without_speakers
from memoryhub.memories.text.tokens import stem, tokenize
from memoryhub.spaces.models import MemorySpace

POINTS_BACK = re.compile(
    r"上次|上回|那个|那件事|那次|之前(?:说|提|聊|讲)|刚才|刚刚|前面(?:说|提)|[他她你我]们?(?:说|提)的|"
    r"(?i:\blast time\b|\bthe other day\b|\bas (?:i|we|you) (?:said|discussed|mentioned)\b|"
    r"\b(?:we|you|i) (?:talked|spoke|discussed|mentioned)\b|\bearlier\b)"
)
PRONOUN = re.compile(r"(?i:\b(?:that|it|this|those|these|them|they|he|she|him|her|there)\b)|它|这个|这件|他|她")
FEW_WORDS = 3
REFERENCE_TURNS = 3
REFERENT_WORDS = 8
REFERENT_SHARE = 0.5


@dataclass
class Referents:
    words: str  # the referents' most distinctive words, as written
    entry_ids: set[int]  # the turns they come from
    alone: bool = False  # the query names nothing but that it points back


def points_back(query: str) -> bool:
    if POINTS_BACK.search(query):
        return True
    return bool(PRONOUN.search(query)) and len(set(tokenize(query))) <= FEW_WORDS


def referents(query: str, spaces: list[MemorySpace], session_id: str, origin: str | None) -> Referents | None:
    """What a query that points back may mean: the distinctive words of this session's last turns (else the
    space's), none of the query's own; None when it does not point back or nothing was said before."""
    native = [s for s in spaces if s.is_native]
    if not native or not points_back(query):
        return None
    recent = Entry.objects.recallable().filter(space__in=native)
    if origin:
        recent = recent.filter(origin=origin)
    in_session = recent.filter(session_id=session_id) if session_id else recent.none()
    chosen = in_session if in_session.exists() else recent
    turns = list(chosen.order_by("-at", "-id").values_list("id", "body")[:REFERENCE_TURNS])
    own = set(tokenize(query))
    words: dict[str, str] = {}  # stem → the word as written
    for _, body in turns:
        for word in tokenize(without_speakers(body), stemmed=False):
            token = stem(word)
            if token not in own and word not in PHATIC and len(word) > 1:
                words.setdefault(token, word)
    if not words:
        return None
    counts = fts.doc_counts(list(words))
    rarest = sorted((t for t in words if counts.get(t, 0) > 0), key=lambda t: counts[t])  # the most distinctive
    chosen_words = [words[t] for t in rarest[:REFERENT_WORDS]]
    if not chosen_words:
        return None
    return Referents(" ".join(chosen_words), {pk for pk, _ in turns}, not own_words(query))


def own_words(query: str) -> set[str]:
    """The query's tokens once the pointing back is taken out ("上次那个怎么样了" has none), question words aside."""
    rest = PRONOUN.sub(" ", POINTS_BACK.sub(" ", query))
    return set(fts.query_tokens(rest))


def blend(hits: list[Ranked], found: list[Ranked], referred: Referents, limit: int) -> list[Ranked]:
    """The query's own hits with what its referents found: each of the latter adds at most REFERENT_SHARE of the
    query's best score (so an entry matching both comes first, one matching only the referents never leads), or,
    when the query has no words of its own, as much as the query's best."""
    if not found:
        return hits
    if referred.alone or not hits:
        top, share = found[0].rank, 1.0
    else:
        top, share = hits[0].rank, REFERENT_SHARE
    scale = share * top / (found[0].rank or 1.0)
    older = [r.rank * scale for r in found if r.entry_id not in referred.entry_ids]
    merged = {h.entry_id: h for h in hits}
    for r in found:
        full = lent = r.rank * scale
        if r.entry_id in referred.entry_ids and older:
            lent = min(lent, min(older) * 0.9)
        if r.entry_id in merged:
            merged[r.entry_id].rank += lent
        else:  # its share of the referents' words counts as its rank does, so its relevance keeps this order
            merged[r.entry_id] = Ranked(r.entry_id, lent, r.via, r.similarity, r.coverage * share * lent / (full or 1.0))
    return sorted(merged.values(), key=lambda r: r.rank, reverse=True)[:limit]
