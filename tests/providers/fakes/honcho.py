"""A Honcho v3 server on loopback: workspaces, peers, conclusions (create, list, query, delete), queue status.

Follows plastic-labs/honcho docs/v3/openapi.json (Honcho API 3.0.12) and its using-filters page (conclusions
filter on `id`); responses are checked against tests/providers/fixtures/honcho.json.
"""

from __future__ import annotations

import math
from datetime import datetime, timezone

from tests.providers.fakes.base import FakeServer, Reply, Req, overlap

WS = r"/v3/workspaces/(?P<ws>[^/]+)"


class HonchoFake(FakeServer):
    extra_faults = ("wrongtypes", "missingfields")
    routes = (
        ("POST", r"/v3/workspaces", "create_workspace"),
        ("POST", r"/v3/workspaces/list", "list_workspaces"),
        ("POST", WS + r"/peers", "create_peer"),
        ("GET", WS + r"/queue/status", "queue_status"),
        ("POST", WS + r"/conclusions", "create_conclusions"),
        ("POST", WS + r"/conclusions/list", "list_conclusions"),
        ("POST", WS + r"/conclusions/query", "query_conclusions"),
        ("DELETE", WS + r"/conclusions/(?P<cid>[^/]+)", "delete_conclusion"),
    )

    def __init__(self) -> None:
        self.workspaces: dict[str, dict] = {}
        self.peers: dict[tuple[str, str], dict] = {}
        self.conclusions: dict[str, dict] = {}
        self.workspace_of: dict[str, str] = {}  # conclusion id -> workspace (not a field of the documented Conclusion)
        super().__init__()

    def error_body(self, status: int, message: str) -> dict:
        return {"detail": message}

    def _workspace(self, req: Req) -> str:
        ws = req.groups["ws"]
        if ws not in self.workspaces:
            raise Reply(404, f"Workspace {ws} not found")
        return ws

    def create_workspace(self, req: Req):
        ws_id = (req.body or {}).get("id")
        if not isinstance(ws_id, str) or not ws_id:
            raise Reply(422, "id is required")
        workspace = self.workspaces.setdefault(ws_id, {"id": ws_id, "metadata": {}, "configuration": {},
                                                       "created_at": _now()})
        return 200, workspace

    def list_workspaces(self, req: Req):
        items = list(self.workspaces.values())
        page, size = int(req.params.get("page", 1)), int(req.params.get("size", 50))
        return 200, {"items": items[(page - 1) * size: page * size], "total": len(items), "page": page, "size": size,
                     "pages": max(1, math.ceil(len(items) / size))}

    def create_peer(self, req: Req):
        ws = self._workspace(req)
        peer_id = (req.body or {}).get("id")
        if not isinstance(peer_id, str) or not peer_id:
            raise Reply(422, "id is required")
        peer = self.peers.setdefault((ws, peer_id), {"id": peer_id, "workspace_id": ws, "metadata": {},
                                                      "configuration": {}, "created_at": _now()})
        return 200, peer

    def queue_status(self, req: Req):
        self._workspace(req)
        return 200, {"total_work_units": 0, "completed_work_units": 0, "in_progress_work_units": 0,
                     "pending_work_units": 0}

    def create_conclusions(self, req: Req):
        ws = self._workspace(req)
        created = []
        for item in (req.body or {}).get("conclusions") or []:
            for role in ("observer_id", "observed_id"):
                if (ws, item.get(role)) not in self.peers:
                    raise Reply(404, f"Peer {item.get(role)} not found")
            if not isinstance(item.get("content"), str):
                raise Reply(422, "content is required")
            conclusion = {"id": self.new_id()[:21], "content": item["content"], "observer_id": item["observer_id"],
                          "observed_id": item["observed_id"], "session_id": item.get("session_id"),
                          "level": "explicit", "created_at": _now()}
            self.conclusions[conclusion["id"]] = conclusion
            self.workspace_of[conclusion["id"]] = ws
            created.append(conclusion)
        return 201, created

    def _scoped(self, req: Req) -> list[dict]:
        ws = self._workspace(req)
        filters = (req.body or {}).get("filters") or {}
        return [c for c in self.conclusions.values()
                if self.workspace_of[c["id"]] == ws and all(c.get(k) == v for k, v in filters.items())]

    def list_conclusions(self, req: Req):
        items = self._scoped(req)
        page, size = int(req.params.get("page", 1)), int(req.params.get("size", 50))
        chunk = items[(page - 1) * size: page * size]
        return 200, {"items": chunk, "total": len(items), "page": page, "size": size,
                     "pages": max(1, math.ceil(len(items) / size))}

    def query_conclusions(self, req: Req):
        query = (req.body or {}).get("query", "")
        ranked = sorted(((overlap(query, c["content"]), c) for c in self._scoped(req)), key=lambda p: -p[0])
        return 200, [c for score, c in ranked if score > 0][: int((req.body or {}).get("top_k", 10))]

    def delete_conclusion(self, req: Req):
        ws = self._workspace(req)
        conclusion = self.conclusions.get(req.groups["cid"])
        if not conclusion or self.workspace_of[conclusion["id"]] != ws:
            raise Reply(404, "Conclusion not found")
        del self.conclusions[conclusion["id"]]
        return 204, None


def _now() -> str:
    return datetime.now(timezone.utc).isoformat()
