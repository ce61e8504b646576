"""Ingest over HTTP against `manage.py serve`: turns/s with 1 and 8 clients, and GET /health as the baseline."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SECONDS = 15


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

    def stop(self) -> None:
        self.proc.send_signal(signal.SIGINT)
        self.proc.wait(timeout=60)


def hammer(clients: int, request: callable, seconds: float = SECONDS) -> tuple[int, int]:
    """Run `request(client, n)` from `clients` threads for `seconds`; returns (ok, failed)."""
    counts = [[0, 0] for _ in range(clients)]
    stop = time.monotonic() + seconds

    def work(i: int) -> None:
        n = 0
        while time.monotonic() < stop:
            try:
                request(i, n)
                counts[i][0] += 1
            except OSError:
                counts[i][1] += 1
            n += 1

    threads = [threading.Thread(target=work, args=(i,)) for i in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return sum(c[0] for c in counts), sum(c[1] for c in counts)


def run() -> dict:
    server = Server()
    headers = {"Authorization": f"Bearer {server.token}", "Content-Type": "application/json"}

    def turn(client: int, n: int) -> None:
        body = json.dumps({"session_id": f"bench-{client}", "user": f"Client {client} turn {n}: the deploy "
                           f"script fails when the staging cluster is under memory pressure ({n})",
                           "assistant": "Noted; raise the limit and retry.", "idempotency_key": f"{client}-{n}"})
        req = urllib.request.Request(f"{server.url}/turns", data=body.encode(), headers=headers)
        urllib.request.urlopen(req, timeout=30).read()

    def health(client: int, n: int) -> None:
        urllib.request.urlopen(f"{server.url}/health", timeout=30).read()

    try:
        result = {}
        for name, fn, clients in (("health x8", health, 8), ("turns x1", turn, 1), ("turns x8", turn, 8)):
            ok, failed = hammer(clients, fn)
            result[name] = (ok / SECONDS, failed)
        return result
    finally:
        server.stop()


def report(result: dict) -> str:
    lines = [f"HTTP over {SECONDS} s per phase (gunicorn, 2 workers × 4 threads, SQLite WAL):"]
    for name, (rate, failed) in result.items():
        lines.append(f"  {name:<10} {rate:7.1f} req/s   failed {failed}")
    lines.append("target: ingest >= 300 turns/s over HTTP with 8 clients")
    return "\n".join(lines)
