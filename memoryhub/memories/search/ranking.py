"""Ranking native hits: word matches (fulltext.py) weighed by what the query says beyond its words (signals.py),
plus memories "remembered along the way".

Word matches first: BM25 × hit boost, the best POOL of them. Each is then weighed by the signals (speaker,
when, dates, phrases, entities) and given a share of its session's score. A strong match then brings the turns
around it in its session (one turn away SESSION_NEIGHBOUR of its score, two turns away — the same speaker's
turn before or after, in a conversation of two — SECOND_NEIGHBOUR, each weighed as itself) and entries sharing
an entity the query names (ENTITY_NEIGHBOUR: any shared name would bring half a conversation along). With a re-ranker configured (core/rerank.py), its scores for the best
RERANK_CANDIDATES blend in at RERANK_WEIGHT. `without()` switches signals off for the bench's ablation.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from datetime import datetime, time, timedelta

from django.conf import settings
from django.utils import timezone

from memoryhub.core import rerank, sql
from memoryhub.memories.models import EdgeType, Kind
from memoryhub.memories.search import fulltext as fts
from memoryhub.memories.search import signals
from memoryhub.memories.search.signals import SIGNALS, Asked, Weigher

SESSION_NEIGHBOUR = 0.6
SECOND_NEIGHBOUR = 0.4
ENTITY_NEIGHBOUR = 0.3
PARENTS = 10
POOL = 40
WINDOWS = 3  # dated windows searched on their own, at most
_off: ContextVar[frozenset[str]] = ContextVar("signals_off", default=frozenset())


@contextmanager
def without(*names: str) -> Iterator[None]:
    """Rank with these signals switched off (SIGNALS names them), for measuring what each one adds."""
    unknown = set(names) - set(SIGNALS) - {"rerank"}
    if unknown:
        raise ValueError(f"unknown signals: {sorted(unknown)}")
    token = _off.set(frozenset(names))
    try:
        yield
    finally:
        _off.reset(token)


@dataclass
class Ranked:
    entry_id: int
    rank: float
    via: str  # keyword | session | entity
    similarity: float | None = None  # to the query, when embeddings are on
    coverage: float = 0.0  # the share of the query's words it holds (an extension: lent by what found it)


def rank(space_ids: list[int], query: str, *, limit: int, origin: str | None = None,
         recallable_only: bool = True, extend: bool = True, skip_tags: Iterable[str] = ()) -> list[Ranked]:
    off = _off.get()
    asked = signals.read(query, space_ids)
    search = dict(recallable_only=recallable_only, origin=origin, skip_tags=skip_tags)
    hits = fts.query(space_ids, query, limit=max(limit, PARENTS), keep=POOL, **search)
    if "dates" not in off:
        hits += _dated_hits(space_ids, query, asked, {h.entry_id for h in hits}, search)
    if not hits:
        return []
    where, params = fts.filters(space_ids, **search)
    pool = signals.describe([h.entry_id for h in hits], where, params)
    matched = fts.matched_terms(list(pool), asked.tokens)
    weigher = Weigher(asked, off)
    weigher.not_speaking(pool)
    top = max(h.rank for h in hits) or 1.0
    weight = {pk: weigher.factor(about) for pk, about in pool.items()}
    score = {h.entry_id: h.rank / top * weight[h.entry_id] for h in hits if h.entry_id in pool}
    docs = fts.doc_counts(asked.tokens)
    if "session" not in off:
        prior = signals.session_scores(pool, matched, docs, fts.corpus_size())
        score = {pk: (1 - signals.SESSION) * s + signals.SESSION * prior.get(pool[pk].session, 0.0)
                 for pk, s in score.items()}
    words = max(1, sum(1 for t in asked.tokens if docs.get(t, 0) > 0))  # a word no entry holds cannot be covered
    ranked = {h.entry_id: Ranked(h.entry_id, score[h.entry_id], "keyword", h.similarity,
                                 len(matched.get(h.entry_id, ())) / words)
              for h in hits if h.entry_id in score}
    if extend:
        parents = sorted(ranked.values(), key=lambda r: r.rank, reverse=True)[:PARENTS]
        for offer in _offers(parents, pool, weight, weigher, where, params, off):
            known = ranked.get(offer.entry_id)
            if known is None or known.rank < offer.rank:
                if known is not None:
                    offer.via, offer.similarity = known.via, known.similarity
                    offer.coverage = max(offer.coverage, known.coverage)
                ranked[offer.entry_id] = offer
    best = sorted(ranked.values(), key=lambda r: r.rank, reverse=True)[:limit]
    if rerank.configured() and "rerank" not in off:
        best = _reranked(query, best, pool, where, params)
    for r in best:
        r.rank *= top  # back on the word scores' scale
    return best


def _reranked(query: str, best: list[Ranked], pool: dict[int, signals.About], where: list[str],
              params: list) -> list[Ranked]:
    """The first RERANK_CANDIDATES re-ordered by the re-ranker's scores blended with theirs; they stay above the rest
    (their scores are mapped between the best and the first one left alone)."""
    conf = settings.MEMORYHUB
    head, tail = best[:int(conf.get("RERANK_CANDIDATES", 20))], best[int(conf.get("RERANK_CANDIDATES", 20)):]
    about = {**pool, **signals.describe([r.entry_id for r in head if r.entry_id not in pool], where, params)}
    texts = [about[r.entry_id].head if r.entry_id in about else "" for r in head]
    scores = rerank.scores(query, texts)
    if not scores or not head:
        return best
    weight = float(conf.get("RERANK_WEIGHT", 0.5))
    top, floor = head[0].rank, (tail[0].rank if tail else 0.0)
    for r, score in zip(head, scores):
        r.rank = floor + (top - floor) * ((1 - weight) * r.rank / (top or 1.0) + weight * score)
    return sorted(head, key=lambda r: r.rank, reverse=True) + tail


def _dated_hits(space_ids: list[int], query: str, asked: Asked, found: set[int], search: dict) -> list[fts.Hit]:
    """The word matches said on the days the query names (or in the week after), though better matches of other
    days came first; scored as the rest, so the dates signal weighs them all alike."""
    extra: list[fts.Hit] = []
    for window in [w for w in asked.windows if w.start is not None][:WINDOWS]:
        start = timezone.make_aware(datetime.combine(window.start, time.min))
        end = timezone.make_aware(datetime.combine(window.end + timedelta(days=signals.TOLD_AFTER_DAYS + 1), time.min))
        for hit in fts.query(space_ids, query, limit=PARENTS, keep=POOL // 2, between=(start, end), **search):
            if hit.entry_id not in found:
                found.add(hit.entry_id)
                extra.append(hit)
    return extra


def _offers(parents: list[Ranked], pool: dict[int, signals.About], weight: dict[int, float], weigher: Weigher,
            where: list[str], params: list, off: frozenset[str]) -> list[Ranked]:
    """What the parents bring along: for each entry its best offer.

    A turn brings the turns one and two away in its session (by the same-session backbone edges), any entry those
    sharing an entity; each offer is the parent's score × the way's factor × how the entry itself weighs against
    its parent (a neighbour by the person the query names counts more). Plain SQL without joins: the ORM took
    longer to build and plan these than the database to run them.
    """
    by_id = {p.entry_id: p for p in parents}
    turns = [pk for pk in by_id if pool[pk].kind == Kind.TURN]
    ways: list[tuple[int, float, str, int]] = []  # (neighbour, factor, way, parent)
    first, entity = _edges(list(by_id) if weigher.entities else [], turns if "neighbours" not in off else [],
                           weigher.entities)
    ways += [(target, SESSION_NEIGHBOUR, "session", source) for source, target in first]
    ways += [(target, ENTITY_NEIGHBOUR, "entity", source) for source, target in entity]
    if first:
        before: dict[int, list[int]] = {}
        for source, target in first:
            before.setdefault(target, []).append(source)
        ways += [(beyond, SECOND_NEIGHBOUR, "session", parent) for middle, beyond in _edges([], list(before))[0]
                 for parent in before[middle] if beyond != parent]
    about = signals.describe(list({w[0] for w in ways}), where, params)
    offers: dict[int, Ranked] = {}
    for target, factor, via, parent in ways:
        found = about.get(target)
        if found is None or (via == "session" and found.kind != Kind.TURN):
            continue
        own = weigher.factor(found) / weight.get(parent, 1.0)
        value = by_id[parent].rank * factor * own
        if target not in offers or offers[target].rank < value:
            offers[target] = Ranked(target, value, via, None, by_id[parent].coverage)
    return list(offers.values())


def _edges(entity_sources: list[int], turn_sources: list[int],
           entities: set[str] = frozenset()) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """(backbone, entity): the same-session backbone edges leaving `turn_sources`, and the edges leaving
    `entity_sources` through one of `entities`, as (source, target), in one query."""
    parts, params = [], []
    if turn_sources:
        parts.append(f"(source_id IN ({sql.placeholders(turn_sources)}) AND edge_type = %s "
                     f"AND {sql.json_text('metadata', 'sub_type')} = %s)")
        params += [*turn_sources, EdgeType.TEMPORAL, "backbone"]
    if entity_sources and entities:
        parts.append(f"(source_id IN ({sql.placeholders(entity_sources)}) AND edge_type = %s "
                     f"AND {sql.json_text('metadata', 'entity')} IN ({sql.placeholders(entities)}))")
        params += [*entity_sources, EdgeType.ENTITY, *sorted(entities)]
    if not parts:
        return [], []
    rows = sql.rows(f"SELECT source_id, target_id, edge_type FROM memories_edge WHERE {' OR '.join(parts)}", params)
    return ([(s, t) for s, t, kind in rows if kind == EdgeType.TEMPORAL],
            [(s, t) for s, t, kind in rows if kind == EdgeType.ENTITY])
