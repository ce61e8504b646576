"""`make load`, last: storage faults against a real `manage.py serve`, and what agents saw.

- **held lock**: another program holds SQLite's write lock for 30 s (`BEGIN IMMEDIATE`, as a backup tool or
  a `sqlite3` shell left open would). Searches with a known session, with a new session, a new token's
  first call and `/context` with a new session go on meanwhile, and one agent keeps writing turns.
- **full disk**: the data directory on a 64 MiB tmpfs (mounted in a user and mount namespace, so no root
  is needed), filled with a ballast file while agents write and read; then the ballast goes.
- **Redis down**: with `REDIS_URL` set, Redis is killed while agents write; it comes back with a worker,
  and what the writes queued (edges and topics, jobs) must still happen.

For each: the answers by kind (status counts, slowest), how long after the fault ended writes were
answered again, and whether anything confirmed went missing. Always on SQLite (its lock, its file on the
small disk), whatever DATABASE_URL says. Timings depend on the machine.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from collections import Counter
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FRESH_TOKENS = 40
DISK = "64m"


def call(base: str, path: str, body: dict | None, token: str, timeout: float = 90) -> tuple[int, dict, float]:
    """(status, JSON body, seconds); status 0 when the connection failed."""
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(f"{base}/api/v1/{path}", data,
                                     {"Content-Type": "application/json", "Authorization": f"Bearer {token}"})
    started = time.monotonic()
    try:
        with urllib.request.urlopen(request, timeout=timeout) as r:
            return r.status, json.loads(r.read() or b"{}"), time.monotonic() - started
    except urllib.error.HTTPError as exc:
        try:
            answer = json.loads(exc.read() or b"{}")
        except ValueError:
            answer = {}
        return exc.code, answer, time.monotonic() - started
    except OSError:
        return 0, {}, time.monotonic() - started


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# --- a hub to hurt ----------------------------------------------------------------------------------

ISSUE = ("import json; from memoryhub.agents.models import ApiToken; "
         "print(json.dumps([ApiToken.issue(name=f'agent-{n}')[1] for n in range(%d)]))")


class Hub:
    """`manage.py serve --no-worker` (one web process) on a data dir, optionally inside a namespace of its own.

    `inside` runs the whole setup (migrate, tokens, serve) under another command: unshare and a mount for
    the full disk. `path(name)` is a file of the data dir as this process reaches it."""

    def __init__(self, data: Path, env: dict | None = None, inside: list[str] | None = None):
        self.data, self.port, self.inside = data, free_port(), inside or []
        self.base = f"http://127.0.0.1:{self.port}"
        self.env = {**os.environ, "MEMORYHUB_DATA_DIR": str(data), "MEMORYHUB_BIND": f"127.0.0.1:{self.port}",
                    "MEMORYHUB_Q_SYNC": "false", "MEMORYHUB_RATE_LIMIT_PER_MINUTE": str(10**9), **(env or {})}
        # SQLite in the data dir (its lock, its file on the small disk), and Redis only when a fault asks for it.
        for key in {"DJANGO_SETTINGS_MODULE", "DJANGO_ALLOW_ASYNC_UNSAFE", "DATABASE_URL", "REDIS_URL"} - set(env or {}):
            self.env.pop(key, None)
        py = sys.executable
        setup = (f"{py} manage.py migrate --noinput -v0 && {py} manage.py shell -c {_quote(ISSUE % (FRESH_TOKENS + 1))}"
                 f" > {_quote(str(data / 'tokens.json'))} && exec {py} manage.py serve --no-worker --web-workers 1")
        self.log = open(Path(tempfile.gettempdir()) / f"memoryhub-storage-faults-{self.port}.log", "w")
        self.proc = subprocess.Popen([*(inside or []), "sh", "-c", setup], cwd=ROOT, env=self.env, stdout=self.log,
                                     stderr=subprocess.STDOUT)
        if not self.answers(120):
            raise RuntimeError(f"the hub did not start: {self.close()[-3000:]}")
        tokens = json.loads(self.path("tokens.json").read_text().strip().splitlines()[-1])
        self.token, self.fresh = tokens[0], tokens[1:]

    def path(self, name: str) -> Path:
        """A file of the data dir, through the server's own view of the file system (its mount namespace)."""
        return Path(f"/proc/{self.proc.pid}/root") / str(self.data).lstrip("/") / name

    def answers(self, seconds: float) -> bool:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline and self.proc.poll() is None:
            if call(self.base, "health", None, "", timeout=2)[0] == 200:
                return True
            time.sleep(0.2)
        return False

    def query(self, statement: str, params: list | tuple = ()) -> list[tuple]:
        """Rows from the hub's database, read where the server sees it (SQLite resolves /proc/<pid>/root to /,
        so a namespaced hub's file is read by a process that enters its namespaces)."""
        if not self.inside:
            with sqlite3.connect(self.data / "memoryhub.sqlite3", timeout=60) as db:
                return db.execute(statement, params).fetchall()
        enter = ["nsenter", "-t", str(self.proc.pid), "-m", *(["-U", "--preserve-credentials"]
                                                              if "--user" in self.inside else [])]
        script = ("import json, sqlite3, sys\n"
                  f"db = sqlite3.connect({str(self.data / 'memoryhub.sqlite3')!r}, timeout=60)\n"
                  "print(json.dumps(db.execute(sys.argv[1], json.loads(sys.argv[2])).fetchall()))\n")
        out = subprocess.run([*enter, sys.executable, "-c", script, statement, json.dumps(list(params))],
                             capture_output=True, text=True, timeout=120, check=True).stdout
        return [tuple(row) for row in json.loads(out)]

    def stored(self, keys: list[str]) -> set[str]:
        if not keys:
            return set()
        found = self.query(f"SELECT idempotency_key FROM memories_entry WHERE idempotency_key IN "
                           f"({', '.join('?' * len(keys))})", keys)
        return {key for (key,) in found}

    def close(self) -> str:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.log.close()
        log = Path(self.log.name)
        text = log.read_text() if log.exists() else ""
        log.unlink(missing_ok=True)
        return text


def _quote(text: str) -> str:
    return "'" + text.replace("'", "'\\''") + "'"


class Agents:
    """Requests by kind, with what each answered and how long it took."""

    def __init__(self, hub: Hub):
        self.hub, self.lock, self.seen = hub, threading.Lock(), []  # (kind, started, status, seconds)
        self.confirmed: dict[str, str] = {}
        self.sent = 0

    def note(self, kind: str, started: float, status: int, seconds: float) -> None:
        with self.lock:
            self.seen.append((kind, started, status, seconds))

    def turn(self, text: str = "") -> int:
        with self.lock:
            self.sent += 1
            key = f"fault-{self.sent}"
        body = {"session_id": "writer", "user": text or f"turn {key}: the deploy moved to the new cluster",
                "assistant": "noted", "idempotency_key": key}
        started = time.monotonic()
        status, answer, took = call(self.hub.base, "turns", body, self.hub.token)
        self.note("turn", started, status, took)
        if status in (200, 201):
            with self.lock:
                self.confirmed[key] = answer["entry"]["id"]
        return status

    def read(self, kind: str, n: int) -> int:
        """One read of a kind: `search` (a known session), `search-new-session`, `first-call` (a new token's
        first request), `context-new-session`."""
        token = self.hub.fresh[n % len(self.hub.fresh)] if kind == "first-call" else self.hub.token
        session = "reader" if kind == "search" else f"{kind}-{n}"
        if kind.startswith("context"):
            path, body = "context", {"session_id": session, "query": "deploy cluster"}
        else:
            path, body = "tools/memory_search", {"session_id": session, "arguments": {"query": "deploy cluster"}}
        started = time.monotonic()
        status, _, took = call(self.hub.base, path, body, token)
        self.note(kind, started, status, took)
        return status

    def first_write_answered_after(self, moment: float) -> float | None:
        """Seconds from `moment` until the first turn answered 201/200 after it."""
        done = [started + took - moment for kind, started, status, took in self.seen
                if kind == "turn" and status in (200, 201) and started + took >= moment]
        return round(min(done), 2) if done else None

    def figures(self, since: float = 0.0, until: float = float("inf")) -> dict:
        """By kind: how many, their statuses, the slowest and the median, for requests started in [since, until)."""
        kinds: dict[str, list] = {}
        for kind, started, status, took in self.seen:
            if since <= started < until:
                kinds.setdefault(kind, []).append((status, took))
        out = {}
        for kind, rows in kinds.items():
            times = sorted(t for _, t in rows)
            out[kind] = {"n": len(rows), "statuses": dict(Counter(str(s) for s, _ in rows)),
                         "median_s": round(times[len(times) // 2], 2), "slowest_s": round(times[-1], 2)}
        return out


READS = ("search", "search-new-session", "first-call", "context-new-session")


def reading(agents: Agents, kind: str, stop: threading.Event) -> threading.Thread:
    def run():
        n = 0
        while not stop.is_set():
            agents.read(kind, n)
            n += 1
    thread = threading.Thread(target=run)
    thread.start()
    return thread


def writing(agents: Agents, stop: threading.Event) -> threading.Thread:
    def run():
        while not stop.is_set():
            if agents.turn() not in (200, 201):
                time.sleep(0.2)
    thread = threading.Thread(target=run)
    thread.start()
    return thread


def answering_again(agents: Agents, seconds: float = 120) -> float | None:
    """Seconds until a turn is answered 201 again (None: not within `seconds`)."""
    started = time.monotonic()
    while time.monotonic() - started < seconds:
        if agents.turn() in (200, 201):
            return round(time.monotonic() - started, 2)
        time.sleep(0.2)
    return None


def lost(hub: Hub, agents: Agents) -> int:
    return len(set(agents.confirmed) - hub.stored(list(agents.confirmed)))


# --- the faults -------------------------------------------------------------------------------------

def held_lock(hold: float = 30.0) -> dict:
    data = Path(tempfile.mkdtemp(prefix="memoryhub-lock-"))
    hub = Hub(data)
    try:
        agents = Agents(hub)
        for _ in range(3):
            agents.turn()
        agents.read("search", 0)
        holder = subprocess.Popen([sys.executable, "-c", (
            "import sqlite3, sys, time\n"
            f"db = sqlite3.connect({str(data / 'memoryhub.sqlite3')!r}, isolation_level=None)\n"
            "db.execute('BEGIN IMMEDIATE')\nprint('held', flush=True)\n"
            f"time.sleep({hold})\ndb.execute('ROLLBACK')\nprint('released', flush=True)\n")],
            stdout=subprocess.PIPE, text=True)
        assert holder.stdout.readline().strip() == "held"
        began = time.monotonic()
        stop = threading.Event()
        threads = [*(reading(agents, kind, stop) for kind in READS), writing(agents, stop)]
        assert holder.stdout.readline().strip() == "released"
        released = time.monotonic()
        holder.wait()
        stop.set()
        for thread in threads:
            thread.join(120)
        if agents.first_write_answered_after(released) is None:
            answering_again(agents)
        return {"fault": f"another program holds SQLite's write lock for {hold:.0f} s",
                "during": agents.figures(began, released),
                "writes_answered_again_after_s": agents.first_write_answered_after(released),
                "lost": lost(hub, agents), "server_alive": hub.proc.poll() is None}
    finally:
        hub.close()
        shutil.rmtree(data, ignore_errors=True)


def namespace() -> list[str] | None:
    """The command prefix that runs a program with a private mount namespace (None: this machine allows none)."""
    for prefix in (["unshare", "--user", "--map-root-user", "--mount"], ["unshare", "--mount"]):
        try:
            if subprocess.run([*prefix, "true"], capture_output=True, timeout=10).returncode == 0:
                return prefix
        except (OSError, subprocess.TimeoutExpired):
            continue
    return None


@contextmanager
def small_disk_hub(size: str = DISK, env: dict | None = None):
    """A hub whose data dir is a tmpfs of `size` that only it sees (None when namespaces are not allowed)."""
    prefix = namespace()
    if prefix is None:
        yield None
        return
    data = Path(tempfile.mkdtemp(prefix="memoryhub-disk-"))
    mount = [*prefix, "sh", "-c", f'mount -t tmpfs -o size={size},mode=0700 memoryhub-disk "$0" && exec "$@"',
             str(data)]
    hub = Hub(data, env, inside=mount)
    try:
        yield hub
    finally:
        hub.close()
        shutil.rmtree(data, ignore_errors=True)


def fill(path: Path) -> int:
    """Write `path` until the file system is full; returns the bytes written."""
    written = 0
    with open(path, "wb", buffering=0) as ballast:
        for chunk in (1 << 20, 1 << 12, 1 << 9):
            block = b"\0" * chunk
            while True:
                try:
                    written += ballast.write(block)
                except OSError:
                    break
    return written


def full_disk() -> dict:
    with small_disk_hub() as hub:
        if hub is None:
            return {"fault": "full disk", "skipped": "this machine allows no private mount namespace"}
        agents = Agents(hub)
        for _ in range(3):
            agents.turn()
        agents.read("search", 0)
        ballast = fill(hub.path("ballast"))
        began = time.monotonic()
        for n in range(30):  # until a write fails for want of space (the WAL may have room for a few)
            if agents.turn("a longer turn " * 500) not in (200, 201) and n >= 5:
                break
        for n in range(FRESH_TOKENS):
            for kind in READS:
                if kind == "first-call" or n < 10:
                    agents.read(kind, n)
        ended = time.monotonic()
        alive = hub.proc.poll() is None and call(hub.base, "health", None, "", timeout=5)[0] == 200
        hub.path("ballast").unlink()
        again = answering_again(agents) if alive else None
        return {"fault": f"the data dir's {DISK} file system full ({ballast >> 20} MiB of ballast)",
                "during": agents.figures(began, ended), "server_alive_while_full": alive,
                "writes_answered_again_after_s": again, "lost": lost(hub, agents) if alive else None}


def redis_down() -> dict:
    port = free_port()
    data = Path(tempfile.mkdtemp(prefix="memoryhub-redis-"))

    def redis() -> subprocess.Popen:
        return subprocess.Popen(["redis-server", "--bind", "127.0.0.1", "--port", str(port), "--save", "",
                                 "--appendonly", "no", "--dir", str(data)], stdout=subprocess.DEVNULL)

    server = redis()
    time.sleep(0.5)
    hub = Hub(data, {"REDIS_URL": f"redis://127.0.0.1:{port}/0", "MEMORYHUB_WORKER_PROCESSES": "1"})
    worker = None
    try:
        agents = Agents(hub)
        for _ in range(3):
            agents.turn()
        server.kill()
        server.wait()
        began = time.monotonic()
        for n in range(20):
            agents.turn()
            agents.read("search", n)
        ended = time.monotonic()
        answered_error = {f"fault-{n}" for n in range(4, agents.sent + 1)} - set(agents.confirmed)
        committed_anyway = hub.stored(sorted(answered_error))
        server = redis()
        worker = subprocess.Popen([sys.executable, "manage.py", "qcluster"], cwd=ROOT, env=hub.env,
                                  stdout=hub.log, stderr=subprocess.STDOUT, start_new_session=True)
        back = time.monotonic()
        followed_up = None
        while time.monotonic() - back < 240:
            [(pending,)] = hub.query("SELECT count(*) FROM memories_entry WHERE enrich_pending")
            [(waiting,)] = hub.query("SELECT count(*) FROM jobs_job WHERE status = 'queued'")
            if pending == 0 and waiting == 0:
                followed_up = round(time.monotonic() - back, 1)
                break
            time.sleep(1)
        return {"fault": "Redis killed while agents write", "during": agents.figures(began, ended),
                "committed_but_answered_an_error": len(committed_anyway),
                "follow_ups_done_after_redis_returned_s": followed_up,
                "still_pending": None if followed_up is not None else {"entries": pending, "jobs": waiting},
                "lost": lost(hub, agents)}
    finally:
        if worker is not None:
            os.killpg(worker.pid, signal.SIGTERM)
            try:
                worker.wait(60)
            except subprocess.TimeoutExpired:
                os.killpg(worker.pid, signal.SIGKILL)
                worker.wait()
        hub.close()
        server.kill()
        server.wait()
        shutil.rmtree(data, ignore_errors=True)


FAULTS = {"held-lock": held_lock, "full-disk": full_disk, "redis-down": redis_down}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("faults", nargs="*", help=f"any of {', '.join(FAULTS)} (default: all of them)")
    args = parser.parse_args()
    unknown = set(args.faults) - set(FAULTS)
    if unknown:
        parser.error(f"no such fault: {', '.join(sorted(unknown))}")
    for name in args.faults or FAULTS:
        print(json.dumps(FAULTS[name](), indent=2), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
