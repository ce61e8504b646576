"""A Mem0 server on loopback speaking both the Platform v1/v3 routes and the self-hosted REST routes.

Platform routes check `Authorization: Token <key>`, self-hosted ones `X-API-Key`. Extraction is asynchronous:
with `defer` set, adds wait in a queue until process() runs; otherwise each message becomes a memory at once.

Follows docs.mem0.ai's API reference (v3 add and search, GET /v1/event/{event_id}/, v1 memory get/delete,
GET /v1/ping/) and the self-hosted server's routes (mem0ai/mem0 server/main.py); responses are checked against
tests/providers/fixtures/mem0.json.
"""

from __future__ import annotations

import math
from datetime import datetime, timezone

from tests.providers.fakes.base import FakeServer, Reply, Req, overlap

MEM = r"(?P<mid>[^/]+)"


class Mem0Fake(FakeServer):
    extra_faults = ("wrongtypes", "missingfields")
    routes = (
        ("GET", r"/v1/ping", "ping"),
        ("GET", r"/v1/event/(?P<eid>[^/]+)", "get_event"),
        ("POST", r"/v3/memories/add", "add"),
        ("POST", r"/v3/memories/search", "search"),
        ("POST", r"/v3/memories", "list_platform"),
        ("GET", r"/v1/memories/" + MEM, "get_one"),
        ("DELETE", r"/v1/memories/" + MEM, "delete_one"),
        ("POST", r"/memories", "add"),
        ("GET", r"/memories", "list_self_hosted"),
        ("POST", r"/search", "search"),
        ("GET", r"/memories/" + MEM, "get_one"),
        ("DELETE", r"/memories/" + MEM, "delete_one"),
        ("GET", r"/openapi\.json", "openapi"),
    )

    def __init__(self) -> None:
        self.memories: dict[str, dict] = {}
        self.queue: list[dict] = []
        self.events: dict[str, dict] = {}
        self.defer = False
        self.searches: list[dict] = []
        super().__init__()

    def authorized(self, req: Req) -> bool:
        if req.path == "/openapi.json":  # FastAPI serves its description to anyone
            return True
        if req.path.startswith(("/v1/", "/v3/")):
            return req.headers.get("authorization") == f"Token {self.api_key}"
        return req.headers.get("x-api-key") == self.api_key

    def error_body(self, status: int, message: str) -> dict:
        return {"detail": message}

    def process(self) -> None:
        """Run the queued extractions: each user message becomes one memory."""
        with self.lock:
            for job in self.queue:
                results = []
                for message in job["messages"]:
                    memory_id = self.new_id()
                    self.memories[memory_id] = {
                        "id": memory_id, "memory": message["content"], "user_id": job.get("user_id"),
                        "agent_id": job.get("agent_id"), "metadata": job.get("metadata") or None,
                        "categories": [], "created_at": _now(), "updated_at": _now(),
                    }
                    results.append({"id": memory_id, "event": "ADD", "data": {"memory": message["content"]}})
                event = self.events.get(job.get("_event_id", ""))
                if event is not None:
                    event.update(status="SUCCEEDED", results=results, completed_at=_now(), updated_at=_now())
            self.queue.clear()

    def get_event(self, req: Req):
        event = self.events.get(req.groups["eid"])
        if not event:
            raise Reply(404, "Event not found")
        return 200, event

    def _user_filter(self, body: dict) -> str:
        user = ((body or {}).get("filters") or {}).get("user_id")
        if not user:
            raise Reply(400, "filters must contain at least one of user_id, agent_id, app_id, run_id")
        return user

    def openapi(self, req: Req):
        """The self-hosted server is a FastAPI app titled "Mem0 REST APIs" (mem0ai/mem0 server/main.py)."""
        return 200, {"openapi": "3.1.0", "info": {"title": "Mem0 REST APIs", "version": "1.0.0"}, "paths": {}}

    def ping(self, req: Req):
        return 200, {"status": "ok", "org_id": "org-1", "project_id": "proj-1", "user_email": "dev@example.org"}

    def add(self, req: Req):
        body = req.body or {}
        if not body.get("messages") or not body.get("user_id"):
            raise Reply(400, "messages and an entity id are required")
        event_id = self.new_id()
        self.events[event_id] = {"id": event_id, "event_type": "ADD", "status": "PENDING", "payload": body,
                                 "metadata": {}, "results": [], "created_at": _now(), "updated_at": _now(),
                                 "started_at": None, "completed_at": None, "latency": None}
        self.queue.append({**body, "_event_id": event_id})
        if not self.defer:
            self.process()
        if req.path.startswith("/v3/"):
            return 200, {"message": "Memory processing has been queued for background execution",
                         "status": "PENDING", "event_id": event_id}
        return 200, {"results": [{"id": m["id"], "memory": m["memory"], "event": "ADD"}
                                 for m in list(self.memories.values())[-len(body["messages"]):]]}

    def _of(self, user: str) -> list[dict]:
        return [m for m in self.memories.values() if m["user_id"] == user]

    def search(self, req: Req):
        body = req.body or {}
        self.searches.append(body)
        scored = [(overlap(body.get("query", ""), m["memory"]), m) for m in self._of(self._user_filter(body))]
        ranked = sorted((p for p in scored if p[0] > 0), key=lambda p: -p[0])[: int(body.get("top_k", 10))]
        return 200, {"results": [{**m, "score": round(score, 4)} for score, m in ranked]}

    def list_platform(self, req: Req):
        items = self._of(self._user_filter(req.body))
        page, size = int(req.params.get("page", 1)), int(req.params.get("page_size", 100))
        more = page < math.ceil(len(items) / size)
        return 200, {"count": len(items), "next": f"/v3/memories/?page={page + 1}" if more else None,
                     "previous": None if page == 1 else f"/v3/memories/?page={page - 1}",
                     "results": items[(page - 1) * size: page * size]}

    def list_self_hosted(self, req: Req):
        if not req.params.get("user_id"):
            raise Reply(400, "At least one identifier (user_id, agent_id, run_id) is required.")
        return 200, {"results": self._of(req.params["user_id"])}

    def _memory(self, req: Req) -> dict:
        memory = self.memories.get(req.groups["mid"])
        if not memory:
            raise Reply(404, "Memory not found")
        return memory

    def get_one(self, req: Req):
        return 200, self._memory(req)

    def delete_one(self, req: Req):
        del self.memories[self._memory(req)["id"]]
        return 200, {"message": "Memory deleted successfully!"}


def _now() -> str:
    return datetime.now(timezone.utc).isoformat()
