"""Supermemory adapter: documents ingested asynchronously into one container tag, read back as memories.

Browse merges extracted memory entries with the still-browsable source documents (de-duplicated by id), so a
document whose extraction has not finished still shows; the graph projects documents and their memories.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from providers.base import (
    Capabilities, Field, Keeps, ProviderError, Receipt, Record, SpaceConfigError, SpaceError, gettext_noop,
)
from providers.http import HttpProvider, expect, failed_write, pick, text_id

SEARCH_MODES = ("hybrid", "memories", "documents")
LIST_MAX = 200


class SupermemoryProvider(HttpProvider):
    kind = "supermemory"
    label = "Supermemory"
    locality = "remote"
    workspace_binding = "provider-global"
    score_semantics = "normalized"
    capabilities = Capabilities(search=True, browse=True, graph=True, remember=True, get=True, write_mode="async",
                                forget=True, deletion_mode="provider-forget")
    keeps = Keeps(text="extracted", title=True, category=True, tags=True)
    service_fields = (
        Field("endpoint", gettext_noop("Endpoint"), input="url", required=True, default="https://api.supermemory.ai"),
        Field("apiKey", gettext_noop("API key"), input="secret", required=True, secret=True),
    )
    space_fields = (
        Field("containerTag", gettext_noop("Container tag"), required=True),
        Field("searchMode", gettext_noop("Search mode"), input="select", default="hybrid", options=SEARCH_MODES,
              help=gettext_noop(
                  "hybrid searches memories and document chunks; memories or documents search only one.")),
    )
    identity_fields = ("endpoint", "containerTag")
    description = gettext_noop("Supermemory documents in one container tag, extracted into memories in the background.")

    def auth_headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.api_key()}", "x-sm-source": "memoryhub"}

    @property
    def _tag(self) -> str:
        return self.setting("containerTag")

    # -- contract --------------------------------------------------------------------------------

    def status(self) -> dict[str, Any]:
        data = self.http.post("/v3/documents/list", {"containerTags": [self._tag], "limit": 1, "page": 1}, retry=True)
        pick(data, "memories", list, "document list")
        pagination = pick(data, "pagination", dict, "document list")
        return {"healthy": True, "containerTag": self._tag,
                "documents": pick(pagination, "totalItems", int, "pagination")}

    def check(self) -> dict[str, Any]:
        """Service only: a one-document list across every container proves the key."""
        data = self.http.post("/v3/documents/list", {"limit": 1, "page": 1}, retry=True)
        pick(data, "memories", list, "document list")  # Supermemory's list shape; another server's answer fails
        pagination = pick(data, "pagination", dict, "document list")
        return {"healthy": True, "documents": pick(pagination, "totalItems", int, "pagination", default=0)}

    def search(self, query: str, limit: int = 10, **filters: Any) -> list[Record]:
        mode = str(self.config.get("searchMode") or "hybrid")
        if mode not in SEARCH_MODES:
            raise SpaceConfigError(f"Supermemory searchMode must be one of {', '.join(SEARCH_MODES)}", key="searchMode")
        body = {"q": query, "containerTag": self._tag, "limit": max(1, min(int(limit), 100)), "searchMode": mode}
        found = pick(self.http.post("/v4/search", body, retry=True), "results", list, "search result")
        return [self._record(item, "search") for item in found]

    def browse(self, limit: int = 50, offset: int = 0, **filters: Any) -> list[Record]:
        start, size = max(0, int(offset)), max(1, int(limit))
        want = min(start + size, LIST_MAX)
        merged: dict[str, Record] = {}
        for item in self._memory_entries(want):
            merged.setdefault(item.id, item)
        for document in self._documents(want):
            record = self._document_record(document)
            if record is not None:
                merged.setdefault(record.id, record)
        return list(merged.values())[start:start + size]

    def graph(self, limit: int = 200) -> dict[str, Any]:
        nodes: dict[str, dict[str, Any]] = {}
        edges: list[dict[str, Any]] = []
        for document in self._documents(min(max(1, int(limit)), LIST_MAX)):
            record = self._document_record(document)
            if record is None:
                continue
            nodes[record.id] = {"id": record.id, "label": record.title or record.text[:60], "type": "document"}
            for entry in pick(document, "memoryEntries", list, "document", default=[]):
                memory = self._record(entry, "memory")
                if memory.extra.get("forgotten"):
                    continue
                nodes.setdefault(memory.id, {"id": memory.id, "label": memory.text[:60], "type": "memory"})
                edges.append({"source": record.id, "target": memory.id, "type": "derived"})
                for relation in pick(entry, "relatedMemories", list, "memory", default=[]):
                    target = pick(relation, "relatedMemoryId", str, "relation", default="")
                    if target:
                        kind = pick(relation, "relationType", str, "relation", default="related")
                        edges.append({"source": memory.id, "target": target, "type": kind})
        kept = list(nodes.values())[:limit]
        ids = {node["id"] for node in kept}
        return {"nodes": kept, "edges": [e for e in edges if e["source"] in ids and e["target"] in ids]}

    def remember(self, text: str, *, title: str = "", category: str = "general",
                 tags: list[str] | None = None, at: str = "", **extra: Any) -> Receipt:
        metadata = {"sm_source": "memoryhub", "category": category}
        metadata.update({k: v for k, v in (("title", title), ("tags", ",".join(tags or [])), ("at", at)) if v})
        try:
            answer = self.http.post("/v3/documents", {"content": text, "containerTag": self._tag, "metadata": metadata})
        except ProviderError as exc:
            return failed_write(exc)
        answer = answer if isinstance(answer, dict) else {}
        status = answer.get("status") if isinstance(answer.get("status"), str) else ""
        document_id = answer.get("id") if isinstance(answer.get("id"), str) else ""
        uri = f"{self.http.endpoint}/v3/documents"
        if not document_id:  # the documented answer is {id, status}: without the id nothing proves the document exists
            return Receipt("unknown", uri=uri, error=f"POST {uri} answered without the document id Supermemory "
                                                     "documents; the document may or may not exist")
        return Receipt("accepted", provider_id=document_id, detail={"status": status} if status else {})

    def get(self, record_id: str) -> Record:
        """A source document (GET /v3/documents/{id}), else one of the container's extracted memory entries."""
        try:
            document = expect(self.http.get(f"/v3/documents/{quote(str(record_id), safe='')}"), dict, "document")
        except ProviderError as exc:
            if exc.status != 404:
                raise
        else:
            if self._tag not in pick(document, "containerTags", list, "document", default=[self._tag]):
                raise SpaceError(f"Supermemory document {record_id} is not in container {self._tag}", status=404)
            record = self._document_record(document)
            if record is None:
                raise ProviderError(f"Supermemory is still processing document {record_id}", retryable=True)
            return record
        found = next((r for r in self._memory_entries(LIST_MAX) if r.id == str(record_id)), None)
        if found is None:
            raise SpaceError(f"Supermemory has no memory {record_id} in {self._tag}", status=404)
        return found

    def resolve_write(self, receipt: Receipt) -> list[str]:
        """The document a write created reads back by its own id (GET /v3/documents/{id}) from the start."""
        return [receipt.provider_id] if receipt.provider_id else []

    def forget(self, record_id: str) -> None:
        """Forget a memory entry; an id that is not a memory is a source document, deleted with its memories."""
        try:
            self.http.delete("/v4/memories", json_body={"containerTag": self._tag, "id": record_id,
                                                        "reason": "forgotten from memoryhub"})
            return
        except ProviderError as exc:
            if exc.status != 404:
                raise
        path = f"/v3/documents/{quote(str(record_id), safe='')}"
        document = expect(self.http.get(path), dict, "document")
        tags = pick(document, "containerTags", list, "document", default=[self._tag])
        if self._tag not in tags:
            raise ProviderError(f"Supermemory document {record_id} is not in container {self._tag}")
        self.http.delete(path)

    # -- parsing ---------------------------------------------------------------------------------

    def _list_body(self, limit: int) -> dict[str, Any]:
        return {"containerTags": [self._tag], "limit": limit, "page": 1, "sort": "createdAt", "order": "desc"}

    def _memory_entries(self, limit: int) -> list[Record]:
        data = self.http.post("/v4/memories/list", self._list_body(limit), retry=True)
        records = [self._record(item, "memory") for item in pick(data, "memoryEntries", list, "memory list")]
        return [r for r in records if not r.extra.get("forgotten")]

    def _documents(self, limit: int) -> list[Any]:
        data = self.http.post("/v3/documents/documents", self._list_body(limit), retry=True)
        return pick(data, "documents", list, "document list")

    def _document_record(self, document: Any) -> Record | None:
        """A source document as a record; None for one with no text yet (e.g. a URL still being fetched)."""
        document = expect(document, dict, "document")
        text = next((document[k] for k in ("content", "summary", "title") if isinstance(document.get(k), str)
                     and document[k]), None)
        if text is None:
            text_id(document, what="document")
            return None
        record = self._record({**document, "memory": text}, "document")
        record.title = record.title or str(document.get("title") or "")
        return record

    def _record(self, item: Any, kind: str) -> Record:
        item = expect(item, dict, kind)
        text = next((item[k] for k in ("memory", "chunk", "content") if isinstance(item.get(k), str)), None)
        if text is None:
            raise ProviderError(f"unexpected upstream data: {kind} has no text")
        metadata = pick(item, "metadata", dict, kind, default={})
        score = pick(item, "similarity", (int, float), kind, default=None)
        tags = metadata.get("tags")
        at = item.get("updatedAt") or item.get("createdAt")
        extra: dict[str, Any] = {"kind": kind if kind != "search" else ("memory" if "memory" in item else "chunk")}
        if item.get("isForgotten") is True:
            extra["forgotten"] = True
        if isinstance(item.get("status"), str):
            extra["status"] = item["status"]
        return Record(
            id=text_id(item, what=kind),
            text=text,
            title=str(metadata.get("title") or ""),
            category=str(metadata.get("category") or "general"),
            at=at if isinstance(at, str) else "",
            tags=[t for t in tags.split(",") if t] if isinstance(tags, str) else [],
            score=None if score is None else float(score),
            extra=extra,
        )
