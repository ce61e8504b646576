"""`make run`'s server command on a free port, spoken to over real HTTP, then stopped with Ctrl-C."""

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from tests.client_helpers import make_space
from tests.procs import LOAD, migrate

ROOT = Path(__file__).resolve().parent.parent


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def manage(env, *args) -> str:
    return subprocess.run([sys.executable, "manage.py", *args], cwd=ROOT, env=env, check=True,
                          capture_output=True, text=True, timeout=120).stdout


def fetch(url, body=None, token=None, timeout=10):
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    data = json.dumps(body).encode() if body is not None else None
    with urllib.request.urlopen(urllib.request.Request(url, data=data, headers=headers), timeout=timeout) as r:
        return r.status, json.loads(r.read())


@pytest.fixture(params=[1, 2], ids=["one-web-worker", "two-web-workers"])
def served(tmp_path, request):
    port = free_port()
    env = {**os.environ, "MEMORYHUB_DATA_DIR": str(tmp_path), "MEMORYHUB_BIND": f"127.0.0.1:{port}",
           "MEMORYHUB_Q_SYNC": "false", "MEMORYHUB_ADMIN_PASSWORD": "pw-for-tests"}
    env.pop("DJANGO_SETTINGS_MODULE", None)
    migrate(env)
    manage(env, "ensure_admin")
    proc = subprocess.Popen([sys.executable, "manage.py", "serve", "--web-workers", str(request.param)], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while True:
        try:
            fetch(f"{base}/api/v1/health")
            break
        except OSError:
            if time.monotonic() > deadline or proc.poll() is not None:
                proc.terminate()
                raise AssertionError(proc.communicate(timeout=40)[0])
            time.sleep(0.3)
    yield base, env, proc, request.param
    if proc.poll() is None:  # a failed test left it running: SIGTERM, so `serve` stops gunicorn and the worker
        proc.terminate()
        proc.wait(timeout=40)


def gunicorn_masters(parent: int) -> list[int]:
    """PIDs of the gunicorn processes `serve` started (one per web worker on Linux, each on SO_REUSEPORT)."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            ppid = int(stat.read_text().rsplit(")", 1)[1].split()[1])
            command = (stat.parent / "cmdline").read_bytes()
        except (OSError, ValueError, IndexError):
            continue
        if ppid == parent and b"gunicorn" in command:
            found.append(int(stat.parent.name))
    return found


def test_served_hub_answers_agents_over_http_and_stops_cleanly(served):
    base, env, proc, web_workers = served
    token = manage(env, "issue_token", "--name", "e2e").strip().splitlines()[-1]
    status, health = fetch(f"{base}/api/v1/health")
    assert status == 200 and health["status"] == "ok"
    status, turn = fetch(f"{base}/api/v1/turns", {"session_id": "s", "user": "served over gunicorn", "assistant": "yes"},
                           token)
    assert status == 201
    status, found = fetch(f"{base}/api/v1/tools/memory_search",
                            {"session_id": "s", "arguments": {"query": "gunicorn"}}, token)
    assert [r["id"] for r in found["result"]["results"]] == [turn["entry"]["id"]]
    with urllib.request.urlopen(f"{base}/static/vendor/htmx.min.js", timeout=10) as r:
        assert r.status == 200
    # The worker, not the request, gives the turn its topic (memories/growth/enrich.py).
    topic = f"from memoryhub.memories.models import Entry; print(Entry.objects.get(pk={turn['entry']['id']}).topic_id)"
    deadline = time.monotonic() + 30
    while manage(env, "shell", "-c", topic).split()[-1] == "None":
        assert time.monotonic() < deadline, "the worker never enriched the turn"
        time.sleep(0.5)
    job_id = manage(env, "shell", "-c", "from memoryhub.jobs.runner import enqueue; print(enqueue('selftest').pk)").split()[-1]
    check = f"from memoryhub.jobs.models import Job; print(Job.objects.get(pk={job_id}).status)"
    deadline = time.monotonic() + 30
    while manage(env, "shell", "-c", check).split()[-1] != "succeeded":
        assert time.monotonic() < deadline, "the worker never ran the job"
        time.sleep(0.5)
    web = gunicorn_masters(proc.pid)
    assert len(web) == (web_workers if sys.platform == "linux" else 1)
    assert all(fetch(f"{base}/api/v1/health")[0] == 200 for _ in range(10))  # new connections, over every socket
    proc.send_signal(signal.SIGINT)
    assert proc.wait(timeout=30) == 0
    output = proc.stdout.read()
    assert "memoryhub stopped." in output
    assert not [pid for pid in web if Path(f"/proc/{pid}").exists()], "a web process outlived serve"


def test_a_read_gets_a_thread_while_more_turn_writers_than_threads_wait_for_the_write_lock(hub):
    """Turn writes may hold all but one of a web process's request threads (asgi.may_wait_for_writes). With SQLite's
    write lock held and six turns waiting on a process of four threads, a read is still answered at once;
    before, it queued behind them until the lock came free."""
    import fcntl
    import threading

    space = make_space(hub, "lock-wait")
    token = hub.token("--space", space, name="lock-waiter")
    statuses: list[int] = []

    def write(n: int) -> None:
        turn = {"session_id": "waiting", "user": f"a turn that waits for the lock ({n})", "assistant": "ok"}
        statuses.append(fetch(f"{hub.url}/api/v1/turns", turn, token, timeout=120)[0])

    lock = os.open(Path(hub.env["MEMORYHUB_DATA_DIR"]) / "memoryhub.sqlite3.writer-lock", os.O_RDWR | os.O_CREAT)
    fcntl.flock(lock, fcntl.LOCK_EX)  # the way every writer of the machine queues (core/sqlite)
    writers = [threading.Thread(target=write, args=(n,)) for n in range(6)]
    try:
        for writer in writers:
            writer.start()
        time.sleep(2)  # the six reach the server and wait for the lock
        # Answered while the lock is still held; before, it queued behind the writers until the lock came free,
        # which here is only after this line (the fetch's timeout would end that wait as a failure).
        assert fetch(f"{hub.url}/api/v1/health")[0] == 200
    finally:
        fcntl.flock(lock, fcntl.LOCK_UN)
        os.close(lock)
        for writer in writers:
            writer.join(120)
    assert statuses == [201] * 6


@pytest.mark.skipif(sys.platform != "linux", reason="reads the process tree from /proc")
@pytest.mark.parametrize("kinds, web", [
    pytest.param(("gunicorn-master",), 1, id="a-gunicorn-master"),
    pytest.param(("gunicorn-worker", "gunicorn-master", "sentinel", "qcluster"), 2, marks=LOAD, id="every-kind"),
])
def test_serve_restarts_a_child_killed_outright_and_leaves_nothing_running(tmp_path, kinds, web):
    """#32: kill -9 of a gunicorn worker, a gunicorn master, the django-q sentinel and the qcluster main while an
    agent writes. Before, each of the last three ended `serve` (a dead master's worker kept answering on its
    SO_REUSEPORT socket; a dead sentinel's workers kept running jobs). Now the hub is whole again, nothing the
    agent saw acknowledged is missing or stored twice, and nothing outlives `serve`. `make test` kills a master
    (a restart by `serve` and an orphan to end); `make load` every kind in turn, with two web processes."""
    from bench import faults

    port = free_port()
    env = {**os.environ, "MEMORYHUB_DATA_DIR": str(tmp_path), "MEMORYHUB_BIND": f"127.0.0.1:{port}",
           "MEMORYHUB_Q_SYNC": "false", "MEMORYHUB_WORKER_PROCESSES": "1", "MEMORYHUB_LOG_LEVEL": "WARNING"}
    env.pop("DJANGO_SETTINGS_MODULE", None)
    migrate(env)
    token = manage(env, "issue_token", "--name", "drill").strip().splitlines()[-1]
    log = tmp_path / "serve.log"
    with open(log, "w") as out:
        proc = subprocess.Popen([sys.executable, "manage.py", "serve", "--web-workers", str(web)], cwd=ROOT, env=env,
                                stdout=out, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    everything: set[int] = set()
    try:
        deadline = time.monotonic() + 90
        while not (faults.whole(proc.pid, web, 1) and faults.answers(base, 1)):
            assert time.monotonic() < deadline and proc.poll() is None, log.read_text()[-3000:]
            time.sleep(0.3)
        with faults.Writers(base, token, clients=1) as writers:
            kills = faults.drill(proc.pid, base, writers, web=web, worker_processes=1, kinds=kinds)
            everything = faults.descendants(proc.pid)
            assert writers.confirmed
    finally:
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=90) == 0
    assert [k["kind"] for k in kills] == list(kinds)
    assert not [k for k in kills if k["orphans_left"]], kills
    assert not [pid for pid in everything if faults.alive(pid)], "a process outlived serve"
    output = log.read_text()
    restarted_by_serve = [kind for kind in kinds if kind != "gunicorn-worker"]  # a worker is gunicorn's to replace
    assert output.count("starting it again in") == len(restarted_by_serve), output
    stored = faults.stored_keys(env)
    assert writers.confirmed <= set(stored) and len(stored) == len(set(stored))


def test_a_search_gets_a_thread_while_tool_writes_space_creations_and_session_ends_wait_for_the_write_lock(hub):
    """Not one path but every request that is not a read counts against the writers' threads: with the lock held
    and six writes of other kinds waiting on a process of four threads, a search and /context answer at once.
    Before, only /turns was counted and four tool writes took every thread."""
    import fcntl
    import threading

    token = hub.token(name="lock-kinds")
    assert fetch(f"{hub.url}/api/v1/tools/memory_note", {"session_id": "k", "arguments": {"text": "the deploy runs "
                                                         "on Fridays"}}, token)[0] == 200
    statuses: list[int] = []
    writes = [("tools/memory_note", {"session_id": f"k{n}", "arguments": {"text": f"a note that waits ({n})"}})
              for n in range(3)]
    writes += [("spaces", {"slug": f"waiting-{n}", "name": f"Waiting {n}"}) for n in range(2)]
    writes += [("sessions/k0/end", {})]

    def write(path: str, body: dict) -> None:
        statuses.append(fetch(f"{hub.url}/api/v1/{path}", body, token, timeout=120)[0])

    lock = os.open(Path(hub.env["MEMORYHUB_DATA_DIR"]) / "memoryhub.sqlite3.writer-lock", os.O_RDWR | os.O_CREAT)
    fcntl.flock(lock, fcntl.LOCK_EX)
    writers = [threading.Thread(target=write, args=w) for w in writes]
    try:
        for writer in writers:
            writer.start()
        time.sleep(2)  # the six reach the server and wait for the lock
        found = fetch(f"{hub.url}/api/v1/tools/memory_search", {"session_id": "reader", "arguments": {
            "query": "deploy Fridays"}}, token)  # within fetch's 10 s, while the writes still wait
        context = fetch(f"{hub.url}/api/v1/context", {"session_id": "reader", "query": "deploy"}, token)
        assert all(writer.is_alive() for writer in writers)
    finally:
        fcntl.flock(lock, fcntl.LOCK_UN)
        os.close(lock)
        for writer in writers:
            writer.join(120)
    assert found[0] == 200 and found[1]["result"]["results"]
    assert context[0] == 200 and "Fridays" in context[1]["text"]
    assert sorted(statuses) == [200, 200, 200, 200, 201, 201]


def serve(env, *args) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "manage.py", "serve", *args], cwd=ROOT, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)


@pytest.fixture
def quiet_env(tmp_path):
    env = {**os.environ, "MEMORYHUB_DATA_DIR": str(tmp_path), "MEMORYHUB_Q_SYNC": "false"}
    env.pop("DJANGO_SETTINGS_MODULE", None)
    manage(env, "migrate", "--noinput", "-v0")
    return env


def test_serving_on_is_said_only_once_the_port_answers(quiet_env):
    port = free_port()
    proc = serve({**quiet_env, "MEMORYHUB_BIND": f"127.0.0.1:{port}"}, "--web-workers", "1", "--no-worker")
    try:
        for line in proc.stdout:
            if "serving on" in line:
                break
        else:
            raise AssertionError(f"serve ended (exit {proc.wait()}) without saying it was serving")
        assert f"http://127.0.0.1:{port}" in line
        with socket.create_connection(("127.0.0.1", port), timeout=5):  # at once: no retry after the line
            pass
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=40)


def test_a_port_something_else_holds_ends_at_once_in_a_sentence_naming_the_variable(quiet_env):
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        port = holder.getsockname()[1]
        proc = serve({**quiet_env, "MEMORYHUB_BIND": f"127.0.0.1:{port}"}, "--web-workers", "2")
        output, _ = proc.communicate(timeout=60)
    assert proc.returncode == 1
    assert f"Port {port} on 127.0.0.1 is already in use" in output
    assert f"MEMORYHUB_BIND=127.0.0.1:{port + 1} make run" in output
    assert "serving on" not in output and "gunicorn" not in output.lower()  # nothing was started
