"""pgvector for entry embeddings on PostgreSQL: nearest neighbours from an HNSW index.

When the database has the extension, migration 0012 adds an `embedding vector` column (of no fixed
length, so another model needs no migration) beside the portable float32 bytes; each vector length
gets its own partial HNSW index on `embedding::vector(N)`, made when the first vector of that
length is stored. Without the extension vectors.py searches in NumPy instead.
"""

from __future__ import annotations

import logging

import numpy as np
from django.db import DatabaseError, connection, transaction

from memoryhub import sql

log = logging.getLogger(__name__)

TABLE = "memories_entryvector"
_in_use: dict[str, bool] = {}


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
    if sql.one("SELECT count(*) FROM pg_indexes WHERE indexname = %s", [name])[0]:
        return
    # Django checks foreign keys at commit, and PostgreSQL won't index a table with checks pending: run them now.
    sql.run("SET CONSTRAINTS ALL IMMEDIATE")
    sql.run(f"CREATE INDEX IF NOT EXISTS {name} ON {TABLE} "
            f"USING hnsw ((embedding::vector({int(dims)})) vector_cosine_ops) WHERE dims = {int(dims)}")
    sql.run("SET CONSTRAINTS ALL DEFERRED")


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
