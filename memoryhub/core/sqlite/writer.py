"""The machine's writer lock of one SQLite database: a thread lock of the process, then an flock of a file.

The thread lock comes first because an flock belongs to the open file, which every thread of the
process shares: two threads would both "hold" it. A forked child (django-q2's workers) opens its own
file and makes its own thread lock, so it never shares the parent's hold.
"""

from __future__ import annotations

import os
import threading

from django.db import OperationalError

try:
    import fcntl
except ImportError:  # not POSIX: threads queue, processes meet in SQLite's busy handler
    fcntl = None

THREAD_WAIT = 300.0  # seconds a thread waits for the others of its process before it gives up ("locked")


class Busy(OperationalError):
    """Another writer holds the lock and the caller asked not to wait (sql.without_waiting)."""


class WriterLock:
    def __init__(self, database: str):
        self.database = database
        self._threads = threading.Lock()
        self._owner: int | None = None
        self._file: int | None = None

    def acquire(self, wait: bool = True) -> None:
        """Take the lock, waiting in line unless `wait` is False (then Busy at once when it is taken)."""
        me = threading.get_ident()
        if self._owner == me:  # a second connection of this thread: waiting would never end
            raise OperationalError(f"database is locked: this thread already writes to {self.database}")
        if not self._threads.acquire(timeout=THREAD_WAIT) if wait else not self._threads.acquire(blocking=False):
            raise (OperationalError if wait else Busy)("database is locked: another writer holds it")
        try:
            if fcntl is not None:
                fcntl.flock(self._descriptor(), fcntl.LOCK_EX if wait else fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            self._threads.release()
            raise Busy("database is locked: another process writes") from None
        except BaseException:
            self._threads.release()
            raise
        self._owner = me

    def release(self) -> None:
        self._owner = None
        try:
            if fcntl is not None:
                fcntl.flock(self._descriptor(), fcntl.LOCK_UN)
        finally:
            self._threads.release()

    def _descriptor(self) -> int:
        if self._file is None:
            self._file = os.open(f"{self.database}.writer-lock", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        return self._file


_locks: dict[str, WriterLock] = {}
_made = threading.Lock()


def for_database(database: str) -> WriterLock:
    """The process's writer lock of the database file at `database`."""
    lock = _locks.get(database)
    if lock is None:
        with _made:
            lock = _locks.setdefault(database, WriterLock(database))
    return lock


def _forget_after_fork() -> None:
    """A child must not share the parent's descriptors (an flock held through them) nor its thread locks."""
    global _made
    for lock in _locks.values():
        if lock._file is not None:
            os.close(lock._file)
    _locks.clear()
    _made = threading.Lock()


os.register_at_fork(after_in_child=_forget_after_fork)
