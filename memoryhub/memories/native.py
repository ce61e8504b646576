"""The native provider: the embedded store with Mnemon semantics (typed graph, exact write, soft delete)."""

from __future__ import annotations

from collections import deque
from typing import Any

from django.db.models import Count, Q

from memoryhub.core.ids import row_id
from memoryhub.memories.models import EDGE_TYPES, Category, Edge, EdgeType, EntityRef, Entry, OpLog
from memoryhub.memories.search import fulltext as search
from memoryhub.memories.write import gateway
from providers.base import Capabilities, Keeps, Provider, ProviderError, Receipt, Record, gettext_noop


def entry_record(entry: Entry, score: float | None = None, full: bool = True) -> Record:
    return Record(
        id=str(entry.pk), text=entry.body if full else entry.summary, title=entry.title,
        category=entry.category, at=entry.at_iso, tags=list(entry.tags or []), score=score,
        origin=entry.origin, extra={"summary": entry.summary, "kind": entry.kind, "session_id": entry.session_id},
    )


class NativeProvider(Provider):
    kind = "native"
    label = gettext_noop("Native")
    locality = "local"
    workspace_binding = "automatic"
    score_semantics = "normalized"
    capabilities = Capabilities(
        search=True, browse=True, graph=True, entities=True, related=True, remember=True, link=True,
        forget=True, get=True, write_mode="exact", deletion_mode="soft",
    )
    keeps = Keeps(title=True, category=True, tags=True, dates=True)
    description = gettext_noop(
        "The built-in store: exact writes, full-text search (English and Chinese), a typed graph.")

    def _entries(self):
        return Entry.objects.live().filter(space=self.space)

    def _entry(self, record_id: str) -> Entry:
        pk = row_id(record_id)
        if pk is None:
            raise ProviderError(f"no entry {record_id!r}", permanent=True)
        entry = self._entries().filter(pk=pk).first()
        if entry is None:
            raise ProviderError(f"no entry {record_id!r}", permanent=True)
        return entry

    def status(self) -> dict[str, Any]:
        entries = Entry.objects.filter(space=self.space)
        live = entries.filter(deleted_at__isnull=True)
        by_category = dict(live.values_list("category").annotate(n=Count("id")).values_list("category", "n"))
        top = (EntityRef.objects.filter(space=self.space).values("name").annotate(n=Count("id")).order_by("-n")[:20])
        return {
            "healthy": True,
            "total": live.count(),
            "deleted": entries.filter(deleted_at__isnull=False).count(),
            "by_category": by_category,
            "edges": Edge.objects.filter(source__space=self.space).count(),
            "oplog": OpLog.objects.filter(space=self.space).count(),
            "top_entities": [(t["name"], t["n"]) for t in top],
        }

    def search(self, query: str, limit: int = 10, **filters: Any) -> list[Record]:
        hits = search.query([self.space.pk], query, limit=limit, recallable_only=filters.get("recallable_only", True))
        entries = Entry.objects.in_bulk([h.entry_id for h in hits])
        top = hits[0].rank if hits else 1.0
        return [entry_record(entries[h.entry_id], score=round(h.rank / top, 4), full=False)
                for h in hits if h.entry_id in entries]

    def browse(self, limit: int = 50, offset: int = 0, **filters: Any) -> list[Record]:
        return [entry_record(e, full=False) for e in self._entries().order_by("-at", "-id")[offset : offset + limit]]

    def get(self, record_id: str) -> Record:
        return entry_record(self._entry(record_id))

    def remember(self, text: str, *, title: str = "", category: str = Category.GENERAL, tags=None, at="", **extra) -> Receipt:
        draft = gateway.Draft(body=text, title=title, category=category, tags=list(tags or []), **extra)
        written = gateway.write(self.space, draft)
        return Receipt("committed", provider_id=str(written.entry.pk), detail={"created": written.created})

    def forget(self, record_id: str) -> None:
        gateway.forget(self._entry(record_id))

    def entities(self, limit: int = 100) -> list[dict[str, Any]]:
        """The names the entity index holds for live entries, most mentioned first (the id is the name)."""
        rows = (EntityRef.objects.filter(space=self.space, entry__deleted_at__isnull=True).values("name")
                .annotate(n=Count("id")).order_by("-n", "name")[:limit])
        return [{"id": row["name"], "name": row["name"], "mentions": row["n"]} for row in rows]

    def entity_records(self, entity_id: str, limit: int = 50) -> list[Record]:
        entries = self._entries().filter(entity_refs__name=entity_id).order_by("-at", "-id")[:limit]
        return [entry_record(e, full=False) for e in entries]

    def graph(self, limit: int = 200) -> dict[str, Any]:
        entries = list(self._entries().order_by("-at")[:limit])
        ids = {e.pk for e in entries}
        edges = Edge.objects.filter(source_id__in=ids, target_id__in=ids).values(
            "source_id", "target_id", "edge_type", "weight")
        return {
            "nodes": [{"id": str(e.pk), "label": e.title or e.summary[:60], "category": e.category,
                       "entities": e.entities} for e in entries],
            "edges": [{"source": str(x["source_id"]), "target": str(x["target_id"]), "type": x["edge_type"],
                       "weight": x["weight"]} for x in edges if x["source_id"] < x["target_id"]
                      or x["edge_type"] == EdgeType.CAUSAL],
        }

    def related(self, record_id: str, depth: int = 2, edge_type: str | None = None) -> list[Record]:
        start = self._entry(record_id)
        seen = {start.pk: 0}
        queue = deque([start.pk])
        while queue:
            current = queue.popleft()
            if seen[current] >= depth:
                continue
            edges = Edge.objects.filter(Q(source_id=current), target__deleted_at__isnull=True)
            if edge_type:
                edges = edges.filter(edge_type=edge_type)
            for target in edges.values_list("target_id", flat=True)[:100]:
                if target not in seen:
                    seen[target] = seen[current] + 1
                    queue.append(target)
        seen.pop(start.pk)
        entries = Entry.objects.in_bulk(list(seen))
        return [entry_record(entries[i], full=False) for i in sorted(seen, key=seen.get) if i in entries]

    def link(self, source_id: str, target_id: str, edge_type: str = EdgeType.SEMANTIC, weight: float = 0.5) -> None:
        if not 0.0 <= weight <= 1.0:
            raise ProviderError("weight must be between 0 and 1", permanent=True)
        if edge_type not in EDGE_TYPES:
            raise ProviderError(f"a link's kind is one of {', '.join(EDGE_TYPES)}, not {edge_type!r}", permanent=True)
        gateway.link(self._entry(source_id), self._entry(target_id), edge_type, weight)
