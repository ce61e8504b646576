"""Hindsight adapter: one memory bank; async retain, recall, the bank's real stats/entities/graph, soft invalidation."""

from __future__ import annotations

import uuid
from typing import Any
from urllib.parse import quote

from providers.base import Capabilities, Field, Keeps, ProviderError, Receipt, Record, SpaceConfigError, gettext_noop
from providers.http import HttpProvider

BUDGETS = ("low", "mid", "high")


def _entity_list(value: Any) -> list[str]:
    """Entities come as a list (recall/get), a comma string (list) or "None" (graph); normalise them."""
    if isinstance(value, list):
        return [str(v) for v in value if v]
    if isinstance(value, str) and value not in ("", "None"):
        return [v.strip() for v in value.split(",") if v.strip()]
    return []


class HindsightProvider(HttpProvider):
    kind = "hindsight"
    label = "Hindsight"
    locality = "remote"
    workspace_binding = "provider-global"
    score_semantics = "normalized"
    capabilities = Capabilities(search=True, browse=True, graph=True, entities=True, related=True, remember=True,
                                get=True, write_mode="async", forget=True, deletion_mode="invalidate")
    keeps = Keeps(text="extracted", title=True, category=True, tags=True, dates=True)
    service_fields = (
        Field('endpoint', gettext_noop('Endpoint'), input='url', required=True),
        Field('apiKey', gettext_noop('API key'), input='secret', secret=True),
    )
    space_fields = (
        Field('bankId', gettext_noop('Bank id'), required=True),
        Field('budget', gettext_noop('Recall budget'), input='select', default='mid', options=BUDGETS),
    )
    identity_fields = ("endpoint", "bankId")
    description = gettext_noop(
        "Hindsight memory bank: asynchronous retain, hybrid recall, the provider's own knowledge graph "
        "and entity catalogue; forgetting invalidates (soft delete).")

    def auth_headers(self) -> dict[str, str]:
        key = self.api_key(required=False)
        return {"Authorization": f"Bearer {key}"} if key else {}

    @classmethod
    def space_rules(cls, config: dict[str, Any]) -> dict[str, str]:
        bank = str(config.get("bankId") or "").strip()
        return {"bankId": "must not contain / or be . or .."} if bank and ("/" in bank or bank in (".", "..")) else {}

    @property
    def bank(self) -> str:
        bank = str(self.config.get("bankId") or "").strip()
        if not bank or "/" in bank or bank in (".", ".."):
            raise SpaceConfigError(f"Hindsight space setting 'bankId' is missing or not valid ({bank!r})", key="bankId")
        return f"/v1/default/banks/{quote(bank, safe='')}"

    @property
    def budget(self) -> str:
        budget = str(self.config.get("budget") or "mid")
        if budget not in BUDGETS:
            raise SpaceConfigError(f"budget must be one of {', '.join(BUDGETS)}, got {budget!r}", key="budget")
        return budget

    def _dict(self, data: Any, what: str) -> dict[str, Any]:
        if not isinstance(data, dict):
            raise ProviderError(f"Hindsight answered {what} in an invalid shape")
        return data

    def _items(self, data: Any, key: str, what: str) -> list[dict[str, Any]]:
        items = self._dict(data, what).get(key)
        if not isinstance(items, list):
            raise ProviderError(f"Hindsight answered {what} without a {key} list")
        return [i for i in items if isinstance(i, dict) and i.get("id")]

    def status(self) -> dict[str, Any]:
        """Liveness from /health, plus the bank's stats when the server has that endpoint."""
        health = self._dict(self.http.get("/health"), "/health")
        if health.get("status") != "healthy":
            raise ProviderError(f"Hindsight reports {health.get('status')!r}")
        return {"healthy": True, "database": health.get("database", ""), "stats": self.stats()}

    def check(self) -> dict[str, Any]:
        """Service only: /health (no key needed), then the documented bank list proves the key."""
        health = self._dict(self.http.get("/health"), "/health")
        banks = self._dict(self.http.get("/v1/default/banks", params={"limit": 1}), "bank list")
        if not isinstance(banks.get("banks"), list):  # Hindsight's documented list; another server fails here
            raise ProviderError("Hindsight answered the bank list without a banks list")
        return {"healthy": health.get("status") == "healthy", "database": str(health.get("database", "")),
                "banks": banks.get("total", len(banks["banks"]))}

    def stats(self) -> dict[str, Any] | None:
        """The bank's real counters, or None on older servers (or a bank not created yet)."""
        data = self._bank_read("GET", "/stats")
        return None if data is None else self._dict(data, "stats")

    def entities(self, limit: int = 100) -> list[dict[str, Any]]:
        data = self._bank_read("GET", "/entities", params={"limit": limit})
        if data is None:
            return []
        return [{"id": str(e["id"]), "name": str(e.get("canonical_name", "")), "mentions": e.get("mention_count", 0),
                 "first_seen": e.get("first_seen"), "last_seen": e.get("last_seen")}
                for e in self._items(data, "items", "entities")]

    def entity_records(self, entity_id: str, limit: int = 50) -> list[Record]:
        data = self._bank_read("GET", "/memories/list", params={"entity_id": entity_id, "limit": limit})
        return [] if data is None else [self._record(item) for item in self._items(data, "items", "memory list")]

    def _record(self, item: dict[str, Any], score: float | None = None) -> Record:
        metadata = item.get("metadata") if isinstance(item.get("metadata"), dict) else {}
        return Record(id=str(item["id"]), text=str(item.get("text", "")), title=str(metadata.get("title", "")),
                      category=str(metadata.get("category") or "general"),
                      at=str(item.get("mentioned_at") or item.get("date") or ""),
                      tags=[str(t) for t in item.get("tags") or []], score=score,
                      extra={"type": item.get("type") or item.get("fact_type"), "document_id": item.get("document_id"),
                             "entities": _entity_list(item.get("entities")), "state": item.get("state", "valid")})

    def _bank_read(self, method: str, path: str, **kw: Any) -> Any:
        """A read of the bank; None while the bank does not exist (the first retain creates it)."""
        try:
            return self.http.request(method, f"{self.bank}{path}", **kw)
        except ProviderError as exc:
            if exc.status == 404:
                return None
            raise

    def search(self, query: str, limit: int = 10, **filters: Any) -> list[Record]:
        data = self._bank_read("POST", "/memories/recall", json_body={"query": query, "budget": self.budget,
                                                                       "max_tokens": 4096}, retry=True)
        if data is None:
            return []
        records = []
        for item in self._items(data, "results", "recall")[:limit]:
            final = (item.get("scores") or {}).get("final") if isinstance(item.get("scores"), dict) else None
            score = max(0.0, min(1.0, float(final))) if isinstance(final, (int, float)) else None
            records.append(self._record(item, score))
        return records

    def browse(self, limit: int = 50, offset: int = 0, **filters: Any) -> list[Record]:
        data = self._bank_read("GET", "/memories/list", params={"limit": limit, "offset": offset})
        if data is None:
            return []
        return [self._record(item) for item in self._items(data, "items", "memory list")]

    def get(self, record_id: str) -> Record:
        item = self._dict(self.http.get(f"{self.bank}/memories/{quote(record_id, safe='')}"), "memory")
        if not item.get("id"):
            raise ProviderError("Hindsight answered a memory without an id")
        return self._record(item)

    def remember(self, text: str, *, title: str = "", category: str = "general",
                 tags: list[str] | None = None, at: str = "", **extra: Any) -> Receipt:
        """Async retain under its own document id; a client operation id makes a resend harmless."""
        document_id, operation_id = f"memoryhub-{uuid.uuid4().hex}", str(uuid.uuid4())
        item: dict[str, Any] = {"content": text, "document_id": document_id, "tags": list(tags or []),
                                "metadata": {"source": "memoryhub", "category": str(category), "title": str(title)}}
        if title:
            item["context"] = title
        if at:
            item["timestamp"] = at
        detail = {"document_id": document_id, "operation_id": operation_id, "bank_id": str(self.config.get("bankId"))}
        uri = f"{self.http.endpoint}{self.bank}/memories"
        try:
            data = self.http.post(f"{self.bank}/memories", {"items": [item], "async": True, "operation_id": operation_id},
                                  retry=True)
        except ProviderError as exc:
            if exc.permanent:
                raise
            status = exc.status
            state = "failed" if status is not None and 400 <= status < 500 else "unknown"
            return Receipt(state, uri=uri, error=exc.message, detail=detail)
        if not isinstance(data, dict) or data.get("success") is not True:
            return Receipt("unknown", uri=uri, error=f"POST {uri} did not confirm the retain", detail=detail)
        detail["operation_id"] = str(data.get("operation_id") or operation_id)
        return Receipt("accepted", provider_id=document_id, uri=uri, detail=detail)

    def resolve_write(self, receipt: Receipt) -> list[str]:
        """The memory units retained under the write's own document id; none until the operation has run."""
        document_id = str(receipt.detail.get("document_id") or receipt.provider_id or "")
        if not document_id:
            return []
        data = self._bank_read("GET", "/memories/list", params={"document_id": document_id, "limit": 100})
        return [] if data is None else [str(item["id"]) for item in self._items(data, "items", "memory list")]

    def forget(self, record_id: str) -> None:
        """Invalidate (Hindsight has no per-memory delete); reversible on the provider's side."""
        self._dict(self.http.request("PATCH", f"{self.bank}/memories/{quote(record_id, safe='')}",
                                     json_body={"state": "invalidated", "reason": "forgotten in memoryhub"}),
                   "invalidate")

    def graph(self, limit: int = 200) -> dict[str, Any]:
        data = self._bank_read("GET", "/graph", params={"limit": limit})
        if data is None:
            return {"nodes": [], "edges": []}
        data = self._dict(data, "graph")
        nodes, edges = data.get("nodes"), data.get("edges")
        if not isinstance(nodes, list) or not isinstance(edges, list):
            raise ProviderError("Hindsight answered a graph without nodes and edges")
        out_nodes = []
        for node in nodes:
            d = node.get("data") if isinstance(node, dict) else None
            if isinstance(d, dict) and d.get("id"):
                out_nodes.append({"id": str(d["id"]), "label": str(d.get("label", "")), "text": str(d.get("text", "")),
                                  "entities": _entity_list(d.get("entities"))})
        out_edges = []
        for edge in edges:
            d = edge.get("data") if isinstance(edge, dict) else None
            if isinstance(d, dict) and d.get("source") and d.get("target") and d["source"] != d["target"]:
                out_edges.append({"source": str(d["source"]), "target": str(d["target"]),
                                  "type": str(d.get("linkType", "")), "weight": d.get("weight")})
        return {"nodes": out_nodes, "edges": out_edges}

    def related(self, record_id: str, depth: int = 2) -> list[Record]:
        """Memories within `depth` hops of `record_id` in the bank's own graph."""
        graph = self.graph(limit=1000)
        neighbours: dict[str, set[str]] = {}
        for e in graph["edges"]:
            neighbours.setdefault(e["source"], set()).add(e["target"])
            neighbours.setdefault(e["target"], set()).add(e["source"])
        seen, frontier = {record_id}, {record_id}
        for _ in range(max(depth, 0)):
            frontier = {n for f in frontier for n in neighbours.get(f, ())} - seen
            seen |= frontier
        by_id = {n["id"]: n for n in graph["nodes"]}
        return [Record(id=i, text=by_id[i]["text"], extra={"entities": by_id[i]["entities"]})
                for i in sorted(seen - {record_id}) if i in by_id]
