"""Ranking native hits: BM25 × hit boost (search.py), plus memories "remembered along the way".

A primary hit brings its neighbouring turns of the same session and entries sharing an entity,
each scored as a fraction of the hit that found it, so an extension can pass a weak primary hit
but never the hit that found it.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Q

from memoryhub.memories import search as fts
from memoryhub.memories.models import Edge, Entry

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
         recallable_only: bool = True, extend: bool = True) -> list[Ranked]:
    hits = fts.query(space_ids, query, limit=max(limit, PARENTS), recallable_only=recallable_only, origin=origin)
    ranked = {h.entry_id: Ranked(h.entry_id, h.rank, "keyword", h.similarity) for h in hits}
    if extend and hits:
        parents = {h.entry_id: h.rank for h in hits[:PARENTS]}
        edges = Edge.objects.filter(source_id__in=parents).filter(
            Q(edge_type="temporal", metadata__sub_type="backbone", source__kind="turn", target__kind="turn")
            | Q(edge_type="entity")
        ).values_list("source_id", "target_id", "edge_type")
        offers: dict[int, tuple[float, str]] = {}
        for source, target, edge_type in edges:
            factor, via = (SESSION_NEIGHBOUR, "session") if edge_type == "temporal" else (ENTITY_NEIGHBOUR, "entity")
            score = parents[source] * factor
            if score > offers.get(target, (0.0, ""))[0]:
                offers[target] = (score, via)
        allowed = Entry.objects.filter(pk__in=list(offers), space_id__in=space_ids, deleted_at__isnull=True)
        if recallable_only:
            allowed = allowed.filter(archived=False, is_test=False, merged_into__isnull=True)
        if origin:
            allowed = allowed.filter(origin=origin)
        for entry_id in allowed.values_list("pk", flat=True):
            score, via = offers[entry_id]
            if entry_id not in ranked or ranked[entry_id].rank < score:
                ranked[entry_id] = Ranked(entry_id, score, via if entry_id not in ranked else "keyword")
    return sorted(ranked.values(), key=lambda r: r.rank, reverse=True)[:limit]
