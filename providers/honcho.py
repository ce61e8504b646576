"""Honcho v3 adapter: a space is one observer→observed peer pair in a workspace; memories are its conclusions."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from providers.base import Capabilities, Field, Keeps, ProviderError, Receipt, Record, SpaceError, gettext_noop
from providers.http import HttpProvider, expect, failed_write, pick, text_id

PAGE_MAX = 100


class HonchoProvider(HttpProvider):
    kind = "honcho"
    label = "Honcho"
    locality = "remote"
    workspace_binding = "provider-global"
    score_semantics = "native"
    capabilities = Capabilities(search=True, browse=True, remember=True, get=True, write_mode="exact", forget=True,
                                deletion_mode="hard")
    keeps = Keeps()
    service_fields = (
        Field("endpoint", gettext_noop("Endpoint"), input="url", required=True, default="https://api.honcho.dev",
              help=gettext_noop("Honcho API base URL (a local server is usually http://localhost:8000).")),
        Field("apiKey", gettext_noop("API key"), input="secret", secret=True,
              help=gettext_noop("Sent as a Bearer token; empty for local servers.")),
    )
    space_fields = (
        Field("workspace", gettext_noop("Workspace"), required=True),
        Field("userId", gettext_noop("User peer id"), required=True,
              help=gettext_noop("The peer the conclusions are about.")),
        Field("agentId", gettext_noop("Agent peer id"),
              help=gettext_noop("The observing peer; empty means the user peer observes itself.")),
    )
    identity_fields = ("endpoint", "workspace", "userId", "agentId")
    description = gettext_noop("Exact peer conclusions in a Honcho v3 workspace, hard-deleted on forget.")

    def __init__(self, config: dict[str, Any] | None = None, space: Any = None):
        super().__init__(config, space)
        self._peers_ready = False

    def endpoint(self) -> str:
        return str(self.config.get("endpoint") or "").rstrip("/").removesuffix("/v3")

    def auth_headers(self) -> dict[str, str]:
        key = self.api_key(required=False)
        return {"Authorization": f"Bearer {key}"} if key else {}

    # -- scope ---------------------------------------------------------------------------------


    @property
    def _ws_path(self) -> str:
        return f"/v3/workspaces/{quote(self.setting('workspace'), safe='')}"

    @property
    def _scope(self) -> dict[str, str]:
        observed = self.setting("userId")
        observer = str(self.config.get("agentId") or "").strip() or observed
        return {"observer_id": observer, "observed_id": observed}

    def _ensure_peers(self) -> None:
        """Get-or-create the workspace and both peers once, so conclusions have somewhere to live."""
        if self._peers_ready:
            return
        self._ensure_workspace()
        for peer in set(self._scope.values()):
            created = self.http.post(f"{self._ws_path}/peers", {"id": peer}, retry=True)
            if text_id(created, what="peer") != peer:
                raise ProviderError("Honcho answered a different peer than requested")
        self._peers_ready = True

    def _ensure_workspace(self) -> dict[str, Any]:
        workspace = self.http.post("/v3/workspaces", {"id": self.setting("workspace")}, retry=True)
        if text_id(workspace, what="workspace") != self.setting("workspace"):
            raise ProviderError("Honcho answered a different workspace than requested")
        return workspace

    # -- contract --------------------------------------------------------------------------------

    def status(self) -> dict[str, Any]:
        self._ensure_workspace()
        page = self._list_page(1, 1)
        queue = self.http.get(f"{self._ws_path}/queue/status")
        return {
            "healthy": True,
            "workspace": self.setting("workspace"),
            "conclusions": pick(page, "total", int, "conclusions page", default=len(page["items"])),
            "pending_work_units": pick(queue, "pending_work_units", int, "queue status", default=0),
        }

    def check(self) -> dict[str, Any]:
        """Service only: list workspaces (POST /v3/workspaces/list), which needs a valid key and nothing else."""
        page = self.http.post("/v3/workspaces/list", {}, params={"page": 1, "size": 1}, retry=True)
        pick(page, "items", list, "workspaces page")  # Honcho's page shape; another server's answer fails here
        return {"healthy": True, "workspaces": pick(page, "total", int, "workspaces page", default=0)}

    def search(self, query: str, limit: int = 10, **filters: Any) -> list[Record]:
        body = {"query": query, "top_k": max(1, min(int(limit), PAGE_MAX)), "filters": self._scope}
        found = expect(self.http.post(f"{self._ws_path}/conclusions/query", body, retry=True), list, "query result")
        return [self._record(item) for item in found]

    def browse(self, limit: int = 50, offset: int = 0, **filters: Any) -> list[Record]:
        size = max(1, min(int(limit), PAGE_MAX))
        first_page = offset // size + 1
        items: list[Any] = []
        for page in (first_page, first_page + 1):
            data = self._list_page(page, size)
            items.extend(data["items"])
            if len(data["items"]) < size or page >= pick(data, "pages", int, "conclusions page", default=page):
                break
        skip = offset - (first_page - 1) * size
        return [self._record(item) for item in items[skip:skip + size]]

    def get(self, record_id: str) -> Record:
        """Honcho has no single-conclusion GET; its list route filters on `id` (documented filterable text field)."""
        data = self.http.post(f"{self._ws_path}/conclusions/list", {"filters": {**self._scope, "id": str(record_id)}},
                              params={"page": 1, "size": 1}, retry=True)
        items = pick(data, "items", list, "conclusions page")
        if not items:
            raise SpaceError(f"Honcho has no conclusion {record_id} in this space", status=404)
        return self._record(items[0])

    def remember(self, text: str, *, title: str = "", category: str = "general",
                 tags: list[str] | None = None, at: str = "", **extra: Any) -> Receipt:
        self._ensure_peers()
        body = {"conclusions": [{"content": text, **self._scope}]}
        try:
            created = self.http.post(f"{self._ws_path}/conclusions", body)
        except ProviderError as exc:
            return failed_write(exc)
        created = expect(created, list, "created conclusions")
        dropped = [name for name, value in (("title", title), ("tags", tags), ("at", at)) if value]
        if len(created) != 1:
            raise ProviderError(f"Honcho created {len(created)} conclusions for one write")
        record = self._record(created[0])
        if record.text != text:
            return Receipt("pending_verification", provider_id=record.id, error="Honcho stored different text",
                           detail={"dropped": dropped})
        return Receipt("committed", provider_id=record.id, detail={"dropped": dropped})

    def forget(self, record_id: str) -> None:
        self.http.delete(f"{self._ws_path}/conclusions/{quote(str(record_id), safe='')}")

    # -- parsing ---------------------------------------------------------------------------------

    def _list_page(self, page: int, size: int) -> dict[str, Any]:
        data = self.http.post(f"{self._ws_path}/conclusions/list", {"filters": self._scope},
                              params={"page": page, "size": size}, retry=True)
        pick(data, "items", list, "conclusions page")
        return data

    def _record(self, item: Any) -> Record:
        return Record(
            id=text_id(item, what="conclusion"),
            text=pick(item, "content", str, "conclusion"),
            at=pick(item, "created_at", str, "conclusion", default=""),
            extra={key: item[key] for key in ("observer_id", "observed_id", "session_id", "level") if key in item},
        )
