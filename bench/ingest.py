"""Over HTTP against `manage.py serve`: turns/s one at a time and in batches, GET /health and /spaces as the
baselines, the server's CPU per turn by role, and search latency at 100k entries while 8 clients write.

`python -m bench.ingest [--root DIR] [--reads]` runs it alone; `--root` serves another checkout of the hub
(e.g. the code before a change) with this bench, so two versions are measured in one run.
"""

from __future__ import annotations

import argparse
import http.client
import json
import multiprocessing
import os
import shutil
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
BATCH = 50
READ_ENTRIES = 100_000
PORT = [0]  # the server's port, read by the client threads and processes


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """The hub as `make run` serves it, on a throwaway data dir, from the checkout `root`.

    The rate limit is on (at a limit no phase reaches), so every call pays for its counting as in production."""

    def __init__(self, root: Path = ROOT, seed_entries: int = 0):
        self.root = root
        self.port = free_port()
        self.env = {**os.environ, "MEMORYHUB_DATA_DIR": tempfile.mkdtemp(prefix="memoryhub-ingest-"),
                    "MEMORYHUB_BIND": f"127.0.0.1:{self.port}", "MEMORYHUB_Q_SYNC": "false",
                    "MEMORYHUB_RATE_LIMIT_PER_MINUTE": str(10**9), "MEMORYHUB_LOG_LEVEL": "WARNING",
                    "PYTHONPATH": str(root)}
        self.env.pop("DJANGO_SETTINGS_MODULE", None)
        self.manage("migrate", "--noinput", "-v0")
        self.token = self.manage("issue_token", "--name", "bench").split()[-1]
        if seed_entries:
            self.seed(seed_entries)
        self.proc = subprocess.Popen([sys.executable, "manage.py", "serve", "--web-workers", "2"], cwd=root,
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
        return subprocess.run([sys.executable, "manage.py", *args], cwd=self.root, env=self.env, check=True,
                              capture_output=True, text=True).stdout

    def seed(self, count: int) -> None:
        """`count` synthetic entries in a space `bench-read`, as the scale bench seeds them (bench/synthetic.py)."""
        self.manage("shell", "-c", (
            "from bench import synthetic; from memoryhub.memories.maintenance import compact; "
            "from memoryhub.memories.search import fulltext; from memoryhub.memories.models import Entry; "
            "from memoryhub.spaces.models import MemorySpace; "
            "space = MemorySpace.objects.create(slug='bench-read', name='Reads during writes'); "
            f"synthetic.seed_space(space, {count}, seed=3); Entry.objects.update(enrich_pending=False); "
            "compact.optimize_storage(); fulltext.recount_words()"))

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

    def wait_for_enrichment(self, limit: float = 120) -> tuple[int, float]:
        """(entries still pending, seconds waited) once the worker has caught up, or after `limit` seconds."""
        started = time.monotonic()
        while self.pending_enrichment() and time.monotonic() - started < limit:
            time.sleep(0.1)
        return self.pending_enrichment(), time.monotonic() - started

    def stop(self) -> None:
        """Stop the server and remove its data dir (100k entries take GBs)."""
        self.proc.send_signal(signal.SIGINT)
        self.proc.wait(timeout=60)
        shutil.rmtree(self.env["MEMORYHUB_DATA_DIR"], ignore_errors=True)


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


def send(conn: http.client.HTTPConnection, method: str, path: str, body: dict | None, headers: dict) -> dict:
    conn.request(method, path, body=json.dumps(body).encode() if body is not None else None, headers=headers)
    response = conn.getresponse()
    data = response.read()
    if response.status >= 300:
        raise http.client.HTTPException(f"{method} {path}: {response.status}")
    return json.loads(data) if data else {}


def turn_body(phase: str, client: int, n: int) -> dict:
    """A new turn: keys unique across phases, or a phase would replay the last one's as cheap no-ops."""
    return {"session_id": f"bench-{client}", "user": f"Client {client} turn {n}: the deploy script fails when "
            f"the staging cluster is under memory pressure ({phase} {n})", "assistant": "Noted; raise the limit and retry.",
            "idempotency_key": f"{phase}-{client}-{n}"}


def searcher(seconds: float, token: str, out) -> None:
    """One agent searching the 100k space, in its own process (so the writer threads' GIL is not in its figures)."""
    from bench import synthetic

    headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
    conn = http.client.HTTPConnection("127.0.0.1", PORT[0], timeout=30)
    queries, samples = synthetic.queries(200), []
    stop = time.monotonic() + seconds
    n = 0
    while time.monotonic() < stop:
        started = time.perf_counter()
        send(conn, "POST", "/api/v1/tools/memory_search", {"session_id": "reader", "arguments": {
            "query": queries[n % len(queries)], "space": "bench-read"}}, headers)
        samples.append((time.perf_counter() - started) * 1000)
        n += 1
    out.put(samples)


def percentiles(samples: list[float]) -> tuple[float, float]:
    ordered = sorted(samples) or [0.0]
    return ordered[len(ordered) // 2], ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))]


def run(root: Path = ROOT, reads: bool = False) -> dict:
    server = Server(root, seed_entries=READ_ENTRIES if reads else 0)
    PORT[0] = server.port
    headers = {"Authorization": f"Bearer {server.token}", "Content-Type": "application/json"}

    def turns(phase: str) -> callable:
        return lambda conn, client, n: send(conn, "POST", "/api/v1/turns", turn_body(phase, client, n), headers)

    def batches(phase: str) -> callable:
        def batch(conn, client: int, n: int) -> None:
            answer = send(conn, "POST", "/api/v1/turns", {"turns": [
                turn_body(phase, client, n * BATCH + i) for i in range(BATCH)]}, headers)
            if [r.get("status") for r in answer.get("results", ())] != [201] * BATCH:
                raise http.client.HTTPException("a batch was not written whole")
        return batch

    def health(conn, client: int, n: int) -> None:
        send(conn, "GET", "/api/v1/health", None, {})

    def listing(conn, client: int, n: int) -> None:
        send(conn, "GET", "/api/v1/spaces", None, headers)

    phases = [("health x8", health, 8, 1), ("spaces x8", listing, 8, 1), ("turns x1", turns("x1"), 1, 1),
              ("turns x8", turns("x8"), 8, 1), (f"batch{BATCH} x8", batches("b8"), 8, BATCH)]
    try:
        result: dict = {"phases": {}}
        for name, fn, clients, per_request in phases:
            server.wait_for_enrichment()  # each phase starts with the worker idle
            cpu_before, client_before = server.cpu_seconds(), time.process_time()
            ok, failed = hammer(clients, fn)
            cpu = {role: spent - cpu_before[role] for role, spent in server.cpu_seconds().items()}
            cpu["client"] = time.process_time() - client_before
            done = ok * per_request
            per_turn = {role: spent / max(done, 1) * 1000 for role, spent in cpu.items()}
            result["phases"][name] = (done / SECONDS, failed, per_turn)
            if name.startswith(("turns x8", "batch")):
                # The worker's share: its CPU until the backlog is done, and how long after the last write.
                before = server.cpu_seconds()["worker"]
                backlog = server.wait_for_enrichment()
                worker = cpu["worker"] + server.cpu_seconds()["worker"] - before
                result["phases"][name][2]["worker"] = worker / max(done, 1) * 1000
                result[f"backlog {name}"] = backlog
        if reads:
            result["reads"] = reads_during_writes(server, turns, batches)
        return result
    finally:
        server.stop()


def reads_during_writes(server: Server, turns, batches) -> dict:
    """Search p50/p95 at 100k entries: alone, then while 8 clients write one turn per request, then in batches."""
    figures = {}
    context = multiprocessing.get_context("fork")
    for name, writer in (("alone", None), ("8 writers", turns("r8")), (f"8 batch{BATCH} writers", batches("rb8"))):
        server.wait_for_enrichment()
        out = context.Queue()
        reader = context.Process(target=searcher, args=(SECONDS, server.token, out))
        reader.start()
        if writer is not None:
            hammer(8, writer)
        samples = out.get(timeout=SECONDS * 4)
        reader.join()
        figures[name] = (*percentiles(samples), len(samples))
    return figures


def report(result: dict) -> str:
    lines = [f"HTTP over {SECONDS} s per phase (gunicorn + uvicorn, 2 web workers + 1 job worker, SQLite WAL;"
             " keep-alive client threads; health and spaces are the baselines; rate limit counted):"]
    for name, (rate, failed, cpu) in result["phases"].items():
        spent = "  ".join(f"{role} {ms:5.2f}" for role, ms in cpu.items())
        unit = "turns/s" if name.startswith(("turns", "batch")) else "req/s"
        lines.append(f"  {name:<11} {rate:7.1f} {unit:<7}  failed {failed}   CPU ms per turn/request: {spent}")
    for name, (backlog, drained) in ((k[8:], v) for k, v in result.items() if k.startswith("backlog ")):
        lines.append(f"  edges and topics of {name}'s turns done by the worker {drained:.1f} s after it"
                     + (f" ({backlog} still pending)" if backlog else ""))
    for name, (p50, p95, count) in result.get("reads", {}).items():
        lines.append(f"  memory_search at {READ_ENTRIES} entries, {name}: p50 {p50:.1f} ms, p95 {p95:.1f} ms "
                     f"({count} searches)")
    lines.append("targets: turns x8 >= 200 turns/s with web CPU <= 5 ms per turn; batches >= 1,500 turns/s, "
                 "enriched <= 5 s after; GET /spaces x8 >= 800 req/s")
    return "\n".join(lines)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=ROOT, help="the checkout of the hub to serve")
    parser.add_argument("--reads", action="store_true", help=f"also search {READ_ENTRIES} entries during writes")
    args = parser.parse_args()
    print(report(run(args.root.resolve(), reads=args.reads)), flush=True)
