"""Bookkeeping writes taken off the request path: one thread per process writes them, in order.

A read that also records something (an agent's recall bumps access counts and logs a line) would
otherwise wait for SQLite's one write lock behind every writer: with eight agents writing batches,
searches waited seconds for it. What is submitted here is written a moment later by a thread of the
process; the request answers at once. Without a worker (`MEMORYHUB_Q_SYNC`, the tests) it runs at
once, like the jobs. A write still queued when the process is killed outright is lost: use this only
for counters and logs, never for what an agent was told was stored.
"""

from __future__ import annotations

import atexit
import logging
import os
import queue
import threading
from typing import Any, Callable

from django.conf import settings
from django.db import close_old_connections

log = logging.getLogger(__name__)

_queue: queue.SimpleQueue = queue.SimpleQueue()
_thread: tuple[int, threading.Thread] | None = None  # (process id, thread): a forked child starts its own
_start = threading.Lock()
_idle = threading.Condition()
_pending = 0


def submit(work: Callable[..., Any], *args: Any) -> None:
    """Run `work(*args)` on the process's bookkeeping thread (at once without a worker)."""
    if settings.Q_CLUSTER.get("sync"):
        work(*args)
        return
    global _pending
    with _idle:
        _pending += 1
    _queue.put((work, args))
    _ensure_thread()


def drain(timeout: float = 10.0) -> bool:
    """Wait until everything submitted so far is written; True when it was (tests, process exit)."""
    with _idle:
        return _idle.wait_for(lambda: _pending == 0, timeout)


def _ensure_thread() -> None:
    global _thread
    with _start:
        if _thread is None or _thread[0] != os.getpid() or not _thread[1].is_alive():
            thread = threading.Thread(target=_run, name="memoryhub-bookkeeping", daemon=True)
            _thread = (os.getpid(), thread)
            thread.start()


def _run() -> None:
    global _pending
    while True:
        work, args = _queue.get()
        close_old_connections()
        try:
            work(*args)
        except Exception:  # a bug or a database error must not stop the thread; the request was answered
            log.exception("background write %s failed", getattr(work, "__name__", work))
        finally:
            with _idle:
                _pending -= 1
                _idle.notify_all()


atexit.register(drain, 5.0)
