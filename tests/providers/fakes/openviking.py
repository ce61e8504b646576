"""A loopback OpenViking server speaking the 0.5.2 wire format (see research/openviking-real.md)."""

from __future__ import annotations

import hashlib
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

FAULTS = ("slow", "error500", "malformed", "huge", "disconnect", "redirect")
TRAILER = '\n\n<!-- MEMORY_FIELDS\n{\n  "version": 1\n}\n-->'


class LoopbackServer:
    """A threaded http.server on 127.0.0.1 with the contract suite's fault switches.

    Subclasses implement `route(method, path, query, body, headers) -> (status, payload)`;
    payload is JSON-able, or bytes sent as is.
    """

    slow_seconds = 2.0
    huge_bytes = 9 * 1024 * 1024

    def __init__(self) -> None:
        self.fault: str | None = None
        self.requests: list[tuple[str, str, dict, Any]] = []
        self.lock = threading.RLock()
        self.port = 0
        self._httpd: ThreadingHTTPServer | None = None
        self.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def set_fault(self, name: str | None) -> None:
        if name is not None and name not in FAULTS:
            raise ValueError(name)
        self.fault = name

    def start(self) -> None:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def _serve(self) -> None:
                fake._dispatch(self)

            do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = _serve

        ThreadingHTTPServer.allow_reuse_address = True
        self._httpd = ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        self._httpd.daemon_threads = True
        self.port = self._httpd.server_address[1]
        threading.Thread(target=self._httpd.serve_forever, args=(0.05,), daemon=True).start()

    def stop(self) -> None:
        if self._httpd:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None

    def restart(self) -> None:
        """Stop and start again on the same port; stored data survives, like a real server restart."""
        self.stop()
        self.start()

    def _dispatch(self, handler: BaseHTTPRequestHandler) -> None:
        parts = urlsplit(handler.path)
        query = {k: v[-1] for k, v in parse_qs(parts.query).items()}
        length = int(handler.headers.get("content-length") or 0)
        raw = handler.rfile.read(length) if length else b""
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            body = None
        headers = {k.lower(): v for k, v in handler.headers.items()}
        self.requests.append((handler.command, parts.path, query, body))
        fault = self.fault
        if fault == "disconnect":
            handler.close_connection = True
            handler.connection.close()
            return
        if fault == "slow":
            time.sleep(self.slow_seconds)
        if fault == "redirect":  # a login page in front of the API
            handler.send_response(302)
            handler.send_header("Location", "/login")
            handler.send_header("Content-Length", "0")
            handler.end_headers()
            return
        if fault == "error500":
            status, payload = 500, {"status": "error", "error": {"code": "INTERNAL", "message": "injected"}}
        elif fault == "malformed":
            status, payload = 200, b'{"status": "ok", "result": [unterminated'
        elif fault == "huge":
            status, payload = 200, b'{"status":"ok","result":"' + b"x" * self.huge_bytes + b'"}'
        else:
            with self.lock:
                status, payload = self.route(handler.command, parts.path, query, body, headers)
        data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
        try:
            handler.send_response(status)
            handler.send_header("Content-Type", "application/json")
            handler.send_header("Content-Length", str(len(data)))
            handler.end_headers()
            handler.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            pass

    def route(self, method: str, path: str, query: dict, body: Any, headers: dict) -> tuple[int, Any]:
        raise NotImplementedError


def _ok(result: Any, **extra: Any) -> tuple[int, dict]:
    return 200, {"status": "ok", "result": result, "error": None, "telemetry": None, "profile": None, **extra}


def _err(status: int, code: str, message: str, **details: Any) -> tuple[int, dict]:
    return status, {"status": "error", "result": None,
                    "error": {"code": code, "message": message, "details": details}, "telemetry": None}


class FakeOpenViking(LoopbackServer):
    """Account `acme` with users keyed by API key; memories stored per URI with the server's trailer.

    Switches for verification edge cases: `vector_status` (what a write reports), `size_skew`
    (stat size differs), `readback_suffix` (read returns other text), `write_fails_index` (HTTP 500
    PROCESSING_ERROR after storing the file), `no_admin` (admin routes 403).
    """

    ROOT_KEY = "ovk-root-0123456789abcdef"

    def __init__(self) -> None:
        self.keys = {"key-alice": ("alice", "user"), "key-admin": ("admin", "admin"), "key-bob": ("bob", "user")}
        self.files: dict[str, dict] = {}
        self.vector_status = "complete"
        self.size_skew = 0
        self.readback_suffix = ""
        self.write_fails_index = False
        self.write_delay = 0.0
        self.missing_roots: set[str] = set()
        super().__init__()

    def user_root(self, user: str) -> str:
        return f"viking://user/{user}/memories"

    def route(self, method, path, query, body, headers):
        if path == "/health":
            return 200, {"status": "ok", "healthy": True, "version": "0.5.2", "auth_mode": "api_key"}
        key = headers.get("x-api-key") or headers.get("authorization", "").removeprefix("Bearer ").strip()
        if not key:
            return _err(401, "UNAUTHENTICATED", "Missing API Key when resolving identity.")
        if path.startswith("/api/v1/admin/"):
            return self._admin(method, path, key)
        if key == self.ROOT_KEY:
            return _err(403, "PERMISSION_DENIED", "ROOT API keys cannot access tenant-scoped data APIs in api_key mode.")
        if key not in self.keys:
            return _err(401, "UNAUTHENTICATED", "Invalid API Key")
        user, role = self.keys[key]
        if path == "/api/v1/system/status":
            return _ok({"initialized": True, "user": user})
        uri = query.get("uri") or (body or {}).get("uri") or (body or {}).get("target_uri") or ""
        if uri.startswith("viking://user/memories") or uri.startswith("viking://user/peers"):
            return _err(400, "INVALID_URI", "'viking://user/memories' no longer expands to the current user's space")
        if uri and role != "admin" and not uri.startswith(self.user_root(user)) and not uri.startswith(f"viking://user/{user}/"):
            return _err(403, "PERMISSION_DENIED", f"Access denied for {uri}: read permission required")
        handler = {
            ("POST", "/api/v1/content/write"): self._write,
            ("GET", "/api/v1/content/read"): self._read,
            ("GET", "/api/v1/fs/ls"): self._ls,
            ("GET", "/api/v1/fs/stat"): self._stat,
            ("DELETE", "/api/v1/fs"): self._delete,
            ("POST", "/api/v1/search/find"): self._find,
        }.get((method, path))
        if handler is None:
            return _err(404, "NOT_FOUND", f"no route {method} {path}")
        return handler(query, body or {}, user)

    def _admin(self, method, path, key):
        if key != self.ROOT_KEY and self.keys.get(key, ("", ""))[1] != "admin":
            return _err(403, "PERMISSION_DENIED", "Admin API requires an admin or root key")
        if method == "GET" and path == "/api/v1/admin/accounts/acme/users":
            return _ok([{"user_id": u, "role": r, "api_key": k} for k, (u, r) in self.keys.items()])
        return _err(404, "NOT_FOUND", "account not found")

    def _write(self, query, body, user):
        allowed = {"uri", "content", "mode", "wait", "telemetry", "processing_mode", "tags", "tag_mode", "acl", "edit_source"}
        extra = set(body) - allowed
        if extra:
            return _err(400, "INVALID_ARGUMENT", f"Invalid request parameters: body.{sorted(extra)[0]}: Extra inputs are not permitted")
        uri = body["uri"]
        if self.write_delay:
            time.sleep(self.write_delay)
        stored = body["content"] + TRAILER
        self.files[uri] = {"text": body["content"], "size": len(stored.encode()), "tags": body.get("tags"),
                           "mtime": time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime())}
        if self.write_fails_index:
            return _err(500, "PROCESSING_ERROR", f"Failed to generate embedding: injected (uri={uri.rsplit('/', 1)[0]})",
                        task_id="cd6f031f")
        errors = 0 if self.vector_status == "complete" else 1
        result = {"uri": uri, "root_uri": uri.rsplit("/", 1)[0], "context_type": "memory", "mode": body.get("mode"),
                  "written_bytes": self.files[uri]["size"], "content_updated": True, "semantic_status": "skipped",
                  "vector_status": self.vector_status,
                  "queue_status": {"Semantic": {"processed": 0, "requeue_count": 0, "error_count": 0, "errors": []},
                                   "Embedding": {"processed": 2, "requeue_count": 0, "error_count": errors, "errors": []}},
                  "overview_status": "complete"}
        return 200, {"status": "ok", "result": result}

    def _read(self, query, body, user):
        f = self.files.get(query["uri"])
        if f is None:
            return _err(404, "NOT_FOUND", f"File not found: {query['uri']}", type="file", resource=query["uri"])
        return _ok(f["text"] + self.readback_suffix)

    def _stat(self, query, body, user):
        uri = query["uri"]
        f = self.files.get(uri)
        if f is None:
            return _err(404, "NOT_FOUND", f"File not found: {uri}")
        return _ok({"name": uri.rsplit("/", 1)[1], "size": f["size"] + self.size_skew, "mode": 420, "modTime": f["mtime"],
                    "isDir": False, "uri": uri, "isLocked": False, "id": hashlib.md5(uri.encode()).hexdigest()})

    def _ls(self, query, body, user):
        base = query["uri"].rstrip("/")
        if base in self.missing_roots:
            return _err(404, "NOT_FOUND", f"Directory not found: {base}")
        recursive = query.get("recursive") == "true"
        entries, dirs = [], set()
        for uri, f in sorted(self.files.items()):
            if not uri.startswith(base + "/"):
                continue
            rel = uri[len(base) + 1:]
            if "/" in rel:
                dirs.add(rel.split("/")[0])
                if not recursive:
                    continue
            entry = {"uri": uri, "size": f["size"], "isDir": False, "modTime": f["mtime"], "abstract": ""}
            if recursive:
                entry["rel_path"] = rel
            entries.append(entry)
        for d in sorted(dirs):
            entries.insert(0, {"uri": f"{base}/{d}", "size": 0, "isDir": True, "rel_path": d,
                               "abstract": f"# {base}/{d} [Directory abstract is not ready]"})
        return _ok(entries, has_more=False)

    def _delete(self, query, body, user):
        uri = query["uri"]
        count = 1 if self.files.pop(uri, None) else 0
        return _ok({"uri": uri, "estimated_deleted_count": count})

    def _find(self, query, body, user):
        words = set(body["query"].lower().split())
        target = body.get("target_uri", self.user_root(user))
        hits = []
        for uri, f in self.files.items():
            if not uri.startswith(target):
                continue
            overlap = len(words & set(f["text"].lower().replace(".", " ").split()))
            hits.append({"context_type": "memory", "uri": uri, "level": 2, "score": 0.5 + 0.1 * overlap,
                         "abstract": f["text"][:40], "tags": []})
        hits.append({"context_type": "memory", "uri": f"{target}/.overview.md", "level": 1, "score": 0.5,
                     "abstract": "User's long-term memory storage.", "tags": []})
        hits.sort(key=lambda h: -h["score"])
        hits = hits[: body.get("limit", 10)]
        return _ok({"memories": hits, "resources": [], "skills": [], "total": len(hits)})
