"""Holographic adapter: a local structured-fact store (own JSON format) with trust scores and an entity graph.

Each space has its own file, `<store dir>/holographic.json`; the hub picks the directory (config["_store_dir"]:
a folder for the space under the service's dataPath, or in the hub's data directory).
"""

from __future__ import annotations

import os
from collections import deque
from datetime import datetime, timezone
from typing import Any

from providers.base import (
    Capabilities, Field, Keeps, Provider, ProviderError, Receipt, Record, SpaceConfigError, SpaceError, gettext_noop,
)
from providers.holographic.store import FactStore
from providers.holographic.text import entities, jaccard, tokens

FILE_NAME = "holographic.json"
SEMANTIC_LINK = 0.25  # token overlap (Jaccard) at which two facts count as semantically linked
HELPFUL_STEP = 0.05  # Hermes' holographic store: +0.05 for helpful feedback, -0.10 for wrong (a fact is
WRONG_STEP = 0.10    # easier to lose than to earn), clamped to 0..1


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


class HolographicProvider(Provider):
    kind = "holographic"
    label = "Holographic"
    locality = "local"
    workspace_binding = "optional-override"
    score_semantics = "normalized"
    capabilities = Capabilities(search=True, browse=True, graph=True, entities=True, related=True, remember=True,
                                get=True, write_mode="exact", forget=True, deletion_mode="hard")
    keeps = Keeps(title=True, category=True, tags=True, dates=True)
    has_trust = True
    service_fields = (
        Field('dataPath', gettext_noop("Folder for the spaces' stores (blank: the hub's data directory); "
                                       "each space keeps its own file in a folder of its own"), input='path'),
    )
    store_root_field = "dataPath"
    space_fields = (
        Field('defaultTrust', gettext_noop('Default trust'), input='number', default=0.5, minimum=0, maximum=1),
        Field('minTrust', gettext_noop('Minimum trust'), input='number', default=0.3, minimum=0, maximum=1),
    )
    description = gettext_noop(
        "Local structured facts in an atomic JSON file per space: exact writes, trust scores, "
        "entity and semantic graph, hard delete. Nothing leaves the machine.")

    def __init__(self, config: dict[str, Any] | None = None, space: Any = None):
        super().__init__(config, space)
        self._store: FactStore | None = None

    @classmethod
    def store_root(cls, value: str) -> str:
        """A dataPath naming a `.json` file (the form before #31, when spaces shared that file) stands for its folder."""
        path = super().store_root(value)
        return os.path.dirname(path) if path.endswith(".json") else path

    @property
    def store(self) -> FactStore:
        if self._store is None:
            directory = str(self.config.get("_store_dir") or "").strip()
            if not directory:
                raise ProviderError("Holographic keeps one store per space: it needs the space's store directory",
                                    permanent=True)
            self._store = FactStore(os.path.join(directory, FILE_NAME))
        return self._store

    def _trust(self, key: str, default: float) -> float:
        value = self.config.get(key)
        try:
            trust = default if value in (None, "") else float(value)
        except (TypeError, ValueError):
            raise SpaceConfigError(f"{key} must be a number between 0 and 1", key=key) from None
        if not 0.0 <= trust <= 1.0:
            raise SpaceConfigError(f"{key} must be between 0 and 1, got {trust}", key=key)
        return trust

    @property
    def min_trust(self) -> float:
        return self._trust("minTrust", 0.3)

    def _record(self, fact: dict[str, Any], score: float | None = None) -> Record:
        return Record(id=str(fact["id"]), text=fact["content"], title=fact.get("title", ""),
                      category=fact.get("category", "general"), at=fact.get("at") or fact.get("created_at", ""),
                      tags=list(fact.get("tags", [])), score=score,
                      extra={"trust": fact.get("trust"), "entities": list(fact.get("entities", []))})

    def _trusted(self, data: dict[str, Any]) -> list[dict[str, Any]]:
        floor = self.min_trust
        return [f for f in data["facts"].values() if float(f.get("trust", 0)) >= floor]

    def status(self) -> dict[str, Any]:
        data = self.store.read()
        return {"healthy": True, "path": self.store.path, "facts": len(data["facts"])}

    def check(self) -> dict[str, Any]:
        """Service only: the folder a dataPath names must be a directory; blank, the hub's data directory holds
        the spaces' stores."""
        root = str(self.config.get("dataPath") or "").strip()
        if not root:
            return {"healthy": True, "path": "one store per space in the hub's data directory"}
        folder = self.store_root(root)
        if not os.path.isdir(folder):
            raise ProviderError(f"the folder {folder} for Holographic's stores does not exist", permanent=True)
        return {"healthy": True, "path": folder}

    def remember(self, text: str, *, title: str = "", category: str = "general",
                 tags: list[str] | None = None, at: str = "", **extra: Any) -> Receipt:
        """Store one exact fact; the same content again returns the existing fact.

        A copy rewrites the file like a new fact does: the time a write takes says nothing of what the store
        holds (a vault's writes must not confirm guesses of its text)."""
        content = text.strip()
        if not content:
            return Receipt("failed", error="refusing to store an empty fact")
        trust = self._trust("defaultTrust", 0.5) if extra.get("trust") is None else float(extra["trust"])
        with self.store.change() as data:
            existing = next((f for f in data["facts"].values() if f["content"] == content), None)
            if existing:
                return Receipt("committed", provider_id=str(existing["id"]), uri=self.store.path,
                               detail={"duplicate": True})
            fact_id = str(data["next_id"])
            data["next_id"] += 1
            data["facts"][fact_id] = {
                "id": fact_id, "content": content, "title": title, "category": category, "tags": list(tags or []),
                "trust": max(0.0, min(1.0, trust)), "at": at, "created_at": _now(), "updated_at": _now(),
                "entities": entities(content)}
        return Receipt("committed", provider_id=fact_id, uri=self.store.path)

    def get(self, record_id: str) -> Record:
        fact = self.store.read()["facts"].get(str(record_id))
        if fact is None:
            raise ProviderError(f"fact {record_id} does not exist", status=404)
        return self._record(fact)

    def forget(self, record_id: str) -> None:
        with self.store.change() as data:
            if data["facts"].pop(str(record_id), None) is None:
                raise ProviderError(f"fact {record_id} does not exist", status=404)

    def search(self, query: str, limit: int = 10, **filters: Any) -> list[Record]:
        """Score = relevance (0.6 query coverage + 0.4 Jaccard, entity names count) × trust; below minTrust is dropped."""
        wanted = tokens(query)
        if not wanted:
            return []
        scored = []
        for fact in self._trusted(self.store.read()):
            if filters.get("category") and fact.get("category") != filters["category"]:
                continue
            have = tokens(fact["content"]) | tokens(" ".join(fact.get("tags", [])))
            relevance = 0.6 * len(wanted & have) / len(wanted) + 0.4 * jaccard(wanted, have)
            if relevance > 0:
                scored.append((relevance * float(fact["trust"]), fact))
        scored.sort(key=lambda pair: (-pair[0], int(pair[1]["id"])))
        return [self._record(fact, round(score, 4)) for score, fact in scored[:limit]]

    def browse(self, limit: int = 50, offset: int = 0, **filters: Any) -> list[Record]:
        facts = sorted(self.store.read()["facts"].values(), key=lambda f: (-float(f.get("trust", 0)), -int(f["id"])))
        if filters.get("category"):
            facts = [f for f in facts if f.get("category") == filters["category"]]
        return [self._record(f) for f in facts[offset:offset + limit]]

    def entities(self, limit: int = 100) -> list[dict[str, Any]]:
        index: dict[str, dict[str, Any]] = {}
        for fact in self.store.read()["facts"].values():
            for name in fact.get("entities", []):
                entry = index.setdefault(name.lower(), {"id": f"entity:{name.lower()}", "name": name, "facts": []})
                entry["facts"].append(str(fact["id"]))
        ranked = sorted(index.values(), key=lambda e: (-len(e["facts"]), e["name"].lower()))
        return [{**e, "mentions": len(e["facts"])} for e in ranked[:limit]]

    def entity_records(self, entity_id: str, limit: int = 50) -> list[Record]:
        name = entity_id.removeprefix("entity:").lower()
        facts = [f for f in self._trusted(self.store.read()) if name in {n.lower() for n in f.get("entities", [])}]
        facts.sort(key=lambda f: (-float(f["trust"]), -int(f["id"])))
        return [self._record(f) for f in facts[:limit]]

    def feedback(self, record_id: str, helpful: bool) -> Record:
        """Helpful raises a fact's trust a little, wrong lowers it more; below minTrust it drops out of recall."""
        with self.store.change() as data:
            fact = data["facts"].get(str(record_id))
            if fact is None:
                raise SpaceError(f"fact {record_id} does not exist", status=404)
            step = HELPFUL_STEP if helpful else -WRONG_STEP
            fact["trust"] = round(max(0.0, min(1.0, float(fact["trust"]) + step)), 4)
            fact["updated_at"] = _now()
            fact.setdefault("feedback", {"helpful": 0, "wrong": 0})["helpful" if helpful else "wrong"] += 1
        return self._record(fact)

    def _neighbours(self, facts: list[dict[str, Any]]) -> dict[str, dict[str, tuple[str, float]]]:
        """Fact id → {other fact id: (edge type, weight)} through shared entities or token overlap."""
        links: dict[str, dict[str, tuple[str, float]]] = {str(f["id"]): {} for f in facts}
        bags = {str(f["id"]): tokens(f["content"]) for f in facts}
        names = {str(f["id"]): {n.lower() for n in f.get("entities", [])} for f in facts}
        ids = list(links)
        for i, a in enumerate(ids):
            for b in ids[i + 1:]:
                shared = names[a] & names[b]
                edge = ("entity", 1.0) if shared else ("semantic", round(jaccard(bags[a], bags[b]), 3))
                if edge[0] == "entity" or edge[1] >= SEMANTIC_LINK:
                    links[a][b] = links[b][a] = edge
        return links

    def graph(self, limit: int = 200) -> dict[str, Any]:
        facts = sorted(self._trusted(self.store.read()), key=lambda f: -float(f["trust"]))[:limit]
        nodes = [{"id": str(f["id"]), "label": f["content"][:60], "type": "fact", "trust": f["trust"]} for f in facts]
        edges, seen = [], set()
        for fact in facts:
            for name in fact.get("entities", []):
                key = f"entity:{name.lower()}"
                if key not in seen:
                    seen.add(key)
                    nodes.append({"id": key, "label": name, "type": "entity"})
                edges.append({"source": str(fact["id"]), "target": key, "type": "mentions", "weight": 1.0})
        for a, others in self._neighbours(facts).items():
            edges.extend({"source": a, "target": b, "type": "semantic", "weight": w}
                         for b, (kind, w) in others.items() if kind == "semantic" and a < b)
        return {"nodes": nodes, "edges": edges}

    def related(self, record_id: str, depth: int = 2) -> list[Record]:
        """Facts reachable within `depth` hops over shared entities and semantic overlap, nearest first."""
        facts = self._trusted(self.store.read())
        by_id = {str(f["id"]): f for f in facts}
        if str(record_id) not in by_id:
            raise ProviderError(f"fact {record_id} does not exist or is below the trust floor")
        links = self._neighbours(facts)
        hops, queue = {str(record_id): 0}, deque([str(record_id)])
        while queue:
            current = queue.popleft()
            if hops[current] >= depth:
                continue
            for other in links[current]:
                if other not in hops:
                    hops[other] = hops[current] + 1
                    queue.append(other)
        found = sorted((h, -float(by_id[i]["trust"]), i) for i, h in hops.items() if h > 0)
        return [self._record(by_id[i], score=round(float(by_id[i]["trust"]) / h, 4)) for h, _, i in found]
