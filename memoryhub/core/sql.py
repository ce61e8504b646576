"""Plain SQL for the few statements every agent write runs.

Building a query through the ORM costs about 0.5 ms on a small machine against 0.04 ms for the
same SQL sent as is (bench/ingest.py measures it), and a turn runs a dozen of them. The hot
path uses these helpers for simple statements whose results need no model instance; everything
else stays on the ORM. The SQL must run unchanged on SQLite and PostgreSQL. Here too: what a database
error means (a full disk, a lock another program kept) and a write that must not wait for the lock.
"""

from __future__ import annotations

import errno
import json
from contextlib import contextmanager
from datetime import datetime
from typing import Any, Iterable, Sequence

from django.db import connection, models
from django.utils import timezone


@contextmanager
def without_waiting():
    """Inside, a write transaction that would wait for another writer raises `core.sqlite.writer.Busy` at once.

    For bookkeeping a read does (background.best_effort): it is written now if the lock is free, else later.
    Every write queues for SQLite's lock by itself (the `memoryhub.core.sqlite` backend); PostgreSQL has row
    locks and nothing to skip.
    """
    if connection.vendor != "sqlite" or connection.in_atomic_block:
        yield
        return
    connection.waits_for_writers = False
    try:
        yield
    finally:
        connection.waits_for_writers = True


def out_of_space(exc: BaseException) -> bool:
    """Did a write fail because the disk (or a quota) is full: SQLite's SQLITE_FULL, PostgreSQL's disk_full
    (53100), or ENOSPC/EDQUOT from a file the hub writes?"""
    for cause in _causes(exc):
        if isinstance(cause, OSError) and cause.errno in (errno.ENOSPC, errno.EDQUOT):
            return True
        if getattr(cause, "sqlite_errorcode", None) == 13 or getattr(cause, "sqlstate", None) == "53100":
            return True
        if "database or disk is full" in str(cause):
            return True
    return False


def locked(exc: BaseException) -> bool:
    """Did SQLite give up waiting for its write lock (another program held it past the busy timeout)?"""
    return any(getattr(cause, "sqlite_errorcode", None) == 5 or "database is locked" in str(cause)
               for cause in _causes(exc) if cause.__class__.__name__ in ("OperationalError", "Busy"))


def _causes(exc: BaseException):
    seen = 0
    while exc is not None and seen < 10:
        yield exc
        exc, seen = exc.__cause__ or exc.__context__, seen + 1


def rows(sql: str, params: Sequence[Any] = ()) -> list[tuple]:
    with connection.cursor() as cur:
        cur.execute(sql, params)
        return cur.fetchall()


def one(sql: str, params: Sequence[Any] = ()) -> tuple | None:
    with connection.cursor() as cur:
        cur.execute(sql, params)
        return cur.fetchone()


def run(sql: str, params: Sequence[Any] = ()) -> int:
    """Execute and return the number of rows changed."""
    with connection.cursor() as cur:
        cur.execute(sql, params)
        return cur.rowcount


def run_many(sql: str, param_rows: Iterable[Sequence[Any]]) -> None:
    param_rows = list(param_rows)
    if param_rows:
        with connection.cursor() as cur:
            cur.executemany(sql, param_rows)


def moment(value: datetime | None) -> Any:
    """A datetime as the database stores it (SQLite keeps naive UTC text; the ORM does the same)."""
    return connection.ops.adapt_datetimefield_value(value)


def from_moment(value: Any) -> datetime | None:
    """A datetime column read with plain SQL (SQLite gives naive UTC) as the aware datetime the ORM would give."""
    if value is None or (isinstance(value, datetime) and timezone.is_aware(value)):
        return value
    return connection.ops.convert_datetimefield_value(value, None, connection)  # SQLite only


def json_value(value: Any) -> Any:
    """A JSON column's parameter (the JSONField's own preparation costs 25 µs a value)."""
    if connection.vendor == "sqlite":
        return json.dumps(value)
    return models.JSONField().get_db_prep_save(value, connection)


def json_text(column: str, key: str) -> str:
    """SQL for a JSON column's top-level `key` as text (the one place the two databases spell it differently)."""
    if connection.vendor == "postgresql":
        return f"{column} ->> '{key}'"
    return f"json_extract({column}, '$.{key}')"


def json_array_has_any(column: str, values: Sequence[str]) -> tuple[str, list]:
    """SQL (and its parameters) true when the JSON array in `column` holds any of `values`."""
    if connection.vendor == "postgresql":
        return f"{column} ?| %s", [list(values)]
    return f"EXISTS (SELECT 1 FROM json_each({column}) WHERE json_each.value IN ({placeholders(values)}))", list(values)


def indexed_by(index: str) -> str:
    """SQLite's "INDEXED BY <index>" (nothing elsewhere), for a lookup whose index SQLite would otherwise guess: before
    the first ANALYZE (a new hub, a big import) it takes any index on as many equal columns, such as the space's
    live entries, and reads the whole space."""
    return f"INDEXED BY {index}" if connection.vendor == "sqlite" else ""


def placeholders(values: Sequence[Any]) -> str:
    return ", ".join(["%s"] * len(values))


def insert(obj: models.Model) -> None:
    """INSERT a new instance and set its pk, as save() would (defaults, auto_now) minus its bookkeeping.

    No signals are sent: nothing in memoryhub listens to them. Each field's preparation is worked out
    once per model (`_columns`): asking every field to prepare its value cost a tenth of a turn's write."""
    table, columns, prepare = _columns(type(obj))
    values = [convert(obj, field) for field, convert in prepare]
    (pk,) = one(f"INSERT INTO {table} ({columns}) VALUES ({placeholders(values)}) RETURNING "
                f"{obj._meta.pk.column}", values)
    obj.pk = pk
    obj._state.adding = False
    obj._state.db = connection.alias


_plans: dict[tuple[type, str], tuple[str, str, list]] = {}


def _columns(model: type) -> tuple[str, str, list]:
    """(table, column list, [(field, how to get its value)]) of a model, for this connection's database."""
    key = (model, connection.vendor)
    if key not in _plans:
        fields = [f for f in model._meta.concrete_fields if not f.primary_key]
        prepare = []
        for f in fields:
            if isinstance(f, models.JSONField):
                convert = lambda obj, f: json_value(getattr(obj, f.attname))  # noqa: E731
            elif isinstance(f, models.DateTimeField) and not (f.auto_now or f.auto_now_add):
                convert = lambda obj, f: moment(getattr(obj, f.attname))  # noqa: E731
            elif isinstance(f, (models.CharField, models.TextField, models.IntegerField, models.BooleanField,
                                models.ForeignKey)):
                convert = lambda obj, f: getattr(obj, f.attname)  # noqa: E731 — the value goes in as it is
            else:
                convert = lambda obj, f: f.get_db_prep_save(f.pre_save(obj, True), connection)  # noqa: E731
            prepare.append((f, convert))
        _plans[key] = (model._meta.db_table, ", ".join(connection.ops.quote_name(f.column) for f in fields), prepare)
    return _plans[key]
