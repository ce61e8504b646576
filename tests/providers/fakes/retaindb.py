"""A RetainDB API v1 server on loopback: project/user scoped memories with write, search, profile, get, delete.

Follows retaindb.com/docs (RetainDB API v1): the write reply is only {success, mode, trace_id}, with no id;
checked against tests/providers/fixtures/retaindb.json.
"""

from __future__ import annotations

from datetime import datetime, timezone

from tests.providers.fakes.base import FakeServer, Reply, Req, overlap

MEM = r"/v1/memory/(?P<mid>[^/]+)"


class RetainDBFake(FakeServer):
    extra_faults = ("wrongtypes", "missingfields")
    routes = (
        ("POST", r"/v1/memory", "write"),
        ("POST", r"/v1/memory/search", "search"),
        ("GET", r"/v1/memory/profile/(?P<user>[^/]+)", "profile"),
        ("GET", MEM, "get_one"),
        ("DELETE", MEM, "delete_one"),
    )

    def __init__(self) -> None:
        self.memories: dict[str, dict] = {}
        super().__init__()

    def error_body(self, status: int, message: str) -> dict:
        return {"error": {401: "Unauthorized", 404: "Not Found"}.get(status, "Error"), "message": message}

    def _scope(self, project: str | None, user: str | None) -> list[dict]:
        return [m for m in self.memories.values() if m["project"] == project and m["user_id"] == (user or "default")]

    def write(self, req: Req):
        body = req.body or {}
        if not body.get("project") or not isinstance(body.get("content"), str):
            raise Reply(400, "project and content are required")
        memory = {"id": self.new_id(), "project": body["project"], "user_id": body.get("user_id") or "default",
                  "content": body["content"], "memory_type": body.get("memory_type", "factual"),
                  "created_at": datetime.now(timezone.utc).isoformat()}
        self.memories[memory["id"]] = memory
        return 200, {"success": True, "mode": body.get("write_mode", "async"), "trace_id": self.new_id()}

    def search(self, req: Req):
        body = req.body or {}
        scored = [(overlap(body.get("query", ""), m["content"]), m)
                  for m in self._scope(body.get("project"), body.get("user_id"))]
        ranked = sorted((p for p in scored if p[0] > 0), key=lambda p: -p[0])[: min(int(body.get("top_k", 8)), 20)]
        results = [{"memory": {k: m[k] for k in ("id", "content", "memory_type")}, "score": s} for s, m in ranked]
        return 200, {"results": results, "count": len(results), "trace_id": self.new_id()}

    def profile(self, req: Req):
        if not req.params.get("project"):
            raise Reply(400, "project is required")
        return 200, {"user_id": req.groups["user"], "memories": self._scope(req.params["project"], req.groups["user"])}

    def _memory(self, req: Req) -> dict:
        memory = self.memories.get(req.groups["mid"])
        if not memory:
            raise Reply(404, "Memory not found")
        return memory

    def get_one(self, req: Req):
        return 200, {"memory": self._memory(req)}

    def delete_one(self, req: Req):
        del self.memories[self._memory(req)["id"]]
        return 200, {"success": True}
