"""Storage faults: a write nobody wrapped queues for the lock; another program holds it; the disk fills; Redis dies.

The slow figures (a 30 s hold, every kind of read, Redis coming back with a worker) are bench/storage_faults.py's,
in `make load`; these are the same faults made short.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from contextlib import contextmanager

import pytest
from django.db import connection, transaction

from bench.storage_faults import FRESH_TOKENS, Agents, fill, small_disk_hub
from memoryhub.agents.models import AgentSession, ApiToken
from memoryhub.core import background
from memoryhub.memories.models import Entry, OpLog
from memoryhub.spaces.models import MemorySpace
from tests.procs import ROOT, hub_env, in_django, load, manage, migrate, on_postgres, web_node

sqlite_only = pytest.mark.skipif(on_postgres(), reason="SQLite's one write lock; PostgreSQL has row locks")


def child(script: str) -> subprocess.Popen:
    """A Django process of its own on this test database, printing as it goes."""
    prelude = ("import django\nfrom django.conf import settings\n"
               f"settings.DATABASES['default']['NAME'] = {str(connection.settings_dict['NAME'])!r}\n"
               "django.setup()\n")
    return subprocess.Popen([sys.executable, "-c", prelude + script], cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


@sqlite_only
@pytest.mark.django_db(transaction=True)
def test_a_plain_orm_write_of_another_process_queues_for_the_lock_instead_of_failing():
    """Nobody wrapped these writes: a create in an atomic block and an update outside one, in a process whose
    SQLite gives up after 0.1 s. They wait for this process's open transaction instead of failing with
    "database is locked" (the backend queues every write: memoryhub.core.sqlite)."""
    space = MemorySpace.objects.create(slug="held", name="held")
    with transaction.atomic():
        MemorySpace.objects.filter(pk=space.pk).update(name="held by the test")
        waiting = child(
            "from django.db import connection, transaction\n"
            "from memoryhub.spaces.models import MemorySpace\n"
            "connection.ensure_connection()\n"
            "connection.connection.execute('PRAGMA busy_timeout = 100')\n"
            "print('ready', flush=True)\n"
            "with transaction.atomic():\n"
            "    MemorySpace.objects.create(slug='from-the-child', name='created')\n"
            "MemorySpace.objects.filter(slug='from-the-child').update(name='updated')\n"
            "print('written', flush=True)\n")
        assert waiting.stdout.readline().strip() == "ready"
        time.sleep(1.5)  # fifteen times the child's busy timeout
        assert waiting.poll() is None, waiting.stderr.read()  # queued, not failed
    out, err = waiting.communicate(timeout=60)
    assert waiting.returncode == 0, err
    assert out.strip() == "written"
    assert MemorySpace.objects.get(slug="from-the-child").name == "updated"


def holding_sqlite_lock() -> subprocess.Popen:
    """Another program with SQLite's write lock (BEGIN IMMEDIATE, as a sqlite3 shell left open would), until told."""
    holder = subprocess.Popen([sys.executable, "-c", (
        "import sqlite3, sys\n"
        f"db = sqlite3.connect({str(connection.settings_dict['NAME'])!r}, isolation_level=None)\n"
        "db.execute('BEGIN IMMEDIATE')\nprint('held', flush=True)\nsys.stdin.readline()\ndb.execute('ROLLBACK')\n")],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert holder.stdout.readline().strip() == "held"
    return holder


@sqlite_only
@pytest.mark.django_db(transaction=True)
def test_reads_answer_while_another_program_holds_the_write_lock_and_their_bookkeeping_follows(api_factory):
    """Every read the thread guard lets through (the operations declared `reads`) answers while the lock is held: for a
    known session, a new one, a new token's first call. Before, a read that needed a session row or a last-used
    write waited for the lock (20 s, then 500). Their recall notes, session rows and last-used land after."""
    agent, newcomer = api_factory(name="agent"), api_factory(name="newcomer")
    saved = agent.tool("memory_note", text="the deploy runs on Fridays").json()["result"]
    agent.tool("memory_search", query="deploy")
    background.drain(30)
    hits, notes = Entry.objects.get(pk=saved["id"]).hits, OpLog.objects.filter(operation="recall").count()
    holder = holding_sqlite_lock()
    try:  # while it holds, any wait for the lock would end in "database is locked", never in a 200
        answers = [agent.tool("memory_search", query="deploy Fridays"),
                   agent.tool("memory_search", session_id="new-session", query="deploy Fridays"),
                   newcomer.tool("memory_search", session_id="first", query="deploy Fridays"),
                   agent.post("context", {"session_id": "new-context", "query": "deploy"}),
                   agent.tool("memory_recall", id=saved["id"]),
                   agent.tool("memory_status", session_id="new-status")]
        assert holder.poll() is None
    finally:
        holder.communicate("\n", timeout=30)
    assert [a.status_code for a in answers] == [200] * 6, [a.json() for a in answers]
    assert "Fridays" in answers[3].json()["text"]
    assert background.drain(60)
    assert Entry.objects.get(pk=saved["id"]).hits == hits + 5  # three searches, /context and the recall
    assert OpLog.objects.filter(operation="recall").count() == notes + 5
    assert {"new-session", "new-context", "new-status"} <= set(AgentSession.objects.values_list("session_id", flat=True))
    assert AgentSession.objects.filter(token=newcomer.token, session_id="first").exists()
    assert ApiToken.objects.get(pk=newcomer.token.pk).last_used_at is not None
    assert AgentSession.objects.get(session_id="new-context").snapshot.get("notebooks")


@sqlite_only
@pytest.mark.django_db(transaction=True)
def test_a_write_that_outwaits_the_busy_timeout_answers_503_busy_and_is_not_stored(api):
    assert api.tool("memory_search", query="anything").status_code == 200  # its bookkeeping done before the hold
    background.drain(30)
    holder = holding_sqlite_lock()
    try:
        connection.ensure_connection()
        connection.connection.execute("PRAGMA busy_timeout = 200")  # instead of waiting 20 s for the same answer
        answer = api.turn("a turn that finds the lock taken")
    finally:
        holder.communicate("\n", timeout=30)
        connection.close()
    assert answer.status_code == 503 and answer.json()["error"]["code"] == "busy", answer.json()
    assert int(answer["Retry-After"]) > 0
    assert not Entry.objects.filter(kind="turn").exists()
    assert api.turn("a turn once the lock is free").status_code == 201


@contextmanager
def database_full():
    """SQLite's own SQLITE_FULL, as on a full disk: the database may not grow past the pages it has now. VACUUM
    first: the pages earlier tests freed (their rows flushed) would otherwise take many writes to use up."""
    with connection.cursor() as cursor:
        cursor.execute("VACUUM")
        cursor.execute("PRAGMA max_page_count")
        limit = cursor.fetchone()[0]
        cursor.execute("PRAGMA page_count")
        cursor.execute(f"PRAGMA max_page_count = {cursor.fetchone()[0]}")
    try:
        yield
    finally:
        with connection.cursor() as cursor:
            cursor.execute(f"PRAGMA max_page_count = {limit}")


@sqlite_only
@pytest.mark.django_db(transaction=True)
def test_with_the_database_full_writes_answer_507_reads_still_answer_and_writes_come_back(api_factory, caplog):
    """The short version of the full disk below (make load puts the data dir on a real small disk, where the reads'
    bookkeeping fails too): SQLite refuses to grow the database. Before, writes and every read answered 500
    `internal`; now a write is 507 and stores nothing, reads answer, and writes are stored again once there is room."""
    agent, newcomers = api_factory(name="agent"), [api_factory(name=f"fresh-{n}") for n in range(3)]
    assert agent.turn("the deploy moved to the new cluster", idempotency_key="fault-1").status_code == 201
    confirmed, failed = {"fault-1"}, None
    with database_full():
        for n in range(30):  # until a write finds no page left (a page or two free in the file take a few)
            # each text its own: the same text again in a session is answered as the first (200), never stored
            answer = agent.turn(f"turn {n} about the cluster " * 200, idempotency_key=f"full-{n}")
            if answer.status_code != 201:
                failed = answer
                break
            confirmed.add(f"full-{n}")
        reads = [agent.tool("memory_search", session_id=session, query="deploy cluster").status_code
                 for session in ("s1", "a-new-session")]
        reads.append(agent.post("context", {"session_id": "new-context", "query": "deploy"}).status_code)
        firsts = [newcomer.tool("memory_search", session_id="first", query="deploy cluster").status_code
                  for newcomer in newcomers]
    assert failed is not None and failed.status_code == 507, failed and failed.json()
    assert failed.json()["error"]["code"] == "insufficient_storage"
    assert reads == [200] * 3 and firsts == [200] * 3
    assert agent.turn("once there is room again", idempotency_key="fault-2").status_code == 201
    stored = set(Entry.objects.filter(kind="turn").values_list("idempotency_key", flat=True))
    assert stored == confirmed | {"fault-2"}  # every confirmed write is there, the refused one is not
    assert "Traceback" not in caplog.text


@sqlite_only
@load
def test_with_the_disk_full_writes_answer_507_reads_still_answer_and_writes_come_back_with_space():
    """The data dir on a small tmpfs of its own (a user and mount namespace: no root needed), filled with ballast.
    Before, writes and every read answered 500 `internal` (the reads' bookkeeping failed with them)."""
    with small_disk_hub("48m") as hub:
        if hub is None:
            pytest.skip("this machine allows no private mount namespace (unshare)")
        agents = Agents(hub)
        assert agents.turn() == 201
        fill(hub.path("ballast"))
        failed = next((s for s in (agents.turn("a longer turn " * 500) for _ in range(30)) if s != 201), None)
        reads = [agents.read(kind, n) for n in range(3)
                 for kind in ("search", "search-new-session", "context-new-session")]
        firsts = [agents.read("first-call", n) for n in range(FRESH_TOKENS)]
        hub.path("ballast").unlink()
        again = agents.turn()
        stored = hub.stored(list(agents.confirmed))
        log = hub.close()
    assert failed == 507, log[-3000:]
    assert reads == [200] * 9 and firsts == [200] * FRESH_TOKENS
    assert again == 201
    assert stored == set(agents.confirmed)  # every write that was confirmed is there
    assert "Traceback" not in log


@pytest.mark.django_db
def test_with_redis_down_writes_answer_their_receipts_and_the_sweeps_do_their_follow_ups(
        api, redis_down, caplog, django_capture_on_commit_callbacks):
    """The short version of the served hub below: the turns commit, then handing their follow-ups (enrichment, a
    persona rebuild) to the worker fails. Before, the first turn of each space answered 500 although it was
    stored; now each answers its receipt, the failure is logged, and the sweeps do the work once a worker can."""
    from datetime import timedelta

    from django.utils import timezone

    from memoryhub.jobs import runner
    from memoryhub.jobs.models import Job
    from memoryhub.memories.growth import enrich

    space = MemorySpace.objects.create(slug="redis-down", name="Redis down", settings={"personaEvery": 2})
    with django_capture_on_commit_callbacks(execute=True):
        answers = [api.turn(f"turn {n} about the deploy", space="redis-down").status_code for n in range(3)]
    assert answers == [201] * 3
    assert Entry.objects.filter(space=space, enrich_pending=True).count() == 3
    assert list(Job.objects.values_list("kind", "status", "task_id")) == [("persona_rebuild", "queued", "")]
    assert "not queued" in caplog.text and "sent again once it does" in caplog.text

    redis_down.undo()  # the broker back, and a worker that runs what it is given at once
    past = timezone.now() - timedelta(minutes=2)  # the sweeps take what waited longer than a minute
    Entry.objects.update(created_at=past)
    Job.objects.update(created_at=past)
    runner.dispatch_lost()
    enrich.sweep()
    assert not Entry.objects.filter(enrich_pending=True).exists()
    assert list(Job.objects.values_list("kind", "status")) == [("persona_rebuild", "succeeded")]


@load
def test_with_redis_down_a_committed_write_answers_its_receipt_and_its_follow_ups_run_later(tmp_path):
    """REDIS_URL names a Redis nobody answers: the turns commit, then handing their follow-ups to the worker fails.
    Before, the first turn of each space answered 500 although it was stored. Now each answers its receipt, the
    failure is logged, and the sweeps (enrich_sweep, dispatch_lost) do the work once a worker can."""
    from tests.livehub import free_port

    with hub_env(tmp_path) as env:
        env.update({"REDIS_URL": f"redis://127.0.0.1:{free_port()}/0", "MEMORYHUB_PERSONA_EVERY": "2"})
        migrate(env)
        token = manage(env, "issue_token", "--name", "writer").strip().splitlines()[-1]
        with web_node(env, tmp_path / "web.log") as base:
            from bench.storage_faults import call

            answers = [call(base, "turns", {"session_id": "r", "user": f"turn {n} about the deploy",
                                            "assistant": "ok"}, token) for n in range(3)]
        log = (tmp_path / "web.log").read_text()
        env.pop("REDIS_URL")
        env["MEMORYHUB_Q_SYNC"] = "true"  # the worker, back: the sweeps run here as a worker would run them
        later = json.loads(in_django(env, """
import json
from datetime import timedelta
from django.utils import timezone
from memoryhub.jobs import runner
from memoryhub.jobs.models import Job
from memoryhub.memories.growth import enrich
from memoryhub.memories.models import Entry
before = {"entries": Entry.objects.count(), "pending": Entry.objects.filter(enrich_pending=True).count(),
          "jobs": list(Job.objects.values_list("kind", "status", "task_id"))}
past = timezone.now() - timedelta(minutes=2)  # the sweeps take what waited longer than a minute
Entry.objects.update(created_at=past)
Job.objects.update(created_at=past)
runner.dispatch_lost()
enrich.sweep()
print(json.dumps({"before": before, "pending": Entry.objects.filter(enrich_pending=True).count(),
                  "jobs": list(Job.objects.values_list("kind", "status"))}))
""").strip().splitlines()[-1])
    assert [status for status, _, _ in answers] == [201] * 3, answers
    assert later["before"]["entries"] == 3 and later["before"]["pending"] == 3
    assert ["persona_rebuild", "queued", ""] in later["before"]["jobs"]
    assert "not queued" in log and "sent again once it does" in log and "Traceback" not in log
    assert later["pending"] == 0 and later["jobs"] == [["persona_rebuild", "succeeded"]]


def test_a_redis_that_never_answers_fails_the_enqueue_instead_of_hanging_it(tmp_path):
    """REDIS_URL names a server that accepts connections and never answers (a Redis dropping packets, a wedged
    proxy). Before, django-q2's client had no socket timeout and the enqueue, and the write waiting on it, hung for
    good; now it fails after MEMORYHUB_REDIS_TIMEOUT (plus the worker's 1 s wait) and the caller logs it."""
    from tests.providers.fakes.tarpit import Tarpit

    tarpit = Tarpit()
    try:
        with hub_env(tmp_path) as env:
            env.update({"REDIS_URL": f"redis://127.0.0.1:{tarpit.port}/0", "MEMORYHUB_REDIS_TIMEOUT": "0.5"})
            seen = json.loads(in_django(env, """
import json
import redis
from django_q.brokers import get_broker
from django_q.tasks import async_task
broker = get_broker()
options = broker.connection.connection_pool.connection_kwargs
try:
    async_task("math.floor", 1.5)
    outcome = "queued"
except redis.RedisError as exc:
    outcome = type(exc).__name__
print(json.dumps({"outcome": outcome, "client": type(broker.connection).__module__,
                  "timeouts": [options.get("socket_connect_timeout"), options.get("socket_timeout")]}))
""", timeout=60).strip().splitlines()[-1])
    finally:
        tarpit.stop()
    assert tarpit.accepted >= 1  # the client did reach the server, which never said a word
    assert seen == {"outcome": "TimeoutError", "client": "redis.client", "timeouts": [0.5, 1.5]}
