"""Mem0 adapter: Platform v3 (`Authorization: Token`) or the self-hosted REST server (`X-API-Key`).

Writes go through Mem0's extraction, so a write is only ever "accepted"; reads and deletes are scoped by user_id.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from providers.base import Capabilities, Field, Keeps, ProviderError, Receipt, Record, SpaceError, gettext_noop
from providers.http import HttpProvider, expect, failed_write, pick, text_id

MODES = ("platform", "self-hosted")
PAGE_MAX = 100


class Mem0Provider(HttpProvider):
    kind = "mem0"
    label = "Mem0"
    locality = "remote"
    workspace_binding = "provider-global"
    score_semantics = "normalized"
    capabilities = Capabilities(search=True, browse=True, remember=True, get=True, write_mode="async", forget=True,
                                deletion_mode="hard")
    keeps = Keeps(text="extracted", title=True, category=True, tags=True, dates=True)
    service_fields = (
        Field("endpoint", gettext_noop("Endpoint"), input="url", required=True, default="https://api.mem0.ai",
              help=gettext_noop("https://api.mem0.ai for the Platform, or your self-hosted server's URL.")),
        Field("apiKey", gettext_noop("API key"), input="secret", secret=True,
              help=gettext_noop(
                  "Platform key, or the self-hosted X-API-Key (empty when the server has auth disabled).")),
        Field("mode", gettext_noop("Mode"), input="select", required=True, default="platform", options=MODES),
    )
    space_fields = (
        Field("userId", gettext_noop("User id"), required=True),
        Field("agentId", gettext_noop("Agent id"),
              help=gettext_noop("Attached to writes; reads cover every agent of the user.")),
        Field("rerank", gettext_noop("Rerank"), input="boolean", default=False,
              help=gettext_noop("Ask the Platform to rerank search results.")),
    )
    identity_fields = ("endpoint", "mode", "userId")  # reads are scoped by user_id alone
    description = gettext_noop("Mem0 memories extracted asynchronously from what the hub writes; hard delete.")

    @property
    def mode(self) -> str:
        mode = str(self.config.get("mode") or "platform")
        if mode not in MODES:
            raise ProviderError(f"Mem0 mode must be one of {', '.join(MODES)}", permanent=True)
        return mode

    @property
    def platform(self) -> bool:
        return self.mode == "platform"

    def auth_headers(self) -> dict[str, str]:
        if self.platform:
            return {"Authorization": f"Token {self.api_key()}"}
        key = self.api_key(required=False)
        return {"X-API-Key": key} if key else {}

    @property
    def _user(self) -> str:
        return self.setting("userId")

    def _memory_path(self, record_id: str) -> str:
        quoted = quote(str(record_id), safe="")
        return f"/v1/memories/{quoted}/" if self.platform else f"/memories/{quoted}"

    # -- contract --------------------------------------------------------------------------------

    def status(self) -> dict[str, Any]:
        if self.platform:
            ping = expect(self.http.get("/v1/ping/"), dict, "ping")
            page = self._platform_page(1, 1)
            stats = {key: ping[key] for key in ("org_id", "project_id") if isinstance(ping.get(key), str)}
            return {"healthy": True, "mode": "platform", "memories": pick(page, "count", int, "memories page"), **stats}
        return {"healthy": True, "mode": "self-hosted", "memories": len(self._self_hosted_all())}

    def check(self) -> dict[str, Any]:
        """Service only: the Platform's ping (the SDK's own key check: it names the key's organisation and project),
        or for a self-hosted server its OpenAPI title (the server's own, "Mem0 REST APIs") and then the memory list
        of a probe user, which needs the key. Any other server fails, whatever it answers."""
        if self.platform:
            ping = expect(self.http.get("/v1/ping/"), dict, "ping")
            named = {k: ping[k] for k in ("org_id", "project_id", "user_email") if isinstance(ping.get(k), str)}
            if not named:
                raise ProviderError("the endpoint answered /v1/ping/ without naming an organisation, project or user: "
                                    "it is not the Mem0 Platform")
            return {"healthy": True, "mode": "platform", **{k: v for k, v in named.items() if k != "user_email"}}
        spec = expect(self.http.get("/openapi.json"), dict, "OpenAPI description")
        title = str(pick(spec, "info", dict, "OpenAPI description", default={}).get("title") or "")
        if "mem0" not in title.lower():
            raise ProviderError(f"the endpoint's API is {title or 'untitled'!r}, not Mem0's REST server")
        probe = str(self.config.get("userId") or "memoryhub-connection-test")
        _results(self.http.get("/memories", params={"user_id": probe}), "memories")
        return {"healthy": True, "mode": "self-hosted"}

    def search(self, query: str, limit: int = 10, **filters: Any) -> list[Record]:
        body: dict[str, Any] = {"query": query, "filters": {"user_id": self._user},
                                "top_k": max(1, min(int(limit), 1000))}
        if self.platform:
            body["rerank"] = bool(self.config.get("rerank"))
        found = self.http.post("/v3/memories/search/" if self.platform else "/search", body, retry=True)
        return [self._record(item) for item in _results(found, "search result")]

    def browse(self, limit: int = 50, offset: int = 0, **filters: Any) -> list[Record]:
        limit, offset = max(1, min(int(limit), PAGE_MAX)), max(0, int(offset))
        if not self.platform:
            return [self._record(item) for item in self._self_hosted_all()[offset:offset + limit]]
        first = offset // limit + 1
        items: list[Any] = []
        for page in (first, first + 1):
            data = self._platform_page(page, limit)
            items.extend(data["results"])
            if not isinstance(data.get("next"), str):
                break
        skip = offset - (first - 1) * limit
        return [self._record(item) for item in items[skip:skip + limit]]

    def get(self, record_id: str) -> Record:
        record = self._record(self.http.get(self._memory_path(record_id)))
        owner = record.extra.get("user_id")
        if owner not in (None, self._user):
            raise ProviderError(f"Mem0 memory {record_id} belongs to another user")
        return record

    def remember(self, text: str, *, title: str = "", category: str = "general",
                 tags: list[str] | None = None, at: str = "", **extra: Any) -> Receipt:
        body: dict[str, Any] = {
            "messages": [{"role": "user", "content": text}],
            "user_id": self._user,
            "metadata": {k: v for k, v in (("title", title), ("category", category), ("tags", tags or []),
                                           ("at", at)) if v},
            "infer": bool(extra.get("infer", True)),
        }
        if self.config.get("agentId"):
            body["agent_id"] = str(self.config["agentId"])
        try:
            answer = self.http.post("/v3/memories/add/" if self.platform else "/memories", body)
        except ProviderError as exc:
            return failed_write(exc)
        uri = f"{self.http.endpoint}{'/v3/memories/add/' if self.platform else '/memories'}"
        # Only the answer Mem0 documents proves it took the write: the Platform's event id of the queued
        # extraction; the self-hosted server's {"results": [{"id", "memory", "event"}]} (it extracts first).
        if self.platform:
            answer = answer if isinstance(answer, dict) else {}
            detail = {k: answer[k] for k in ("status", "message") if isinstance(answer.get(k), str)}
            event = answer.get("event_id")
            if not isinstance(event, str) or not event:
                return Receipt("unknown", uri=uri, detail=detail,
                               error=f"POST {uri} answered without the event_id Mem0 documents; the write may or may "
                                     "not be queued")
            return Receipt("accepted", provider_id=event, detail=detail)
        results = answer.get("results") if isinstance(answer, dict) else None
        if not isinstance(results, list):
            return Receipt("unknown", uri=uri, error=f"POST {uri} answered without the results Mem0 documents")
        ids = [str(r["id"]) for r in results if isinstance(r, dict) and r.get("id")]
        return Receipt("accepted", provider_id=ids[0] if ids else "", detail={"record_ids": ids})

    def resolve_write(self, receipt: Receipt) -> list[str]:
        """Platform: the memories the add event produced, once Mem0 has processed it (GET /v1/event/{id}/)."""
        if not self.platform or "record_ids" in receipt.detail:
            return [str(i) for i in receipt.detail.get("record_ids") or []]
        if not receipt.provider_id:
            return []
        event = expect(self.http.get(f"/v1/event/{quote(receipt.provider_id, safe='')}/"), dict, "event")
        status = pick(event, "status", str, "event")
        if status == "FAILED":
            raise SpaceError(f"Mem0 could not process write {receipt.provider_id}")
        if status != "SUCCEEDED":
            return []
        results = pick(event, "results", list, "event", default=[])
        return [str(r["id"]) for r in results if isinstance(r, dict) and r.get("id") and r.get("event") != "DELETE"]

    def forget(self, record_id: str) -> None:
        self.get(record_id)
        self.http.delete(self._memory_path(record_id))

    # -- parsing ---------------------------------------------------------------------------------

    def _platform_page(self, page: int, size: int) -> dict[str, Any]:
        data = self.http.post("/v3/memories/", {"filters": {"user_id": self._user}},
                              params={"page": page, "page_size": size}, retry=True)
        pick(data, "results", list, "memories page")
        return data

    def _self_hosted_all(self) -> list[Any]:
        return _results(self.http.get("/memories", params={"user_id": self._user}), "memories")

    def _record(self, item: Any) -> Record:
        metadata = pick(item, "metadata", dict, "memory", default={})
        score = pick(item, "score", (int, float), "memory", default=None)
        tags = metadata.get("tags")
        return Record(
            id=text_id(item, what="memory"),
            text=pick(item, "memory", str, "memory"),
            title=str(metadata.get("title") or ""),
            category=str(metadata.get("category") or "general"),
            # The memory's own date when the hub sent one (keeps.dates), else when Mem0 made it.
            at=str(metadata.get("at") or "") or pick(item, "created_at", str, "memory", default=""),
            tags=[str(t) for t in tags] if isinstance(tags, list) else [],
            score=None if score is None else float(score),
            extra={k: item[k] for k in ("user_id", "agent_id", "categories", "updated_at") if k in item},
        )


def _results(data: Any, what: str) -> list[Any]:
    """Mem0 answers either {"results": [...]} or a bare list, depending on route and version."""
    if isinstance(data, list):
        return data
    return pick(data, "results", list, what)
