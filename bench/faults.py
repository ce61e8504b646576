"""`make load`, part two: kill -9 each kind of process `manage.py serve` runs while agents write.

Kinds: a gunicorn worker, a gunicorn master, the django-q sentinel and the qcluster main process. After
each kill the hub must be whole again within seconds (every web socket answered, the worker's processes
back), nothing a client saw acknowledged may be missing, nothing may be stored twice, and once `serve`
stops no process it started may be left. Prints per kind: seconds until whole again, requests that failed
meanwhile (the writers retry them with the same idempotency key) and processes of the killed one that
outlived it; exits 1 when anything was lost, stored twice or left running. Not part of `make test`
(tests/test_serve.py kills one gunicorn master the same way, with one writer, without figures).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
KINDS = ("gunicorn-worker", "gunicorn-master", "sentinel", "qcluster")


# --- the process tree, from /proc ----------------------------------------------------------------

def processes() -> dict[int, tuple[int, bytes]]:
    """pid -> (parent pid, command line) of every live process we may read (zombies left out)."""
    found = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            state, ppid = stat.read_text().rsplit(")", 1)[1].split()[:2]
            if state != "Z":
                found[int(stat.parent.name)] = (int(ppid), (stat.parent / "cmdline").read_bytes())
        except (OSError, ValueError, IndexError):
            continue
    return found


def children(pid: int, table: dict | None = None) -> list[int]:
    table = processes() if table is None else table
    return sorted(p for p, (ppid, _) in table.items() if ppid == pid)


def descendants(pid: int) -> set[int]:
    table, found, frontier = processes(), set(), [pid]
    while frontier:
        kids = children(frontier.pop(), table)
        found.update(kids)
        frontier += kids
    return found


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def layout(serve: int) -> dict[str, list[int]]:
    """What `serve` runs now: gunicorn masters and their workers, the qcluster main, its sentinel and theirs."""
    table = processes()
    tops = children(serve, table)
    masters = [p for p in tops if b"gunicorn" in table[p][1]]
    clusters = [p for p in tops if b"qcluster" in table[p][1]]
    sentinels = [s for c in clusters for s in children(c, table)]
    return {"gunicorn-master": masters, "gunicorn-worker": [w for m in masters for w in children(m, table)],
            "qcluster": clusters, "sentinel": sentinels,
            "django-q": [p for s in sentinels for p in children(s, table)]}


def whole(serve: int, web: int, worker_processes: int) -> bool:
    """Every web master has its worker and the cluster has its sentinel with workers, monitor and pusher."""
    now = layout(serve)
    return (len(now["gunicorn-master"]) == web and len(now["gunicorn-worker"]) >= web
            and len(now["qcluster"]) == 1 and len(now["sentinel"]) == 1
            and len(now["django-q"]) >= worker_processes + 2)


# --- agents writing meanwhile ---------------------------------------------------------------------

@dataclass
class Writers:
    """Threads that write turns, each with its own idempotency key, retrying a failed one with the same key."""

    base: str
    token: str
    clients: int = 2
    confirmed: set[str] = field(default_factory=set)
    failures: list[float] = field(default_factory=list)  # when a request failed (connection error or 5xx)
    stop: threading.Event = field(default_factory=threading.Event)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def __post_init__(self):
        self.threads = [threading.Thread(target=self._write, args=(n,), daemon=True) for n in range(self.clients)]

    def __enter__(self) -> "Writers":
        for thread in self.threads:
            thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop.set()
        for thread in self.threads:
            thread.join(120)

    def _write(self, n: int) -> None:
        i = 0
        while not self.stop.is_set():
            key = f"fault-{n}-{i}"
            body = {"session_id": f"w{n}", "user": f"writer {n} turn {i} during the fault drill",
                    "assistant": "ok", "idempotency_key": key}
            if post(self.base, "turns", body, self.token)[0] in (200, 201):
                with self.lock:
                    self.confirmed.add(key)
                i += 1
            else:
                with self.lock:
                    self.failures.append(time.monotonic())
                self.stop.wait(0.2)

    def failed_since(self, since: float) -> int:
        with self.lock:
            return sum(1 for t in self.failures if t >= since)


def post(base: str, path: str, body: dict, token: str, timeout: float = 30) -> tuple[int, dict]:
    request = urllib.request.Request(f"{base}/api/v1/{path}", json.dumps(body).encode(),
                                     {"Content-Type": "application/json", "Authorization": f"Bearer {token}"})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as exc:
        return exc.code, {}
    except OSError:
        return 0, {}


def answers(base: str, times: int = 6) -> bool:
    """`times` health checks on fresh connections all answer (SO_REUSEPORT spreads them over every socket)."""
    for _ in range(times):
        try:
            urllib.request.urlopen(f"{base}/api/v1/health", timeout=15).close()
        except OSError:
            return False
    return True


# --- the drill ------------------------------------------------------------------------------------

def kill(serve: int, kind: str) -> tuple[int, set[int]]:
    """SIGKILL one process of `kind`; returns it and the processes below it, which must not outlive it."""
    victim = layout(serve)[kind][0]
    below = descendants(victim)
    os.kill(victim, signal.SIGKILL)
    return victim, below


def drill(serve: int, base: str, writers: Writers, *, web: int, worker_processes: int, kinds=KINDS,
          bound: float = 90.0) -> list[dict]:
    """Kill each kind in turn; wait until the hub is whole and answering again (at most `bound` seconds)."""
    results = []
    for kind in kinds:
        deadline = time.monotonic() + bound
        while not whole(serve, web, worker_processes):  # the previous kill's restart may still be booting
            if time.monotonic() > deadline:
                raise AssertionError(f"serve never became whole before killing {kind}: {layout(serve)}")
            time.sleep(0.1)
        started = time.monotonic()
        victim, below = kill(serve, kind)
        while not (whole(serve, web, worker_processes) and victim not in layout(serve)[kind]
                   and answers(base)):
            if time.monotonic() - started > bound:
                raise AssertionError(f"the hub was not whole {bound:.0f} s after killing the {kind}: {layout(serve)}")
            time.sleep(0.1)
        took = time.monotonic() - started
        grace = time.monotonic() + 10  # what the dead one left gets SIGTERM at once, SIGKILL after 3 s (ops/supervise.py)
        while any(alive(p) for p in below) and time.monotonic() < grace:
            time.sleep(0.1)
        left = sorted(p for p in below if alive(p))
        results.append({"kind": kind, "whole_again_s": round(took, 1), "failed_requests": writers.failed_since(started),
                        "orphans_left": left})
    return results


def manage(env: dict, *args: str) -> str:
    return subprocess.run([sys.executable, "manage.py", *args], cwd=ROOT, env=env, check=True, capture_output=True,
                          text=True, timeout=180).stdout


def stored_keys(env: dict) -> list[str]:
    out = manage(env, "shell", "-c", "import json; from memoryhub.memories.models import Entry; print(json.dumps("
                 "list(Entry.objects.filter(idempotency_key__startswith='fault-').values_list('idempotency_key', "
                 "flat=True))))")
    return json.loads(out.strip().splitlines()[-1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--web-workers", type=int, default=2)
    args = parser.parse_args()
    data = tempfile.mkdtemp(prefix="memoryhub-faults-")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {**os.environ, "MEMORYHUB_DATA_DIR": data, "MEMORYHUB_BIND": f"127.0.0.1:{port}", "MEMORYHUB_Q_SYNC": "false",
           "MEMORYHUB_RATE_LIMIT_PER_MINUTE": str(10**9), "MEMORYHUB_WORKER_PROCESSES": "1",
           "MEMORYHUB_LOG_LEVEL": "WARNING"}
    env.pop("DJANGO_SETTINGS_MODULE", None)
    manage(env, "migrate", "--noinput", "-v0")
    token = manage(env, "issue_token", "--name", "faults").strip().splitlines()[-1]
    log = open(Path(data) / "serve.log", "w")
    server = subprocess.Popen([sys.executable, "manage.py", "serve", "--web-workers", str(args.web_workers)], cwd=ROOT,
                              env=env, stdout=log, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    started_by_serve: set[int] = set()
    try:
        deadline = time.monotonic() + 90
        while not (whole(server.pid, args.web_workers, 1) and answers(base, 1)):
            if time.monotonic() > deadline or server.poll() is not None:
                raise SystemExit(f"serve did not start: {(Path(data) / 'serve.log').read_text()[-2000:]}")
            time.sleep(0.3)
        with Writers(base, token, clients=args.clients) as writers:
            results = drill(server.pid, base, writers, web=args.web_workers, worker_processes=1)
            started_by_serve = descendants(server.pid)
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=90)
        log.close()
    left = sorted(p for p in started_by_serve if alive(p))
    stored = stored_keys(env)
    report = {"kills": results, "confirmed": len(writers.confirmed), "stored": len(stored),
              "lost": len(writers.confirmed - set(stored)), "stored_twice": len(stored) - len(set(stored)),
              "left_running_after_stop": left}
    shutil.rmtree(data, ignore_errors=True)
    print(json.dumps(report, indent=2))
    ok = not (report["lost"] or report["stored_twice"] or left or any(r["orphans_left"] for r in results))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
