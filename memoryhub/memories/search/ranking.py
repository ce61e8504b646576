"""Ranking native hits: BM25 × hit boost (fulltext.py), plus memories "remembered along the way".

A primary hit brings its neighbouring turns of the same session and entries sharing an entity,
each scored as a fraction of the hit that found it, so an extension can pass a weak primary hit
but never the hit that found it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from memoryhub.core import sql
from memoryhub.memories.models import EdgeType, Kind
from memoryhub.memories.search import fulltext as fts

SESSION_NEIGHBOUR = 0.6
ENTITY_NEIGHBOUR = 0.3
PARENTS = 10


@dataclass
class Ranked:
    entry_id: int
    rank: float
    via: str  # keyword | session | entity
    similarity: float | None = None  # to the query, when embeddings are on


def rank(space_ids: list[int], query: str, *, limit: int, origin: str | None = None,
         recallable_only: bool = True, extend: bool = True, skip_tags: Iterable[str] = ()) -> list[Ranked]:
    hits = fts.query(space_ids, query, limit=max(limit, PARENTS), recallable_only=recallable_only, origin=origin,
                     skip_tags=skip_tags)
    ranked = {h.entry_id: Ranked(h.entry_id, h.rank, "keyword", h.similarity) for h in hits}
    if extend and hits:
        where, params = fts.filters(space_ids, recallable_only=recallable_only, origin=origin, skip_tags=skip_tags)
        for entry_id, (score, via) in _offers({h.entry_id: h for h in hits[:PARENTS]}, where, params).items():
            if entry_id not in ranked or ranked[entry_id].rank < score:
                ranked[entry_id] = Ranked(entry_id, score, via if entry_id not in ranked else "keyword")
    return sorted(ranked.values(), key=lambda r: r.rank, reverse=True)[:limit]


def _offers(parents: dict[int, fts.Hit], where: list[str], params: list) -> dict[int, tuple[float, str]]:
    """What the parents bring along, each admitted entry with its best (score, way).

    A turn brings the turns before and after it in its session; any entry brings those sharing an
    entity. Plain SQL without joins: the parents' kinds came with the hits and the neighbours' come
    with the filter (the ORM took longer to build and plan these than the database to run them).
    """
    edges = sql.rows(
        f"SELECT source_id, target_id, edge_type FROM memories_edge WHERE source_id IN ({sql.placeholders(parents)}) "
        f"AND (edge_type = 'entity' OR (edge_type = 'temporal' AND {sql.json_text('metadata', 'sub_type')} = %s))",
        [*parents, "backbone"])
    ways: dict[int, dict[str, float]] = {}  # neighbour → best score by way
    for source, target, edge_type in edges:
        if edge_type == EdgeType.TEMPORAL and parents[source].kind != Kind.TURN:
            continue
        temporal = edge_type == EdgeType.TEMPORAL
        factor, via = (SESSION_NEIGHBOUR, "session") if temporal else (ENTITY_NEIGHBOUR, "entity")
        offered = ways.setdefault(target, {})
        offered[via] = max(offered.get(via, 0.0), parents[source].rank * factor)
    offers = {}
    for entry_id, _, kind in fts.allowed(list(ways), where, params):
        usable = {via: score for via, score in ways[entry_id].items() if via == "entity" or kind == Kind.TURN}
        if usable:
            via, score = max(usable.items(), key=lambda way: way[1])
            offers[entry_id] = (score, via)
    return offers
