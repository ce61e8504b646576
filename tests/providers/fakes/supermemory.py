"""A Supermemory server on loopback: container-tagged documents, extracted memory entries, search and forget.

With `extract` off, added documents stay "queued" without memories until extract_pending() runs, as when
Supermemory's background ingestion has not caught up.

Follows supermemory.ai's API reference (v3 documents, v4 search and memories); checked against
tests/providers/fixtures/supermemory.json.
"""

from __future__ import annotations

from datetime import datetime, timezone

from tests.providers.fakes.base import FakeServer, Reply, Req, overlap

DOC = r"/v3/documents/(?P<did>[^/]+)"


class SupermemoryFake(FakeServer):
    extra_faults = ("wrongtypes", "missingfields")
    routes = (
        ("POST", r"/v3/documents", "add_document"),
        ("POST", r"/v3/documents/list", "list_documents"),
        ("POST", r"/v3/documents/documents", "documents_with_memories"),
        ("GET", DOC, "get_document"),
        ("DELETE", DOC, "delete_document"),
        ("POST", r"/v4/search", "search"),
        ("POST", r"/v4/memories/list", "list_memories"),
        ("DELETE", r"/v4/memories", "forget_memory"),
    )

    def __init__(self) -> None:
        self.documents: dict[str, dict] = {}
        self.memories: dict[str, dict] = {}
        self.extract = True
        super().__init__()

    def error_body(self, status: int, message: str) -> dict:
        return {"error": {401: "Unauthorized", 404: "Not found"}.get(status, "Error"), "details": message}

    def extract_pending(self) -> None:
        """Finish ingestion: every queued document yields one memory entry holding its content."""
        with self.lock:
            for doc in self.documents.values():
                if doc["status"] != "done":
                    memory_id = self.new_id()
                    self.memories[memory_id] = {
                        "id": memory_id, "memory": doc["content"], "documentId": doc["id"],
                        "containerTag": doc["containerTags"][0], "metadata": doc["metadata"], "isForgotten": False,
                        "isLatest": True, "createdAt": _now(), "updatedAt": _now(), "relatedMemories": [],
                    }
                    doc["status"] = "done"

    def _tagged(self, req: Req) -> list[dict]:
        tags = (req.body or {}).get("containerTags") or []
        return [d for d in self.documents.values() if set(tags) & set(d["containerTags"])]

    def _live_memories(self, tag: str) -> list[dict]:
        return [m for m in self.memories.values() if m["containerTag"] == tag and not m["isForgotten"]]

    def add_document(self, req: Req):
        body = req.body or {}
        if not isinstance(body.get("content"), str) or not body.get("containerTag"):
            raise Reply(400, "content and containerTag are required")
        metadata = body.get("metadata") or {}
        if any(isinstance(v, (dict, list)) for v in metadata.values()):
            raise Reply(400, "metadata values must be strings, numbers or booleans")
        doc = {"id": self.new_id(), "customId": body.get("customId"), "containerTags": [body["containerTag"]],
               "content": body["content"], "title": metadata.get("title"), "summary": None, "metadata": metadata,
               "status": "queued", "type": "text", "createdAt": _now(), "updatedAt": _now()}
        self.documents[doc["id"]] = doc
        if self.extract:
            self.extract_pending()
        return 200, {"id": doc["id"], "status": "queued"}

    def list_documents(self, req: Req):
        docs = self._tagged(req)
        limit = int((req.body or {}).get("limit", 50))
        return 200, {"memories": [{k: v for k, v in d.items() if k != "content"} for d in docs[:limit]],
                     "pagination": {"currentPage": 1, "limit": limit, "totalItems": len(docs),
                                    "totalPages": max(1, -(-len(docs) // limit))}}

    def documents_with_memories(self, req: Req):
        docs = self._tagged(req)[: int((req.body or {}).get("limit", 50))]
        out = [{**d, "memoryEntries": [m for m in self.memories.values() if m["documentId"] == d["id"]]} for d in docs]
        return 200, {"documents": out, "pagination": {"currentPage": 1, "totalItems": len(out)}}

    def _document(self, req: Req) -> dict:
        doc = self.documents.get(req.groups["did"])
        if not doc:
            raise Reply(404, "Document not found")
        return doc

    def get_document(self, req: Req):
        return 200, self._document(req)

    def delete_document(self, req: Req):
        doc = self._document(req)
        del self.documents[doc["id"]]
        for memory_id in [m["id"] for m in self.memories.values() if m["documentId"] == doc["id"]]:
            del self.memories[memory_id]
        return 204, None

    def search(self, req: Req):
        body = req.body or {}
        query, tag, mode = body.get("q", ""), body.get("containerTag"), body.get("searchMode", "hybrid")
        hits = []
        if mode in ("hybrid", "memories"):
            hits += [(overlap(query, m["memory"]), {k: m[k] for k in ("id", "memory", "updatedAt", "metadata")})
                     for m in self._live_memories(tag)]
        if mode in ("hybrid", "documents"):
            hits += [(overlap(query, d["content"]), {"id": d["id"], "chunk": d["content"], "updatedAt": d["updatedAt"],
                                                     "metadata": d["metadata"]})
                     for d in self.documents.values() if tag in d["containerTags"]]
        ranked = sorted((h for h in hits if h[0] > 0), key=lambda h: -h[0])[: int(body.get("limit", 10))]
        return 200, {"results": [{**item, "similarity": score} for score, item in ranked], "total": len(ranked),
                     "timing": 3}

    def list_memories(self, req: Req):
        tags = (req.body or {}).get("containerTags") or []
        entries = [m for tag in tags for m in self._live_memories(tag)]
        return 200, {"memoryEntries": entries[: int((req.body or {}).get("limit", 50))],
                     "pagination": {"currentPage": 1, "totalItems": len(entries)}}

    def forget_memory(self, req: Req):
        body = req.body or {}
        memory = self.memories.get(body.get("id"))
        if not body.get("containerTag"):
            raise Reply(400, "containerTag is required")
        if not memory or memory["containerTag"] != body["containerTag"] or memory["isForgotten"]:
            raise Reply(404, "Memory not found")
        memory["isForgotten"] = True
        return 200, {"id": memory["id"], "forgotten": True}


def _now() -> str:
    return datetime.now(timezone.utc).isoformat()
