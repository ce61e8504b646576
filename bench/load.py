"""`make load`: 8 clients write and search for 60 s against a real `manage.py serve`; nothing may be lost.

One of the clients writes its turns in batches (`{"turns": [...]}`), the others one per request. Every
turn carries a unique idempotency key; afterwards the database must hold exactly the turns the clients
saw confirmed (none lost, none twice), no request may get a 5xx, and p95 is reported.
Not part of `make test`: timings depend on the machine.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def call(base: str, path: str, body: dict, token: str) -> tuple[int, dict, float]:
    request = urllib.request.Request(f"{base}/api/v1/{path}", json.dumps(body).encode(),
                                     {"Content-Type": "application/json", "Authorization": f"Bearer {token}"})
    started = time.monotonic()
    try:
        with urllib.request.urlopen(request, timeout=60) as r:
            return r.status, json.loads(r.read()), time.monotonic() - started
    except urllib.error.HTTPError as exc:
        return exc.code, {}, time.monotonic() - started


BATCH = 20  # turns per request of the batch writer


def turn(n: int, i: int) -> dict:
    return {"session_id": f"c{n}", "user": f"client {n} turn {i} about deployment number {i % 17}",
            "assistant": "noted", "idempotency_key": f"load-{n}-{i}"}


def write(n: int, i: int, base: str, token: str, out: dict) -> int:
    """One request's worth of turns from turn `i` on (a batch for client 0); returns how many it carried."""
    batch = n == 0
    turns = [turn(n, i + j) for j in range(BATCH if batch else 1)]
    status, body, took = call(base, "turns", {"turns": turns} if batch else turns[0], token)
    items = body.get("results", []) if batch else [{"status": status, **body}]
    with out["lock"]:
        out["latencies"].append(took)
        out["statuses"].append(status)
        if batch:
            out["statuses"].extend(item.get("status", 0) for item in items)
        out["attempted"].update(t["idempotency_key"] for t in turns)
        for sent, item in zip(turns, items):
            if item.get("status") in (200, 201) and item.get("entry"):
                out["confirmed"][sent["idempotency_key"]] = item["entry"]["id"]
    return len(turns)


def client(n: int, base: str, token: str, until: float, out: dict) -> None:
    i = request = 0
    while time.monotonic() < until:
        i += write(n, i, base, token, out)
        if request % 2:
            status, _, took = call(base, "tools/memory_search", {"session_id": f"c{n}",
                                                                 "arguments": {"query": f"deployment {i % 17}"}}, token)
            with out["lock"]:
                out["latencies"].append(took)
                out["statuses"].append(status)
        request += 1


def manage(env: dict, *args: str) -> str:
    return subprocess.run([sys.executable, "manage.py", *args], cwd=ROOT, env=env, check=True, capture_output=True,
                          text=True).stdout


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--seconds", type=float, default=60)
    args = parser.parse_args()
    data = tempfile.mkdtemp(prefix="memoryhub-load-")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {**os.environ, "MEMORYHUB_DATA_DIR": data, "MEMORYHUB_BIND": f"127.0.0.1:{port}",
           "MEMORYHUB_Q_SYNC": "false", "MEMORYHUB_RATE_LIMIT_PER_MINUTE": str(10**9),
           "MEMORYHUB_LOG_LEVEL": "WARNING"}  # counted (as in production), never reached
    manage(env, "migrate", "--noinput", "-v0")
    token = manage(env, "issue_token", "--name", "load").strip().splitlines()[-1]
    server = subprocess.Popen([sys.executable, "manage.py", "serve"], cwd=ROOT, env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(100):
            try:
                urllib.request.urlopen(f"{base}/api/v1/health", timeout=2)
                break
            except OSError:
                time.sleep(0.3)
        out = {"lock": threading.Lock(), "latencies": [], "statuses": [], "attempted": set(), "confirmed": {}}
        until = time.monotonic() + args.seconds
        threads = [threading.Thread(target=client, args=(n, base, token, until, out)) for n in range(args.clients)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        server.send_signal(signal.SIGINT)
        server.wait(timeout=60)
    stored = json.loads(manage(env, "shell", "-c", (
        "import json; from memoryhub.memories.models import Entry; "
        "print(json.dumps(list(Entry.objects.filter(idempotency_key__startswith='load-')"
        ".values_list('idempotency_key', flat=True))))")).strip().splitlines()[-1])
    shutil.rmtree(data, ignore_errors=True)
    latencies = sorted(out["latencies"])
    p95 = latencies[int(len(latencies) * 0.95) - 1] if latencies else 0.0
    errors = sum(1 for s in out["statuses"] if s >= 500)
    lost = set(out["confirmed"]) - set(stored)
    duplicated = len(stored) - len(set(stored))
    report = {"clients": args.clients, "seconds": args.seconds, "requests": len(latencies),
              "writes_attempted": len(out["attempted"]), "writes_confirmed": len(out["confirmed"]),
              "rows_stored": len(stored), "lost": len(lost), "duplicated": duplicated, "5xx": errors,
              "p50_ms": round(statistics.median(latencies) * 1000, 1) if latencies else 0,
              "p95_ms": round(p95 * 1000, 1), "requests_per_s": round(len(latencies) / args.seconds, 1)}
    print(json.dumps(report, indent=2))
    return 1 if lost or duplicated or errors else 0


if __name__ == "__main__":
    sys.exit(main())
