"""Django's SQLite backend with every write queued for the machine's writer lock (see the package's docstring)."""

from __future__ import annotations

import re

from django.db import OperationalError
from django.db.backends.sqlite3 import base

from memoryhub.core.sqlite import writer

# Statements that never take SQLite's write lock by themselves (transaction control is handled below).
_READS = ("SELECT", "PRAGMA", "EXPLAIN", "VALUES", "BEGIN", "COMMIT", "END", "ROLLBACK", "SAVEPOINT", "RELEASE")
_WRITE_WORD = re.compile(r"\b(INSERT|UPDATE|DELETE|REPLACE)\b", re.IGNORECASE)


def writes(statement: str) -> bool:
    """Whether a statement run outside a transaction writes (a `WITH …` counts when it holds a write verb)."""
    head = statement.lstrip(" \t\r\n(")[:10].upper()
    if head.startswith(_READS):
        return False
    if head.startswith("WITH"):
        return bool(_WRITE_WORD.search(statement))
    return True


class DatabaseWrapper(base.DatabaseWrapper):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.waits_for_writers = True  # False inside sql.without_waiting(): a taken lock raises writer.Busy
        self._holding: writer.WriterLock | None = None

    def _writer(self) -> writer.WriterLock | None:
        name = str(self.settings_dict["NAME"])
        if self.is_in_memory_db() or name.startswith("file:"):
            return None
        return writer.for_database(name)

    def take_writer_lock(self) -> bool:
        """Queue for the writer lock; False when there is none to take (an in-memory database) or held already."""
        lock = self._writer()
        if lock is None or self._holding is not None:
            return False
        lock.acquire(wait=self.waits_for_writers)
        self._holding = lock
        return True

    def drop_writer_lock(self) -> None:
        lock, self._holding = self._holding, None
        if lock is not None:
            lock.release()

    def create_cursor(self, name=None):
        cursor = self.connection.cursor(factory=QueuedCursor)
        cursor.wrapper = self
        return cursor

    def _start_transaction_under_autocommit(self):
        """Every atomic() block: the writer lock first, then BEGIN IMMEDIATE (SQLite's own lock)."""
        self.take_writer_lock()
        try:
            if self.waits_for_writers:
                super()._start_transaction_under_autocommit()
            else:
                self._begin_without_waiting()
        except BaseException:
            self.drop_writer_lock()
            raise

    def _begin_without_waiting(self) -> None:
        """BEGIN with SQLite's busy handler off: a lock another program holds raises Busy instead of a wait."""
        raw = self.connection
        (waited,) = raw.execute("PRAGMA busy_timeout").fetchone()
        raw.execute("PRAGMA busy_timeout = 0")
        try:
            super()._start_transaction_under_autocommit()
        except OperationalError as exc:
            if "locked" in str(exc) or "busy" in str(exc):
                raise writer.Busy(str(exc)) from exc
            raise
        finally:
            raw.execute(f"PRAGMA busy_timeout = {int(waited)}")

    def _set_autocommit(self, autocommit):
        super()._set_autocommit(autocommit)
        if autocommit:  # the end of every outermost atomic(), committed or rolled back
            self.drop_writer_lock()

    def _close(self):
        try:
            return super()._close()
        finally:
            self.drop_writer_lock()  # closed inside a transaction (an error), which then ends without a commit


class QueuedCursor(base.SQLiteCursorWrapper):
    """A write statement outside any transaction (a plain `.update()`, `VACUUM`) queues like a transaction."""

    wrapper: DatabaseWrapper

    def execute(self, query, params=None):
        if self.connection.in_transaction or not writes(query):
            return super().execute(query, params)
        held = self.wrapper.take_writer_lock()
        try:
            return super().execute(query, params)
        finally:
            if held:
                self.wrapper.drop_writer_lock()

    def executemany(self, query, param_list):
        if self.connection.in_transaction or not writes(query):
            return super().executemany(query, param_list)
        held = self.wrapper.take_writer_lock()
        try:
            return super().executemany(query, param_list)
        finally:
            if held:
                self.wrapper.drop_writer_lock()
