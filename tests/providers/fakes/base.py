"""A reusable loopback HTTP server for provider fakes: routing, auth, JSON bodies and switchable faults.

Subclasses declare `routes` and keep their data on the fake object, so it survives restart().
"""

from __future__ import annotations

import json
import sys
import re
import threading
import uuid
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable
from urllib.parse import parse_qs, urlsplit

FAULTS = ("slow", "error500", "malformed", "huge", "disconnect", "wrongtypes", "missingfields", "redirect")


@dataclass
class Req:
    """One parsed request, as route handlers see it."""

    method: str
    path: str
    params: dict[str, str]
    headers: dict[str, str]
    body: Any = None
    groups: dict[str, str] = field(default_factory=dict)


class Reply(Exception):
    """Raised by a handler to answer with an error status and the provider's error body."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status
        self.message = message


class FakeServer:
    """A threaded http.server on 127.0.0.1 that a test points an adapter at."""

    api_key = "fake-secret-key-123456"
    slow_seconds = 3.0
    huge_bytes = 512 * 1024
    routes: tuple[tuple[str, str, str], ...] = ()  # (method, path regex, handler method name)

    def __init__(self) -> None:
        self.fault: str | None = None
        self.lock = threading.RLock()
        self.log: list[Req] = []
        self.port = 0
        self._wake = threading.Event()
        self._compiled = [(m, re.compile(p + r"/?$"), name) for m, p, name in self.routes]
        self._server: ThreadingHTTPServer | None = None
        self.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        fake = self

        class Handler(_Handler):
            server_fake = fake

        self._server = _QuietServer(("127.0.0.1", self.port), Handler)
        self.port = self._server.server_address[1]
        threading.Thread(target=self._server.serve_forever, args=(0.05,), daemon=True).start()

    def stop(self) -> None:
        self._wake.set()
        if self._server:
            self._server.shutdown()
            self._server.server_close()
            self._server = None
        self._wake.clear()

    def restart(self) -> None:
        """Stop and start on the same port; the data lives on this object, so it persists."""
        self.stop()
        self.start()

    def set_fault(self, name: str | None) -> None:
        if name is not None and name not in FAULTS:
            raise ValueError(f"unknown fault {name!r}")
        self.fault = name
        if name is None:
            self._wake.set()
            self._wake = threading.Event()

    @staticmethod
    def new_id() -> str:
        return str(uuid.uuid4())

    def authorized(self, req: Req) -> bool:
        """The provider's real auth check; subclasses override."""
        return req.headers.get("authorization") == f"Bearer {self.api_key}"

    def error_body(self, status: int, message: str) -> Any:
        """The provider's real error body shape; subclasses override."""
        return {"error": message}

    def dispatch(self, req: Req) -> tuple[int, Any]:
        for method, pattern, name in self._compiled:
            match = pattern.match(req.path)
            if method == req.method and match:
                req.groups = match.groupdict()
                if not self.authorized(req):
                    return 401, self.error_body(401, "Invalid or missing API key")
                try:
                    with self.lock:
                        return getattr(self, name)(req)
                except Reply as reply:
                    return reply.status, self.error_body(reply.status, reply.message)
        return 404, self.error_body(404, f"No route for {req.method} {req.path}")


class _QuietServer(ThreadingHTTPServer):
    """Daemon handler threads, and no tracebacks when a client hangs up mid-reply (timeouts, caps, cancel)."""

    daemon_threads = True
    block_on_close = False

    def handle_error(self, request: Any, client_address: Any) -> None:
        if not isinstance(sys.exc_info()[1], OSError):
            super().handle_error(request, client_address)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_fake: FakeServer

    def log_message(self, *args: Any) -> None:
        """Quiet: tests read the fake's own request log instead."""

    def do_GET(self) -> None:
        self._serve()

    do_POST = do_PUT = do_PATCH = do_DELETE = do_GET

    def _serve(self) -> None:
        fake = self.server_fake
        length = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(length) if length else b""
        parts = urlsplit(self.path)
        req = Req(self.command, parts.path, {k: v[0] for k, v in parse_qs(parts.query).items()},
                  {k.lower(): v for k, v in self.headers.items()})
        try:
            req.body = json.loads(raw) if raw else None
        except ValueError:
            return self._send(400, fake.error_body(400, "Body is not JSON"))
        fake.log.append(req)
        fault = fake.fault
        if fault == "slow":
            fake._wake.wait(fake.slow_seconds)
        elif fault == "disconnect":
            self.close_connection = True
            return
        elif fault == "error500":
            return self._send(500, fake.error_body(500, "Internal Server Error"))
        elif fault == "redirect":  # a login page or an http -> https hop in front of the API; its target says 200
            self.send_response(302)
            self.send_header("Location", "/login")
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        elif fault == "malformed":
            return self._send_raw(200, b'{"results": [{"id": "1", "mem')
        elif fault == "huge":
            return self._send_huge(fake.huge_bytes)
        status, body = fake.dispatch(req)
        if status < 400 and fault in ("wrongtypes", "missingfields"):
            body = _wrong_types(body) if fault == "wrongtypes" else _missing_fields(body)
        self._send(status, body)

    def _send(self, status: int, body: Any) -> None:
        if status == 204 or body is None:
            return self._send_raw(status, b"")
        self._send_raw(status, json.dumps(body).encode())

    def _send_raw(self, status: int, data: bytes) -> None:
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _send_huge(self, size: int) -> None:
        """Valid JSON, no Content-Length: the client must stop reading at its own cap."""
        self.close_connection = True
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Connection", "close")
        self.end_headers()
        try:
            self.wfile.write(b'{"results": [], "padding": "')
            chunk = b"x" * 65536
            for _ in range(size // len(chunk) + 1):
                self.wfile.write(chunk)
            self.wfile.write(b'"}')
        except OSError:
            pass


def _wrong_types(body: Any) -> Any:
    """The same keys with values of the wrong JSON type, one level deep and inside lists."""
    if isinstance(body, list):
        return {"unexpected": True}
    if isinstance(body, dict):
        swap: dict[type, Callable[[Any], Any]] = {
            str: lambda v: 12345, int: lambda v: "not-a-number", float: lambda v: "not-a-number",
            bool: lambda v: "yes", list: lambda v: "not-a-list", dict: lambda v: ["not-an-object"],
        }
        return {k: swap.get(type(v), lambda v: 7)(v) for k, v in body.items()}
    return [body]


def _missing_fields(body: Any) -> Any:
    """Objects stripped of every field: lists keep one empty object so item parsing is exercised."""
    if isinstance(body, list):
        return [{}]
    return {}


def overlap(query: str, text: str) -> float:
    """Word-overlap relevance for fake searches: the share of the query's words found in the text, 0..1."""
    wanted = set(re.findall(r"\w+", query.lower()))
    return len(wanted & set(re.findall(r"\w+", text.lower()))) / len(wanted) if wanted else 0.0
