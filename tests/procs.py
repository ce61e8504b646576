"""Helpers for tests that run real hub processes (qcluster, a Django shell) on their own database."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import uuid
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import pytest

from tests.livehub import answers, free_port, serve_web, stop
from tests.migrated import migrate  # noqa: F401 — the hubs of these tests migrate through it

ROOT = Path(__file__).resolve().parent.parent

# A fault run too slow for `make test` (a real hub per fault, each kind of child killed): `make load` runs these
# (MEMORYHUB_LOAD=1 pytest -m load); `make test` keeps a short version of each beside it.
LOAD = (pytest.mark.load, pytest.mark.skipif(not os.environ.get("MEMORYHUB_LOAD"), reason="a slow fault run: make load"))


def load(test):
    """Mark a test as one of `make load`'s slow fault runs (for one case of a parametrized test: marks=LOAD)."""
    for mark in LOAD:
        test = mark(test)
    return test


def on_postgres() -> bool:
    return os.environ.get("DATABASE_URL", "").startswith(("postgres://", "postgresql://"))


@contextmanager
def hub_env(tmp_path: Path):
    """An environment for child processes: own data dir, async jobs, and a fresh database
    (SQLite in the data dir, or a new PostgreSQL database when DATABASE_URL names a server)."""
    env = {**os.environ, "MEMORYHUB_DATA_DIR": str(tmp_path), "MEMORYHUB_Q_SYNC": "false",
           "MEMORYHUB_WORKER_PROCESSES": "1", "DJANGO_SETTINGS_MODULE": "memoryhub.settings"}
    if not on_postgres():
        env.pop("DATABASE_URL", None)
        yield env
        return
    import psycopg

    url = urlsplit(os.environ["DATABASE_URL"])
    name = f"memoryhub_e2e_{uuid.uuid4().hex[:10]}"
    admin_url = urlunsplit(url._replace(path="/postgres"))
    with psycopg.connect(admin_url, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    env["DATABASE_URL"] = urlunsplit(url._replace(path=f"/{name}"))
    try:
        yield env
    finally:
        with psycopg.connect(admin_url, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def manage(env: dict, *args: str, timeout: float = 120) -> str:
    return subprocess.run([sys.executable, "manage.py", *args], cwd=ROOT, env=env, check=True,
                          capture_output=True, text=True, timeout=timeout).stdout


def in_django(env: dict, code: str, timeout: float = 120) -> str:
    """Run `code` in a fresh Django process (after django.setup()) and return its stdout."""
    script = "import django\ndjango.setup()\n" + code
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=timeout)
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


@contextmanager
def qcluster(env: dict, log: Path):
    """A real django-q2 cluster, stopped (and its workers with it) when the block ends."""
    with open(log, "w") as out:
        proc = subprocess.Popen([sys.executable, "manage.py", "qcluster"], cwd=ROOT, env=env, stdout=out,
                                stderr=subprocess.STDOUT, start_new_session=True)
    try:
        yield proc
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()


@contextmanager
def web_node(env: dict, log: Path):
    """`manage.py serve --no-worker` (one web process) on a free loopback port, as one more web node of a hub;
    yields its base URL and stops it (SIGTERM: serve stops its gunicorn) when the block ends."""
    port = free_port()
    env = {**env, "MEMORYHUB_BIND": f"127.0.0.1:{port}"}
    env.pop("DJANGO_SETTINGS_MODULE", None)
    with open(log, "w") as out:
        proc = serve_web(env, out)
    base = f"http://127.0.0.1:{port}"
    try:
        if not answers(base, proc, 60):
            raise AssertionError(log.read_text()[-3000:])
        yield base
    finally:
        stop(proc)
