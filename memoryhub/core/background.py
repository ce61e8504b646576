"""Bookkeeping a read does, kept off its path: written now when nothing is in the way, else a moment later.

A read that also records something (an agent's recall bumps access counts and logs a line; a call moves
its token's "last used" and its session's idle clock) must never wait for SQLite's one write lock behind
other writers, nor fail because the write failed: with eight agents writing batches, searches waited
seconds for the lock, and with the disk full every search answered 500. `best_effort` writes at once
when the lock is free; when another writer holds it, the process's bookkeeping thread writes it in
order a moment later; a write that fails (a full disk) is logged and dropped, and the read answers
all the same. A write still queued when the process is killed outright is lost: use this only for
counters, clocks and logs, never for what an agent was told was stored.
"""

from __future__ import annotations

import atexit
import logging
import os
import queue
import threading
import time
from typing import Any, Callable

from django.db import DatabaseError, close_old_connections, transaction

from memoryhub.core import sql
from memoryhub.core.sqlite.writer import Busy

log = logging.getLogger(__name__)

MAX_PENDING = 10_000  # queued writes beyond this are dropped (logged): a lock held for minutes must not eat memory
WARN_EVERY = 60.0  # seconds between two log lines about the same kind of failed bookkeeping

_queue: queue.SimpleQueue = queue.SimpleQueue()
_thread: tuple[int, threading.Thread] | None = None  # (process id, thread): a forked child starts its own
_start = threading.Lock()
_idle = threading.Condition()
_pending = 0
_warned: dict[str, tuple[float, int]] = {}  # what failed -> (when it was last logged, failures since)


def best_effort(work: Callable[..., Any], *args: Any) -> None:
    """Run `work(*args)` in a transaction now if no other writer holds the lock, else on the bookkeeping thread.

    Never raises and never waits for the lock: a failure is logged and the caller goes on."""
    try:
        with sql.without_waiting(), transaction.atomic():
            work(*args)
        return
    except Busy:
        pass
    except DatabaseError as exc:  # a full disk, a database another program locked for good: the read goes on
        _warn(work, exc)
        return
    except Exception:  # a bug in bookkeeping must not fail the read it rides on
        log.exception("bookkeeping %s failed", _name(work))
        return
    _enqueue(work, args)


def drain(timeout: float = 10.0) -> bool:
    """Wait until everything queued so far is written; True when it was (tests, process exit)."""
    with _idle:
        return _idle.wait_for(lambda: _pending == 0, timeout)


def _enqueue(work: Callable[..., Any], args: tuple) -> None:
    global _pending
    with _idle:
        if _pending >= MAX_PENDING:
            _warn(work, RuntimeError(f"{MAX_PENDING} bookkeeping writes are waiting for the lock; this one is dropped"))
            return
        _pending += 1
    _queue.put((work, args))
    _ensure_thread()


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
            with transaction.atomic():  # waits its turn for the lock, as every writer does
                work(*args)
        except DatabaseError as exc:
            _warn(work, exc)
        except Exception:  # a bug must not stop the thread; the request was answered
            log.exception("bookkeeping %s failed", _name(work))
        finally:
            with _idle:
                _pending -= 1
                _idle.notify_all()


def _warn(work: Callable[..., Any], exc: Exception) -> None:
    """One line per kind of failure a minute (a full disk fails every read's bookkeeping), with the count since."""
    name, now = _name(work), time.monotonic()
    last, since = _warned.get(name, (0.0, 0))
    if now - last < WARN_EVERY:
        _warned[name] = (last, since + 1)
        return
    _warned[name] = (now, 0)
    more = f" ({since} more since the last report)" if since else ""
    log.warning("bookkeeping %s not written: %s%s", name, exc, more)


def _name(work: Callable[..., Any]) -> str:
    return f"{getattr(work, '__module__', '')}.{getattr(work, '__qualname__', work)}"


atexit.register(drain, 5.0)
