"""RetainDB adapter: exact memories in a project/user scope, written synchronously and read back before "committed".

RetainDB's documented write reply is only `{success, mode, trace_id}`: no memory id. So writes are "verified":
the adapter finds the memory it wrote by reading the user's profile back (exact content), and until that read
succeeds the write waits as `pending_verification` under its trace id.
"""

from __future__ import annotations

import hashlib
from typing import Any
from urllib.parse import quote

from providers.base import Capabilities, Field, Keeps, ProviderError, Receipt, Record, gettext_noop
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
    capabilities = Capabilities(search=True, browse=True, remember=True, get=True, write_mode="verified",
                                forget=True, deletion_mode="hard")
    keeps = Keeps()
    verifies_writes = True
    service_fields = (
        Field("endpoint", gettext_noop("Endpoint"), input="url", required=True, default="https://api.retaindb.com"),
        Field("apiKey", gettext_noop("API key"), input="secret", required=True, secret=True),
    )
    space_fields = (
        Field("project", gettext_noop("Project"), required=True),
        Field("userId", gettext_noop("User id"), default="default",
              help=gettext_noop("Memories are scoped to this user inside the project.")),
    )
    identity_fields = ("endpoint", "project", "userId")
    description = gettext_noop("Exact RetainDB memories in one project and user; hard delete.")

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

    def check(self) -> dict[str, Any]:
        """Service only: RetainDB documents no health route, so search the space's project (else `default`, which
        RetainDB makes itself) and require the documented answer, `{"results": [...], "count", "trace_id"}`.
        A 404 is no proof: any web server answers that (before, a wrong endpoint passed)."""
        body = {"project": str(self.config.get("project") or "default"), "user_id": self._user,
                "query": "connection test", "top_k": 1}
        found = self.http.post("/v1/memory/search", body, retry=True)
        pick(found, "results", list, "search result")
        return {"healthy": True, "project": body["project"]}

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
        detail["sha256"] = hashlib.sha256(text.encode("utf-8")).hexdigest()
        return self.verify(Receipt("pending_verification", provider_id=str(answer.get("trace_id") or ""),
                                   detail=detail))

    def verify(self, receipt: Receipt) -> Receipt:
        """Committed once the user's profile holds a memory with exactly the written text."""
        try:
            ids = self.resolve_write(receipt)
        except ProviderError as exc:
            if exc.permanent:
                raise
            return Receipt("pending_verification", provider_id=receipt.provider_id, uri=exc.uri, error=exc.message,
                           detail=receipt.detail)
        if not ids:
            return Receipt("pending_verification", provider_id=receipt.provider_id, detail=receipt.detail,
                           error="the written memory is not in the profile yet")
        return Receipt("committed", provider_id=ids[0], detail={**receipt.detail, "trace_id": receipt.provider_id})

    def resolve_write(self, receipt: Receipt) -> list[str]:
        wanted = receipt.detail.get("sha256")
        if not wanted:
            return [receipt.provider_id] if receipt.state == "committed" and receipt.provider_id else []
        return [text_id(item, what="memory") for item in self._profile() if isinstance(item, dict)
                and hashlib.sha256(str(item.get("content", "")).encode("utf-8")).hexdigest() == wanted][-1:]

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
