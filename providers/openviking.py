"""OpenViking adapter: exact `.md` memories under one user's viking:// root, committed only after verification.

`remember` writes and returns `pending_verification`; `verify` (run by the hub as a background job)
checks URI, bytes, vector index and a full read-back before saying `committed`.
"""

from __future__ import annotations

import hashlib
import re
import uuid
from typing import Any
from urllib.parse import quote

from providers.base import (
    Capabilities, Field, Keeps, ProviderError, Receipt, Record, SpaceConfigError, SpaceError, gettext_noop,
)
from providers.http import HttpProvider

CATEGORY_DIRS = {
    "preference": "preferences", "preferences": "preferences",
    "insight": "experiences", "decision": "experiences", "experience": "experiences",
    "context": "events", "event": "events",
    "fact": "entities", "general": "entities", "entity": "entities",
}
DIR_CATEGORIES = {"preferences": "preference", "experiences": "insight", "events": "context", "entities": "fact"}
ROOT_RE = re.compile(r"viking://user/([^/]+)/(?:peers/([^/]+)/)?memories")
LEGACY_PREFIXES = ("viking://user/memories", "viking://user/peers/")
ID_RE = re.compile(r"[A-Za-z0-9_.@-]+")
UNSAFE_CHARS = re.compile(r"[?#%\\\s\x00-\x1f\x7f]")
VERIFY_PENDING = ("queued", "pending", "running", "processing", None)


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _id_problem(value: str) -> str:
    if not ID_RE.fullmatch(value) or value in (".", "..") or value.count("@") > 1:
        return "is not a valid OpenViking identifier (letters, digits, _ . @ -, at most one @)"
    return ""


def _check_id(value: str, what: str, key: str = "") -> str:
    """`value` if it is an OpenViking id; a space's setting (`key`) refuses as the space's error, a service's not."""
    if _id_problem(value):
        message = f"{what} {value!r} {_id_problem(value)}"
        raise SpaceConfigError(message, key=key) if key else ProviderError(message, permanent=True)
    return value


def _target_problem(target: str) -> str:
    target = target.rstrip("/")
    if not target or target.startswith(LEGACY_PREFIXES):
        return ""
    match = ROOT_RE.fullmatch(target)
    if not match:
        return "must be viking://user/<user>/memories (or viking://user/<user>/peers/<peer>/memories)"
    return next((f"names {part!r}, which {_id_problem(part)}" for part in match.groups() if part and _id_problem(part)),
                "")


def _slug(title: str) -> str:
    slug = re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-")[:40]
    return slug or "mem"


class OpenVikingProvider(HttpProvider):
    kind = "openviking"
    label = "OpenViking"
    locality = "remote"
    workspace_binding = "provider-global"
    score_semantics = "normalized"
    capabilities = Capabilities(search=True, browse=True, graph=True, remember=True, get=True, write_mode="verified",
                                forget=True, deletion_mode="controlled-hard")
    keeps = Keeps()
    verifies_writes = True
    discovers = True
    service_fields = (
        Field('endpoint', gettext_noop('Endpoint'), input='url', required=True),
        Field('apiKey', gettext_noop('API key'), input='secret', required=True, secret=True),
        Field('account', gettext_noop('Account')),
        Field('discoveryUser', gettext_noop('Discovery user (user key, skips Admin)')),
    )
    space_fields = (
        Field('targetUri', gettext_noop('Target URI (viking://user/<user>/memories)')),
        Field('user', gettext_noop('User')),
        Field('actorPeerId', gettext_noop('Actor peer id')),
    )
    identity_fields = ("endpoint", "account", "targetUri", "user", "discoveryUser", "apiKey")  # blank users: the key's
    description = gettext_noop(
        "Existing OpenViking server: verified exact Markdown memories under one user's viking:// root; "
        "full-text recall and browse; hard delete of that user's own files only.")

    def __init__(self, config: dict[str, Any] | None = None, space: Any = None):
        super().__init__(config, space)
        self._root: str | None = None

    def _opt(self, key: str) -> str:
        return str(self.config.get(key) or "").strip()

    def auth_headers(self) -> dict[str, str]:
        """The key as Bearer and X-API-Key; without a key, the dev server's identity headers."""
        headers = {"Content-Type": "application/json"}
        key = self.api_key(required=False)
        if key:
            headers.update({"X-API-Key": key, "Authorization": f"Bearer {key}"})
        else:
            headers.update({"X-OpenViking-Account": self._opt("account") or "default",
                            "X-OpenViking-User": self._opt("user") or "default"})
        if self._opt("actorPeerId"):
            headers["X-OpenViking-Actor-Peer"] = _check_id(self._opt("actorPeerId"), "actorPeerId", "actorPeerId")
        return headers

    def _call(self, method: str, path: str, **kw: Any) -> Any:
        """One request; unwrap the `{"status": "ok", "result": ...}` envelope or raise ProviderError."""
        data = self.http.request(method, path, **kw)
        if not isinstance(data, dict) or data.get("status") != "ok" or "result" not in data:
            raise ProviderError(f"{method} {self.http.endpoint}{path} answered an invalid OpenViking envelope",
                                uri=f"{self.http.endpoint}{path}")
        return data["result"]

    # -- the memory root -------------------------------------------------------------------

    def _status_user(self) -> str:
        result = self._call("GET", "/api/v1/system/status")
        user = result.get("user") if isinstance(result, dict) else None
        if not isinstance(user, str) or not user:
            raise ProviderError("OpenViking system status did not name the authenticated user")
        return user

    def root(self) -> str:
        """The space's memory root, `viking://user/<user>/memories` (legacy forms expanded)."""
        if self._root is None:
            self._root = self._resolve_root()
        return self._root

    def _resolve_root(self) -> str:
        owner, user, target = self._opt("discoveryUser"), self._opt("user"), self._opt("targetUri").rstrip("/")
        if owner and user and user != owner:
            raise SpaceConfigError(f"space user {user!r} is not the key's user {owner!r}: this key cannot reach it",
                                   key="user")
        user = user or owner
        if not target or target.startswith(LEGACY_PREFIXES):
            user = _check_id(user or self._status_user(), "user", "user")
            target = target.replace("viking://user/", f"viking://user/{user}/", 1) if target else f"viking://user/{user}/memories"
        match = ROOT_RE.fullmatch(target)
        if not match or _target_problem(target):
            raise SpaceConfigError(f"targetUri {target!r} {_target_problem(target) or 'is not a memory root'}",
                                   key="targetUri")
        if owner and match.group(1) != owner:
            raise SpaceConfigError(f"targetUri belongs to {match.group(1)!r}, not the key's user {owner!r}: this key "
                                   "cannot reach it", key="targetUri")
        return target

    def _memory_uri(self, uri: str) -> str:
        """Return `uri` if it is one exact memory `.md` file inside this space's root, else refuse."""
        root = self.root()
        if not isinstance(uri, str) or not uri.startswith(root + "/") or UNSAFE_CHARS.search(uri):
            raise SpaceError(f"{uri!r} is not a memory file inside {root}")
        parts = uri[len(root) + 1:].split("/")
        if any(p in ("", ".", "..") or p.startswith(".") for p in parts) or not parts[-1].endswith(".md"):
            raise SpaceError(f"{uri!r} is not an exact memory .md file inside {root}")
        return uri

    def _is_memory_uri(self, uri: Any) -> bool:
        try:
            self._memory_uri(uri)
        except ProviderError:
            return False
        return True

    def _check_root(self, root: str) -> None:
        try:
            listing = self._call("GET", "/api/v1/fs/ls", params={"uri": root})
        except ProviderError as exc:
            if exc.status == 404:
                raise SpaceConfigError(f"memory root {root} does not exist", key="targetUri", uri=exc.uri) from exc
            if exc.status == 403:  # the key is good (401 says otherwise) but may not reach this user's memories
                raise SpaceConfigError(f"this key may not reach {root}: {exc.message}", key="user",
                                       uri=exc.uri) from exc
            raise
        if not isinstance(listing, list):
            raise ProviderError(f"listing {root} gave an invalid answer", permanent=True)

    def validate_config(self) -> dict[str, Any]:
        """Prove the configured root is reachable (user-key or Admin discovery); return what was resolved."""
        owner, account = self._opt("discoveryUser"), self._opt("account")
        if owner:
            _check_id(owner, "discoveryUser")
            root = self.root()
            self._check_root(root)
            return {"mode": "user-key", "account": account, "user": owner, "root": root, "users": [owner]}
        if not account:
            raise ProviderError("account is required for Admin discovery (or set discoveryUser for a user key)",
                                permanent=True)
        users = self._call("GET", f"/api/v1/admin/accounts/{quote(_check_id(account, 'account'))}/users")
        if not isinstance(users, list):
            raise ProviderError("Admin API listed users in an invalid shape", permanent=True)
        ids = [u["user_id"] for u in users if isinstance(u, dict) and isinstance(u.get("user_id"), str)
               and ID_RE.fullmatch(u["user_id"])]
        if not ids:
            raise ProviderError(f"Admin API listed no users for account {account!r}", permanent=True)
        resolved: dict[str, Any] = {"mode": "admin", "account": account, "users": ids, "root": "", "user": ""}
        if self._opt("targetUri") or self._opt("user"):
            root = self.root()
            user = ROOT_RE.fullmatch(root).group(1)
            if user not in ids:
                raise SpaceConfigError(f"user {user!r} is not in account {account!r}: this key cannot reach it",
                                       key="user")
            self._check_root(root)
            resolved.update(root=root, user=user)
        return resolved

    @classmethod
    def space_rules(cls, config: dict[str, Any]) -> dict[str, str]:
        problems = {key: _id_problem(value) for key in ("user", "actorPeerId")
                    if (value := str(config.get(key) or "").strip()) and _id_problem(value)}
        target = str(config.get("targetUri") or "").strip()
        if target and _target_problem(target):
            problems["targetUri"] = _target_problem(target)
        return problems

    def validate_space(self) -> None:
        """The space's memory root must be one this key reaches: its own user's (a user key), a user of its account
        (an Admin key), and not refused (403). A root that does not exist yet is fine: the first write makes it."""
        root = self.root()
        user = ROOT_RE.fullmatch(root).group(1)
        account = self._opt("account")
        if not self._opt("discoveryUser") and account:
            listed = self._call("GET", f"/api/v1/admin/accounts/{quote(_check_id(account, 'account'))}/users")
            ids = [u.get("user_id") for u in listed if isinstance(u, dict)] if isinstance(listed, list) else []
            if user not in ids:
                raise SpaceConfigError(f"user {user!r} is not in account {account!r}: this key cannot reach it",
                                       key="user")
        try:
            self._call("GET", "/api/v1/fs/ls", params={"uri": root})
        except ProviderError as exc:
            if exc.status == 403:
                raise SpaceConfigError(f"this key may not reach {root}: {exc.message}", key="user",
                                       uri=exc.uri) from exc
            if exc.status != 404:
                raise

    def discover(self) -> list[dict[str, Any]]:
        resolved = self.validate_config()
        if resolved["mode"] == "user-key":
            return [{"user": resolved["user"], "targetUri": resolved["root"]}]
        return [{"user": u, "targetUri": f"viking://user/{u}/memories"} for u in resolved["users"]]

    # -- reads -----------------------------------------------------------------------------

    def status(self) -> dict[str, Any]:
        health = self.http.get("/health")
        if not isinstance(health, dict) or health.get("healthy") is False:
            raise ProviderError("OpenViking /health did not report healthy")
        return {"healthy": True, "version": str(health.get("version", "")), "user": self._status_user()}

    def _read(self, uri: str) -> str:
        result = self._call("GET", "/api/v1/content/read", params={"uri": uri})
        if isinstance(result, dict):
            result = result.get("content", result.get("text"))
        if not isinstance(result, str):
            raise ProviderError(f"reading {uri} gave no text", uri=uri)
        return result

    def _record(self, uri: str, text: str, **kw: Any) -> Record:
        folder = uri[len(self.root()) + 1:].split("/")[0]
        return Record(id=uri, text=text, title=uri.rsplit("/", 1)[1][:-3],
                      category=DIR_CATEGORIES.get(folder, "general"), extra={"uri": uri}, **kw)

    def get(self, record_id: str) -> Record:
        uri = self._memory_uri(record_id)
        return self._record(uri, self._read(uri))

    def search(self, query: str, limit: int = 10, **filters: Any) -> list[Record]:
        found = self._call("POST", "/api/v1/search/find", retry=True, json_body={
            "query": query, "target_uri": self.root(), "limit": limit + 10, "context_type": "memory"})
        hits = found.get("memories") if isinstance(found, dict) else None
        if not isinstance(hits, list):
            raise ProviderError("OpenViking search answered without a memories list")
        records: list[Record] = []
        for hit in hits:
            if len(records) >= limit:
                break
            if not isinstance(hit, dict) or not self._is_memory_uri(hit.get("uri")):
                continue
            score = hit.get("score")
            records.append(self._record(hit["uri"], self._read(hit["uri"]),
                                        score=float(score) if isinstance(score, (int, float)) else None))
        return records

    def _files(self) -> list[dict[str, Any]]:
        listing = self._call("GET", "/api/v1/fs/ls", params={"uri": self.root(), "recursive": "true"})
        if not isinstance(listing, list):
            raise ProviderError("OpenViking listing answered in an invalid shape")
        files = [e for e in listing if isinstance(e, dict) and not e.get("isDir") and self._is_memory_uri(e.get("uri"))]
        return sorted(files, key=lambda e: str(e.get("modTime", "")), reverse=True)

    def browse(self, limit: int = 50, offset: int = 0, **filters: Any) -> list[Record]:
        return [self._record(e["uri"], self._read(e["uri"]), at=str(e.get("modTime", "")))
                for e in self._files()[offset:offset + limit]]

    def graph(self, limit: int = 200) -> dict[str, Any]:
        """Projection of the root: folder nodes and file nodes joined by `contains` edges."""
        root = self.root()
        nodes = {root: {"id": root, "label": "memories", "type": "root"}}
        edges = []
        for entry in self._files()[:limit]:
            folder = entry["uri"].rsplit("/", 1)[0]
            nodes.setdefault(folder, {"id": folder, "label": folder.rsplit("/", 1)[1], "type": "folder"})
            if folder != root and not any(e["target"] == folder for e in edges):
                edges.append({"source": root, "target": folder, "type": "contains"})
            nodes[entry["uri"]] = {"id": entry["uri"], "label": entry["uri"].rsplit("/", 1)[1], "type": "memory"}
            edges.append({"source": folder, "target": entry["uri"], "type": "contains"})
        return {"nodes": list(nodes.values()), "edges": edges}

    # -- writes ----------------------------------------------------------------------------

    def remember(self, text: str, *, title: str = "", category: str = "general",
                 tags: list[str] | None = None, at: str = "", **extra: Any) -> Receipt:
        if not text.strip():
            return Receipt("failed", error="refusing to write an empty memory")
        uri = f"{self.root()}/{CATEGORY_DIRS.get(category, 'entities')}/{_slug(title)}-{uuid.uuid4().hex[:12]}.md"
        request_uri = f"{self.http.endpoint}/api/v1/content/write"
        detail: dict[str, Any] = {"uri": uri, "request_uri": request_uri, "sha256": _sha(text),
                                  "text_bytes": len(text.encode("utf-8"))}
        body = {"uri": uri, "content": text, "mode": "create", "wait": True,
                "tags": ["source:memoryhub", f"category:{category}", *(tags or [])]}
        try:
            result = self._call("POST", "/api/v1/content/write", json_body=body, retry=False)
        except ProviderError as exc:
            if exc.permanent:
                raise
            status = exc.status
            if status is not None and 400 <= status < 500:
                return Receipt("failed", uri=uri, error=exc.message, detail=detail)
            return Receipt("unknown", uri=uri, detail=detail,
                           error=f"{exc.message}; {uri} may have been written, check it before retrying")
        if not isinstance(result, dict):
            return Receipt("unknown", uri=uri, detail=detail,
                           error=f"POST {request_uri} answered without a result; {uri} may have been written")
        queue = result.get("queue_status") if isinstance(result.get("queue_status"), dict) else {}
        embedding = queue.get("Embedding") if isinstance(queue.get("Embedding"), dict) else {}
        detail.update(written_uri=result.get("uri"), written_bytes=result.get("written_bytes"),
                      vector_status=result.get("vector_status"), semantic_status=result.get("semantic_status"),
                      embedding_errors=embedding.get("error_count", 0))
        return Receipt("pending_verification", uri=uri, detail=detail)

    def verify(self, receipt: Receipt) -> Receipt:
        """Check a pending write: URI, byte count, vector index and full read-back must all match."""
        detail = dict(receipt.detail)
        uri = detail.get("uri") or receipt.uri

        def result(state: str, error: str = "", **more: Any) -> Receipt:
            return Receipt(state, provider_id=uri if state == "committed" else "", uri=uri, error=error,
                           detail={**detail, **more})

        if not self._is_memory_uri(uri) or not isinstance(detail.get("sha256"), str):
            return result("failed", "receipt does not name a memory file of this space")
        if "written_uri" not in detail:
            return result("unknown", f"the write of {uri} was never confirmed; check the file before retrying")
        if detail.get("written_uri") != uri:
            return result("failed", f"server wrote {detail.get('written_uri')!r}, not the requested {uri}")
        written = detail.get("written_bytes")
        if not isinstance(written, int) or written < detail.get("text_bytes", 0):
            return result("failed", f"server reported {written!r} bytes written for {uri}")
        vector = detail.get("vector_status")
        if vector != "complete" or detail.get("embedding_errors"):
            state = "pending_verification" if vector in VERIFY_PENDING else "unknown"
            return result(state, f"vector index of {uri} is not complete (vector_status={vector!r})")
        try:
            stat = self._call("GET", "/api/v1/fs/stat", params={"uri": uri})
            text = self._read(uri)
        except ProviderError as exc:
            if exc.permanent:
                raise
            if exc.status == 404:
                return result("failed", f"{uri} is missing on read-back")
            if exc.timeout or exc.retryable:
                return result("pending_verification", f"verification of {uri} could not finish: {exc.message}")
            return result("unknown", exc.message)
        size = stat.get("size") if isinstance(stat, dict) else None
        if not isinstance(size, int):
            return result("unknown", f"stat of {uri} gave no size")
        if size != written:
            return result("failed", f"{uri} holds {size} bytes, the write reported {written}")
        if _sha(text) != detail["sha256"]:
            return result("failed", f"read-back of {uri} differs from the text written")
        return result("committed", file_id=str(stat.get("id", "")))

    def forget(self, record_id: str) -> None:
        uri = self._memory_uri(record_id)
        outcome = self._call("DELETE", "/api/v1/fs", params={"uri": uri, "wait": "true"})
        if not isinstance(outcome, dict):
            raise ProviderError(f"deleting {uri} gave an invalid answer", uri=uri)
