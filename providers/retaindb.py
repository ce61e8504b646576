"""RetainDB adapter: exact memories in a project/user scope, written synchronously and read back before "committed"."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from providers.base import Capabilities, Field, ProviderError, Receipt, Record
from providers.http import HttpProvider, expect, failed_write, pick, text_id

MEMORY_TYPES = {"preference": "preference", "goal": "goal", "instruction": "instruction", "event": "event",
                "context": "event", "opinion": "opinion", "insight": "opinion", "decision": "opinion"}
SEARCH_MAX = 20


class RetainDBProvider(HttpProvider):
    kind = "retaindb"
    label = "RetainDB"
    locality = "remote"
    workspace_binding = "provider-global"
    score_semantics = "normalized"
    capabilities = Capabilities(search=True, browse=True, remember=True, write_mode="exact", forget=True,
                                deletion_mode="hard")
    service_fields = (
        Field("endpoint", "Endpoint", input="url", required=True, default="https://api.retaindb.com"),
        Field("apiKey", "API key", input="secret", required=True, secret=True),
    )
    space_fields = (
        Field("project", "Project", required=True),
        Field("userId", "User id", default="default", help="Memories are scoped to this user inside the project."),
    )
    description = "Exact RetainDB memories in one project and user; hard delete."

    def auth_headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.api_key()}"}

    @property
    def _project(self) -> str:
        return self.setting("project")

    @property
    def _user(self) -> str:
        return str(self.config.get("userId") or "").strip() or "default"

    # -- contract --------------------------------------------------------------------------------

    def status(self) -> dict[str, Any]:
        return {"healthy": True, "project": self._project, "memories": len(self._profile())}

    def search(self, query: str, limit: int = 10, **filters: Any) -> list[Record]:
        body = {"project": self._project, "user_id": self._user, "query": query,
                "top_k": max(1, min(int(limit), SEARCH_MAX)), "include_pending": True}
        found = pick(self.http.post("/v1/memory/search", body, retry=True), "results", list, "search result")
        records = []
        for hit in found:
            record = self._record(pick(hit, "memory", dict, "search hit"))
            score = pick(hit, "score", (int, float), "search hit", default=None)
            record.score = None if score is None else float(score)
            records.append(record)
        return records

    def browse(self, limit: int = 50, offset: int = 0, **filters: Any) -> list[Record]:
        start = max(0, int(offset))
        return [self._record(item) for item in self._profile()[start:start + max(1, int(limit))]]

    def get(self, record_id: str) -> Record:
        data = self.http.get(self._path(record_id))
        item = data["memory"] if isinstance(data, dict) and isinstance(data.get("memory"), dict) else data
        record = self._record(item)
        for key, expected in (("project", self._project), ("user_id", self._user)):
            if record.extra.get(key) not in (None, expected):
                raise ProviderError(f"RetainDB memory {record_id} belongs to another {key}")
        return record

    def remember(self, text: str, *, title: str = "", category: str = "general",
                 tags: list[str] | None = None, at: str = "", **extra: Any) -> Receipt:
        body = {"project": self._project, "user_id": self._user, "content": text,
                "memory_type": MEMORY_TYPES.get(category, "factual"), "write_mode": "sync"}
        try:
            answer = expect(self.http.post("/v1/memory", body), dict, "write result")
        except ProviderError as exc:
            return failed_write(exc)
        dropped = [name for name, value in (("title", title), ("tags", tags), ("at", at)) if value]
        detail = {"dropped": dropped, **{k: answer[k] for k in ("trace_id", "mode") if isinstance(answer.get(k), str)}}
        if answer.get("success") is False:
            return Receipt("failed", error=str(answer.get("message") or answer.get("error") or "write refused"),
                           detail=detail)
        memory_id = _memory_id(answer)
        if not memory_id:
            return Receipt("pending_verification", error="RetainDB did not return the memory id", detail=detail)
        try:
            stored = self.get(memory_id)
        except ProviderError as exc:
            return Receipt("pending_verification", provider_id=memory_id, uri=exc.uri, error=exc.message, detail=detail)
        if stored.text != text:
            return Receipt("pending_verification", provider_id=memory_id, error="read-back text differs",
                           detail=detail)
        return Receipt("committed", provider_id=memory_id, detail=detail)

    def forget(self, record_id: str) -> None:
        self.get(record_id)
        self.http.delete(self._path(record_id))

    # -- parsing ---------------------------------------------------------------------------------

    def _path(self, record_id: str) -> str:
        return f"/v1/memory/{quote(str(record_id), safe='')}"

    def _profile(self) -> list[Any]:
        data = self.http.get(f"/v1/memory/profile/{quote(self._user, safe='')}",
                             params={"project": self._project, "include_pending": "true"})
        return pick(data, "memories", list, "profile")

    def _record(self, item: Any) -> Record:
        kind = pick(item, "memory_type", str, "memory", default="factual")
        return Record(
            id=text_id(item, what="memory"),
            text=pick(item, "content", str, "memory"),
            category=kind,
            at=pick(item, "created_at", str, "memory", default=""),
            extra={k: item[k] for k in ("project", "user_id", "session_id", "importance") if k in item},
        )


def _memory_id(answer: dict[str, Any]) -> str:
    """The new memory's id: RetainDB's documented reply has only success/mode/trace_id, so accept the usual spots."""
    memory = answer.get("memory")
    for value in (answer.get("id"), answer.get("memory_id"), memory.get("id") if isinstance(memory, dict) else None):
        if isinstance(value, (str, int)) and not isinstance(value, bool) and str(value):
            return str(value)
    return ""
