"""Ingest over HTTP against `manage.py serve`: turns/s with 1 and 8 clients, and GET /health as the baseline."""

from __future__ import annotations

import http.client
import json
import os
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SECONDS = 15
PORT = [0]  # the server's port, read by the client processes


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """The hub as `make run` serves it, on a throwaway data dir."""

    def __init__(self):
        self.port = free_port()
        self.env = {**os.environ, "MEMORYHUB_DATA_DIR": tempfile.mkdtemp(prefix="memoryhub-ingest-"),
                    "MEMORYHUB_BIND": f"127.0.0.1:{self.port}", "MEMORYHUB_Q_SYNC": "false",
                    "MEMORYHUB_RATE_LIMIT_PER_MINUTE": "0", "MEMORYHUB_LOG_LEVEL": "WARNING"}
        self.manage("migrate", "--noinput", "-v0")
        self.token = self.manage("issue_token", "--name", "bench").split()[-1]
        self.proc = subprocess.Popen([sys.executable, "manage.py", "serve", "--web-workers", "2"], cwd=ROOT,
                                     env=self.env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.url = f"http://127.0.0.1:{self.port}/api/v1"
        deadline = time.monotonic() + 60
        while True:
            try:
                urllib.request.urlopen(f"{self.url}/health", timeout=2).read()
                return
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.3)

    def manage(self, *args: str) -> str:
        return subprocess.run([sys.executable, "manage.py", *args], cwd=ROOT, env=self.env, check=True,
                              capture_output=True, text=True).stdout

    def cpu_seconds(self) -> dict[str, float]:
        """CPU time so far of the server's processes by role (web, worker), read from /proc (Linux)."""
        children: dict[int, list[int]] = {}
        for stat in Path("/proc").glob("[0-9]*/stat"):
            try:
                pid, ppid = int(stat.parent.name), int(stat.read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                continue
            children.setdefault(ppid, []).append(pid)
        totals = {"web": 0.0, "worker": 0.0}
        stack = list(children.get(self.proc.pid, []))
        while stack:
            pid = stack.pop()
            stack += children.get(pid, [])
            try:
                fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
                command = Path(f"/proc/{pid}/cmdline").read_bytes()
            except OSError:
                continue
            role = "worker" if b"qcluster" in command else "web"
            totals[role] += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
        return totals

    def pending_enrichment(self) -> int:
        """Entries still waiting for the worker's edges and topic."""
        with sqlite3.connect(f"file:{self.env['MEMORYHUB_DATA_DIR']}/memoryhub.sqlite3?mode=ro", uri=True) as db:
            return db.execute("SELECT count(*) FROM memories_entry WHERE enrich_pending").fetchone()[0]

    def stop(self) -> None:
        self.proc.send_signal(signal.SIGINT)
        self.proc.wait(timeout=60)


def hammer(clients: int, request: callable, seconds: float = SECONDS) -> tuple[int, int]:
    """Run `request(connection, client, n)` from `clients` threads for `seconds`; returns (ok, failed).

    Each client keeps one HTTP/1.1 connection open, as an agent's client does. Threads share one
    core at most (the GIL), which leaves the server the rest of this small machine.
    """
    counts = [[0, 0] for _ in range(clients)]
    stop = time.monotonic() + seconds

    def work(i: int) -> None:
        conn, n = None, 0
        while time.monotonic() < stop:
            try:
                conn = conn or http.client.HTTPConnection("127.0.0.1", PORT[0], timeout=30)
                request(conn, i, n)
                counts[i][0] += 1
            except (OSError, http.client.HTTPException):
                counts[i][1] += 1
                conn = None
            n += 1

    threads = [threading.Thread(target=work, args=(i,)) for i in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return sum(c[0] for c in counts), sum(c[1] for c in counts)


def send(conn: http.client.HTTPConnection, method: str, path: str, body: dict | None, headers: dict) -> None:
    conn.request(method, path, body=json.dumps(body).encode() if body is not None else None, headers=headers)
    response = conn.getresponse()
    response.read()
    if response.status >= 300:
        raise http.client.HTTPException(f"{method} {path}: {response.status}")


def run() -> dict:
    server = Server()
    PORT[0] = server.port
    headers = {"Authorization": f"Bearer {server.token}", "Content-Type": "application/json"}

    def turns(phase: str) -> callable:
        """New turns only: keys unique across phases, or a phase would replay the last one's as cheap no-ops."""
        def turn(conn, client: int, n: int) -> None:
            send(conn, "POST", "/api/v1/turns", {
                "session_id": f"bench-{client}", "user": f"Client {client} turn {n}: the deploy script fails when "
                f"the staging cluster is under memory pressure ({n})", "assistant": "Noted; raise the limit and retry.",
                "idempotency_key": f"{phase}-{client}-{n}"}, headers)
        return turn

    def health(conn, client: int, n: int) -> None:
        send(conn, "GET", "/api/v1/health", None, {})

    def listing(conn, client: int, n: int) -> None:
        send(conn, "GET", "/api/v1/spaces", None, headers)

    try:
        result = {}
        for name, fn, clients in (("health x8", health, 8), ("spaces x8", listing, 8),
                                  ("turns x1", turns("x1"), 1), ("turns x8", turns("x8"), 8)):
            cpu_before, client_before = server.cpu_seconds(), time.process_time()
            ok, failed = hammer(clients, fn)
            cpu = {role: spent - cpu_before[role] for role, spent in server.cpu_seconds().items()}
            cpu["client"] = time.process_time() - client_before
            result[name] = (ok / SECONDS, failed, {role: spent / max(ok, 1) * 1000 for role, spent in cpu.items()})
        started = time.monotonic()
        while server.pending_enrichment() and time.monotonic() - started < 120:
            time.sleep(0.2)
        result["backlog"] = (server.pending_enrichment(), time.monotonic() - started)
        return result
    finally:
        server.stop()


def report(result: dict) -> str:
    lines = [f"HTTP over {SECONDS} s per phase (gunicorn + uvicorn, 2 web workers + 1 job worker, SQLite WAL;"
             " keep-alive client threads; health and spaces are the baselines):"]
    backlog, drained = result.pop("backlog")
    for name, (rate, failed, cpu) in result.items():
        spent = "  ".join(f"{role} {ms:5.2f}" for role, ms in cpu.items())
        lines.append(f"  {name:<10} {rate:7.1f} req/s   failed {failed}   CPU ms per request: {spent}")
    lines.append(f"  edges and topics of the last phase's turns done by the worker {drained:.1f} s after it"
                 + (f" ({backlog} still pending)" if backlog else ""))
    lines.append("target: ingest >= 300 turns/s over HTTP with 8 clients")
    return "\n".join(lines)
