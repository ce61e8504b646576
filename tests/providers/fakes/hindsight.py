"""A loopback Hindsight 1.1 server (no LLM: one `world` unit per retained item; see research/hindsight-real.md).

Follows vectorize-io/hindsight's hindsight-docs/static/openapi.json and the responses recorded from a real
hindsight-api 1.1.0 (shared/research/hindsight-real.md); checked against tests/providers/fixtures/hindsight.json.
"""

from __future__ import annotations

import re
import uuid
from datetime import datetime, timezone

from tests.providers.fakes.openviking import LoopbackServer

BANK_ROUTE = re.compile(r"/v1/default/banks/([^/]+)(/.*)?")


def _now() -> str:
    return datetime.now(timezone.utc).isoformat()


class FakeHindsight(LoopbackServer):
    """Banks of memory units. `api_key` turns on Bearer auth; `has_stats=False` mimics an older server.

    Async retains stay invisible until the next request after the ack, like the real worker.
    """

    def __init__(self, api_key: str = "hs-secret") -> None:
        self.api_key = api_key
        self.has_stats = True
        self.banks: dict[str, dict] = {}
        self.operations: dict[str, dict] = {}
        self.pending: list[tuple[str, str, dict]] = []
        super().__init__()

    def route(self, method, path, query, body, headers):
        if path == "/health":
            return 200, {"status": "healthy", "database": "connected", "db_pool_in_use": 0}
        if path == "/version":
            return 200, {"api_version": "1.1.0", "features": {"observations": False}}
        auth = headers.get("authorization", "")
        if self.api_key and auth.removeprefix("Bearer ").strip() != self.api_key:
            return 401, {"detail": "Authentication failed: Invalid API key"}
        self._process()
        if method == "GET" and path == "/v1/default/banks":
            banks = [{"bank_id": b, "name": b, "fact_count": len(v["units"])} for b, v in self.banks.items()]
            return 200, {"banks": banks[: int(query.get("limit", 100))], "total": len(banks)}
        match = BANK_ROUTE.fullmatch(path)
        if not match:
            return 404, {"detail": "Not Found"}
        bank_id, rest = match.group(1), match.group(2) or ""
        if method == "POST" and rest == "/memories":
            return self._retain(bank_id, body)
        bank = self.banks.get(bank_id)
        if rest == "/stats" and not self.has_stats:
            return 404, {"detail": "Not Found"}
        if bank is None:
            return 404, {"detail": f"Bank '{bank_id}' not found"}
        units = bank["units"]
        valid = [u for u in units.values() if u["state"] == "valid"]
        if method == "POST" and rest == "/memories/recall":
            words = set(re.findall(r"\w+", body["query"].lower()))
            hits = [u for u in valid if words & set(re.findall(r"\w+", u["text"].lower()))]
            return 200, {"results": [self._recall_item(u) for u in hits], "trace": None,
                         "entities": None, "chunks": None, "source_facts": None}
        if method == "GET" and rest == "/memories/list":
            items = sorted(valid, key=lambda u: u["date"], reverse=True)
            if query.get("document_id"):
                items = [u for u in items if u["document_id"] == query["document_id"]]
            if query.get("entity_id"):
                items = [u for u in items if f"ent-{query['entity_id'].removeprefix('ent-')}" in
                         {f"ent-{n}" for n in u["entities"]}]
            off, lim = int(query.get("offset", 0)), int(query.get("limit", 100))
            return 200, {"items": [self._list_item(u) for u in items[off:off + lim]], "total": len(items),
                         "limit": lim, "offset": off}
        unit_match = re.fullmatch(r"/memories/([^/]+)", rest)
        if unit_match:
            unit = units.get(unit_match.group(1))
            if method == "DELETE":
                return 405, {"detail": "Method Not Allowed"}
            if unit is None:
                return 404, {"detail": f"Memory unit '{unit_match.group(1)}' not found"}
            if method == "PATCH":
                unit["state"] = body.get("state", unit["state"])
                unit["invalidation_reason"] = body.get("reason")
            return 200, {**self._recall_item(unit), "state": unit["state"],
                         "invalidation_reason": unit.get("invalidation_reason")}
        if rest == "/stats":
            return 200, {"bank_id": bank_id, "total_nodes": len(units), "total_links": 2 * len(units),
                         "total_documents": len(units), "nodes_by_fact_type": {"world": len(units)},
                         "links_by_link_type": {"semantic": len(units), "temporal": len(units)},
                         "pending_operations": 0, "failed_operations": 0, "total_observations": 0}
        if rest == "/entities":
            names = sorted({e for u in valid for e in u["entities"]})
            items = [{"id": f"ent-{n}", "canonical_name": n, "mention_count": sum(n in u["entities"] for u in valid),
                      "first_seen": _now(), "last_seen": _now(), "metadata": {}} for n in names]
            return 200, {"items": items, "total": len(items), "limit": 100, "offset": 0}
        if rest == "/graph":
            return 200, self._graph(valid)
        op_match = re.fullmatch(r"/operations/([^/]+)", rest)
        if op_match and op_match.group(1) in self.operations:
            return 200, self.operations[op_match.group(1)]
        return 404, {"detail": "Not Found"}

    def _retain(self, bank_id, body):
        if not isinstance(body, dict) or any("content" not in i for i in body.get("items", [])):
            return 422, {"detail": [{"type": "missing", "loc": ["body", "items", 0, "content"]}]}
        for item in body["items"]:
            if any(not isinstance(v, str) for v in (item.get("metadata") or {}).values()):
                return 422, {"detail": [{"type": "string_type", "msg": "Input should be a valid string"}]}
        self.banks.setdefault(bank_id, {"units": {}})
        op_id = body.get("operation_id") or str(uuid.uuid4())
        if op_id in self.operations:
            return 200, {"success": True, "bank_id": bank_id, "items_count": len(body["items"]), "async": True,
                         "operation_id": op_id, "operation_ids": None, "usage": None}
        for item in body["items"]:
            self.pending.append((bank_id, op_id, item))
        self.operations[op_id] = {"operation_id": op_id, "status": "pending", "operation_type": "batch_retain"}
        if not body.get("async"):
            self._process()
        return 200, {"success": True, "bank_id": bank_id, "items_count": len(body["items"]),
                     "async": bool(body.get("async")), "operation_id": op_id if body.get("async") else None,
                     "operation_ids": None, "usage": None}

    def _process(self):
        for bank_id, op_id, item in self.pending:
            unit_id = str(uuid.uuid4())
            self.banks[bank_id]["units"][unit_id] = {
                "id": unit_id, "text": item["content"], "context": item.get("context"), "date": _now(),
                "document_id": item.get("document_id"), "tags": item.get("tags") or [],
                "metadata": item.get("metadata") or {}, "entities": [e["text"] for e in item.get("entities") or []],
                "state": "valid", "mentioned_at": item.get("timestamp") or _now()}
            self.operations[op_id]["status"] = "completed"
        self.pending = []

    @staticmethod
    def _recall_item(u):
        return {"id": u["id"], "text": u["text"], "type": "world", "entities": u["entities"] or None,
                "context": u["context"], "mentioned_at": u["mentioned_at"], "document_id": u["document_id"],
                "metadata": u["metadata"], "tags": u["tags"],
                "scores": {"final": 1.0999999960595954, "reranker": None, "semantic": 0.4, "keyword": 0.3}}

    @staticmethod
    def _list_item(u):
        return {"id": u["id"], "text": u["text"], "context": u["context"], "date": u["date"], "fact_type": "world",
                "document_id": u["document_id"], "mentioned_at": u["mentioned_at"], "entities": ", ".join(u["entities"]),
                "tags": u["tags"], "metadata": u["metadata"], "state": u["state"]}

    @staticmethod
    def _graph(units):
        nodes = [{"data": {"id": u["id"], "label": u["text"][:30] + "...", "text": u["text"], "date": u["date"],
                           "entities": ", ".join(u["entities"]) or "None", "color": "#90caf9"}} for u in units]
        edges = [{"data": {"id": f"{u['id']}-{u['id']}-semantic", "source": u["id"], "target": u["id"],
                           "linkType": "semantic", "weight": 1.0}} for u in units]
        for a, b in zip(units, units[1:]):
            edges.append({"data": {"id": f"{a['id']}-{b['id']}-temporal", "source": a["id"], "target": b["id"],
                                   "linkType": "temporal", "weight": 0.99}})
        return {"nodes": nodes, "edges": edges, "table_rows": [], "total_units": len(units), "limit": 1000}
