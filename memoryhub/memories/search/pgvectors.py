"""pgvector for entry embeddings on PostgreSQL: nearest neighbours from an HNSW index.

When the database has the extension, migration 0012 adds an `embedding vector` column (of no fixed
length, so another model needs no migration) beside the portable float32 bytes; each vector length
gets its own partial HNSW index on `embedding::vector(N)`, made when the first vector of that
length is stored. Without the extension vectors.py searches in NumPy instead.
"""

from __future__ import annotations

import logging
from contextlib import contextmanager

import numpy as np
from django.db import DatabaseError, connection, transaction

from memoryhub.core import sql

log = logging.getLogger(__name__)

TABLE = "memories_entryvector"
BULK_FROM = 10_000  # a backfill this big inserts without the HNSW indexes and builds them once at the end
BUILD_MEMORY = "512MB"  # maintenance_work_mem for that build: 100k × 384 dims fits, and builds in one pass
_in_use: dict[str, bool] = {}
_deferred = False


def in_use() -> bool:
    """Whether this database keeps vectors in a pgvector column too (read once per process)."""
    if connection.vendor != "postgresql":
        return False
    if connection.alias not in _in_use:
        _in_use[connection.alias] = bool(sql.one(
            "SELECT count(*) FROM information_schema.columns WHERE table_name = %s AND column_name = 'embedding'",
            [TABLE])[0])
    return _in_use[connection.alias]


def add_column(conn) -> bool:
    """Add the `embedding` column when pgvector can be had (migration 0012); False leaves NumPy search."""
    if conn.vendor != "postgresql":
        return False
    with conn.cursor() as cur:
        cur.execute("SELECT count(*) FROM pg_available_extensions WHERE name = 'vector'")
        if not cur.fetchone()[0]:
            return False
        try:
            with transaction.atomic(using=conn.alias):
                cur.execute("CREATE EXTENSION IF NOT EXISTS vector")
        except DatabaseError as exc:  # this role may not create it: a superuser can, then migrate again (README)
            log.warning("pgvector is installed but CREATE EXTENSION vector failed: %s", exc)
            return False
        cur.execute(f"ALTER TABLE {TABLE} ADD COLUMN IF NOT EXISTS embedding vector")
    _in_use.pop(conn.alias, None)
    return True


def ensure_hnsw(dims: int) -> None:
    """The HNSW index for vectors of this length; call before the transaction's own inserts."""
    name = f"{TABLE}_hnsw_{int(dims)}"
    if _deferred or sql.one("SELECT count(*) FROM pg_indexes WHERE indexname = %s", [name])[0]:
        return
    # Django checks foreign keys at commit, and PostgreSQL won't index a table with checks pending: run them now.
    sql.run("SET CONSTRAINTS ALL IMMEDIATE")
    sql.run(f"CREATE INDEX IF NOT EXISTS {name} ON {TABLE} "
            f"USING hnsw ((embedding::vector({int(dims)})) vector_cosine_ops) WHERE dims = {int(dims)}")
    sql.run("SET CONSTRAINTS ALL DEFERRED")


@contextmanager
def indexes_built_after():
    """For a big backfill (`manage.py embed`): drop the HNSW indexes, insert, then build each once.

    Inserting into the graph one vector at a time cost 906 s for 100k vectors of 384 dimensions; the
    build after loading took 113 s. Searches scan exactly meanwhile, slower but right, and a worker
    storing vectors in the meantime makes the index again (its inserts are then only slower).
    """
    global _deferred
    for (name,) in sql.rows("SELECT indexname FROM pg_indexes WHERE tablename = %s AND indexname LIKE %s",
                            [TABLE, f"{TABLE}_hnsw_%"]):
        sql.run(f"DROP INDEX IF EXISTS {name}")
    _deferred = True
    try:
        yield
    finally:
        _deferred = False
        for (dims,) in sql.rows(f"SELECT DISTINCT dims FROM {TABLE} WHERE dims > 0"):
            with transaction.atomic():
                sql.run(f"SET LOCAL maintenance_work_mem = '{BUILD_MEMORY}'")
                ensure_hnsw(dims)


def nearest(space_ids: list[int], vector: np.ndarray, k: int, model: str) -> dict[int, float]:
    """The k entries per space nearest to `vector`: entry id → cosine similarity."""
    dims, found = len(vector), {}
    query = literal(vector)
    with transaction.atomic():
        # Keep walking the graph until k rows pass the space filter (pgvector ≥ 0.8; ignored before).
        sql.run("SET LOCAL hnsw.iterative_scan = strict_order")
        sql.run(f"SET LOCAL hnsw.ef_search = {max(40, min(int(k), 1000))}")
        for space_id in space_ids:
            found.update(sql.rows(
                f"SELECT entry_id, 1 - (embedding::vector({dims}) <=> %s::vector({dims})) FROM {TABLE} "
                f"WHERE dims = {dims} AND model = %s AND space_id = %s "
                f"ORDER BY embedding::vector({dims}) <=> %s::vector({dims}) LIMIT %s",
                [query, model, space_id, query, k]))
    return found


def similarities(vector: np.ndarray, entry_ids: list[int], model: str) -> dict[int, float]:
    """Cosine similarity of those entries that have a vector of `model`."""
    dims = len(vector)
    return dict(sql.rows(
        f"SELECT entry_id, 1 - (embedding::vector({dims}) <=> %s::vector({dims})) FROM {TABLE} "
        f"WHERE dims = {dims} AND model = %s AND entry_id IN ({sql.placeholders(entry_ids)})",
        [literal(vector), model, *entry_ids]))


def literal(vector: np.ndarray) -> str:
    """pgvector's text form of a vector: '[0.1,0.2,…]'."""
    return "[" + ",".join(f"{x:.7g}" for x in vector.tolist()) + "]"
