"""Entry embeddings: the worker stores them, search asks for the nearest ones (fulltext.py blends them in).

Only when an embedding service is configured (memoryhub/core/embeddings.py). Every live entry of an
open native space is embedded after its enrichment; vault text never goes to the service. An
edit drops the entry's vector and the next run embeds it again; another model name means every
entry is embedded again under it.

Nearest neighbours: on PostgreSQL with pgvector, from an HNSW index (pgvectors.py). Elsewhere each
process keeps a space's vectors in a NumPy matrix, reads only rows added since
its last look, and scores them all: about 4 bytes × dimensions per entry of memory, and a few
milliseconds per 100k entries.
"""

from __future__ import annotations

import logging
import threading
import time
from typing import Callable, Iterable

import numpy as np
from django.db import connection, transaction
from django.utils import timezone

from memoryhub.core import embeddings, sql
from memoryhub.memories.search import pgvectors
from memoryhub.spaces.models import MemorySpace
from providers.base import ProviderError

log = logging.getLogger(__name__)

TABLE = pgvectors.TABLE
BATCH = 32
RUN_SECONDS = 240.0  # django-q2 kills a task after 600 s
ERROR_PREFIX = "embeddings: "
# Live entries of a space (param 2) with no vector of a model (param 1).
_MISSING = (f"FROM memories_entry e LEFT JOIN {TABLE} v ON v.entry_id = e.id AND v.model = %s "
            "WHERE e.space_id = %s AND e.deleted_at IS NULL AND v.id IS NULL")


def enabled() -> bool:
    return embeddings.configured()


# --- writing ---------------------------------------------------------------------------------------

def pending_ids(space_id: int, model: str, limit: int, after: int = 0) -> list[int]:
    """Live entries of the space without a vector of `model`, oldest first, from id `after` on."""
    return [row[0] for row in sql.rows(f"SELECT e.id {_MISSING} AND e.id > %s ORDER BY e.id LIMIT %s",
                                       [model, space_id, after, limit])]


def embed_pending(space_id: int, *, progress: Callable[[int, int], None] | None = None,
                  raise_errors: bool = False, seconds: float = RUN_SECONDS) -> int:
    """Embed the live entries of the space that lack a vector of the configured model; how many were done.

    Stops after about `seconds` (a big backlog is worked off run after run, each well inside the
    worker's task timeout). A failing service stops the run and leaves its message on the space
    (the dashboard shows it); the schedule tries again later. Jobs pass `raise_errors` to fail visibly.
    """
    if not enabled():
        return 0
    space = MemorySpace.objects.filter(pk=space_id).first()
    if space is None or not space.is_native or space.is_vault:
        return 0
    model = embeddings.model_name()
    total = _count_pending(space_id, model) if progress else 0
    done = last = 0
    deadline = time.monotonic() + seconds
    client = embeddings.embedder()
    try:
        # The cursor keeps a backfill linear (and passes over an entry edited while it was being embedded).
        while time.monotonic() < deadline and (ids := pending_ids(space_id, model, BATCH, after=last)):
            last = ids[-1]
            texts = {pk: (title, body, digest) for pk, title, body, digest in sql.rows(
                f"SELECT id, title, body, content_hash FROM memories_entry WHERE id IN ({sql.placeholders(ids)})", ids)}
            ids = [pk for pk in ids if pk in texts]
            if not ids:
                continue
            vectors = _embed(client, [f"{texts[pk][0]}\n{texts[pk][1]}".strip() for pk in ids])
            save(space_id, model, [(pk, texts[pk][2]) for pk in ids], vectors)
            done += len(ids)
            if progress:
                progress(done, max(total, done))
    except ProviderError as exc:
        MemorySpace.objects.filter(pk=space_id).update(last_error=(ERROR_PREFIX + exc.message)[:2000])
        log.warning("embedding entries of space %s failed: %s", space_id, exc.message)
        if raise_errors:
            raise
        return done
    finally:
        client.close()
    if space.last_error.startswith(ERROR_PREFIX):
        MemorySpace.objects.filter(pk=space_id).update(last_error="")
    return done


def _embed(client: embeddings.Embedder, texts: list[str]) -> list[np.ndarray | None]:
    """One vector per text; None for a text the service refuses on its own (too long for the model, say).

    A refused batch is tried text by text, so one bad entry cannot hold up every entry after it.
    Failures that are not about the text (down, slow, a bad key) stop the run as they are.
    """
    try:
        return list(client.embed(texts))
    except ProviderError as exc:
        if not _refused(exc):
            raise
    out: list[np.ndarray | None] = []
    for text in texts:
        try:
            out.append(client.embed([text])[0])
        except ProviderError as exc:
            if not _refused(exc):
                raise
            out.append(None)
    return out


def _refused(exc: ProviderError) -> bool:
    status = getattr(exc, "status", None) or 0
    return 400 <= status < 500 and status not in (401, 403, 404, 429)


def _count_pending(space_id: int, model: str) -> int:
    return sql.one(f"SELECT count(*) {_MISSING}", [model, space_id])[0]


def save(space_id: int, model: str, entries: list[tuple[int, str]], vectors: list[np.ndarray | None]) -> None:
    """Replace the vectors of entries whose text is still what was embedded (an edit meanwhile wins).

    A refused text gets a row of no dimensions: not searched, not asked for again until it is edited.
    """
    ids = [pk for pk, _hash in entries]
    dims = max((len(v) for v in vectors if v is not None), default=0)
    pgvector = pgvectors.in_use()
    with transaction.atomic():
        if pgvector and dims:
            pgvectors.ensure_hnsw(dims)
        current = dict(sql.rows(f"SELECT id, content_hash FROM memories_entry WHERE id IN ({sql.placeholders(ids)}) "
                                "AND deleted_at IS NULL", ids))
        sql.run(f"DELETE FROM {TABLE} WHERE entry_id IN ({sql.placeholders(ids)})", ids)
        now = sql.moment(timezone.now())
        rows = [(pk, space_id, model, 0 if vector is None else len(vector),
                 b"" if vector is None else vector.astype(np.float32).tobytes(), now,
                 *([None if vector is None else pgvectors.literal(vector)] if pgvector else []))
                for (pk, digest), vector in zip(entries, vectors) if current.get(pk) == digest]
        columns = "entry_id, space_id, model, dims, data, created_at" + (", embedding" if pgvector else "")
        values = "%s, %s, %s, %s, %s, %s" + (", %s::vector" if pgvector else "")
        sql.run_many(f"INSERT INTO {TABLE} ({columns}) VALUES ({values})", rows)


def drop(entry_ids: Iterable[int]) -> None:
    """Forget the vectors of entries whose text changed or went (inside the caller's transaction)."""
    ids = list(entry_ids)
    if ids:
        sql.run(f"DELETE FROM {TABLE} WHERE entry_id IN ({sql.placeholders(ids)})", ids)


def sweep() -> int:
    """Every five minutes: embed what runs after writes missed (the service was down, or it was just configured)."""
    if not enabled():
        return 0
    model = embeddings.model_name()
    spaces = MemorySpace.objects.filter(provider="native").exclude(access="vault").values_list("pk", flat=True)
    deadline = time.monotonic() + RUN_SECONDS
    return sum(embed_pending(pk, seconds=deadline - time.monotonic()) for pk in spaces if pending_ids(pk, model, 1))


def status(space: MemorySpace) -> dict:
    """For the dashboard: is it on, with which model, how far along, the last failure."""
    if not enabled():
        return {"enabled": False}
    model = embeddings.model_name()
    live = sql.one("SELECT count(*) FROM memories_entry WHERE space_id = %s AND deleted_at IS NULL", [space.pk])[0]
    refused = sql.one(f"SELECT count(*) FROM {TABLE} WHERE space_id = %s AND model = %s AND dims = 0",
                      [space.pk, model])[0]
    return {"enabled": True, "model": model, "live": live, "vault": space.is_vault, "refused": refused,
            "missing": 0 if space.is_vault else _count_pending(space.pk, model),
            "error": space.last_error[len(ERROR_PREFIX):] if space.last_error.startswith(ERROR_PREFIX) else "",
            "index": "pgvector HNSW" if pgvectors.in_use() else "in-process NumPy"}


# --- reading ---------------------------------------------------------------------------------------

def nearest(space_ids: list[int], vector: np.ndarray, k: int) -> dict[int, float]:
    """The k entries per space most similar to `vector` (cosine similarity), entry id → similarity."""
    model = embeddings.model_name()
    if pgvectors.in_use():
        return pgvectors.nearest(space_ids, vector, k, model)
    found = {}
    for space_id in space_ids:
        ids, vecs = _matrices.get(space_id, model, len(vector))
        if not len(ids):
            continue
        scores = vecs @ vector
        top = np.argpartition(-scores, k - 1)[:k] if len(ids) > k else np.arange(len(ids))
        found.update(zip(ids[top].tolist(), scores[top].tolist()))
    return found


def similarities(space_ids: list[int], vector: np.ndarray, entry_ids: list[int]) -> dict[int, float]:
    """Cosine similarity of the given entries that have a vector of the configured model."""
    if not entry_ids:
        return {}
    model = embeddings.model_name()
    if pgvectors.in_use():
        return pgvectors.similarities(vector, entry_ids, model)
    found: dict[int, float] = {}
    for space_id in space_ids:
        for pk, row in _matrices.lookup(space_id, model, len(vector), entry_ids).items():
            found[pk] = float(row @ vector)
    return found


class _SpaceMatrices:
    """Each space's vectors in this process, grown as the table grows (rows are only ever added or replaced).

    A replaced vector overwrites its entry's row; a hard-deleted entry's row stays until the process
    restarts, and search drops it with the entry filter. An edited entry keeps its old vector here
    until the run its edit queued embeds the new text (pgvector has none meanwhile and finds it by words only).
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._spaces: dict[tuple, dict] = {}

    def get(self, space_id: int, model: str, dims: int) -> tuple[np.ndarray, np.ndarray]:
        with self._lock:
            state = self._refresh((connection.alias, space_id, model, dims), space_id, model, dims)
            n = state["n"]  # a later refresh may grow (replace) these arrays, never shrink them
            return state["ids"][:n], state["vecs"][:n]

    def clear(self) -> None:
        with self._lock:
            self._spaces.clear()

    def lookup(self, space_id: int, model: str, dims: int, entry_ids: list[int]) -> dict[int, np.ndarray]:
        """The vectors this space holds of `entry_ids`."""
        with self._lock:
            state = self._refresh((connection.alias, space_id, model, dims), space_id, model, dims)
            return {pk: state["vecs"][state["row"][pk]].copy() for pk in entry_ids if pk in state["row"]}

    def _refresh(self, key: tuple, space_id: int, model: str, dims: int) -> dict:
        state = self._spaces.get(key)
        if state is None:
            state = self._spaces[key] = {"last": 0, "n": 0, "row": {}, "ids": np.zeros(0, np.int64),
                                         "vecs": np.zeros((0, dims), np.float32)}
        newest = sql.one(f"SELECT max(id) FROM {TABLE} WHERE space_id = %s AND model = %s", [space_id, model])[0] or 0
        if newest < state["last"]:  # ids went back: the database was restored from a backup
            del self._spaces[key]
            return self._refresh(key, space_id, model, dims)
        if newest == state["last"]:
            return state
        added = sql.rows(f"SELECT id, entry_id, data FROM {TABLE} WHERE space_id = %s AND model = %s AND id > %s "
                         f"AND dims = %s ORDER BY id", [space_id, model, state["last"], dims])
        state["last"] = newest
        for _id, entry_id, data in added:
            row = state["row"].get(entry_id)
            if row is None:
                row = state["row"][entry_id] = state["n"]
                state["n"] += 1
                _grow(state, state["n"], dims)
                state["ids"][row] = entry_id
            state["vecs"][row] = np.frombuffer(bytes(data), dtype=np.float32)
        return state


def _grow(state: dict, needed: int, dims: int) -> None:
    """Room for `needed` rows, growing by half again so appends stay cheap."""
    if needed <= len(state["ids"]):
        return
    capacity = max(needed, int(len(state["ids"]) * 1.5) + 1024)
    ids = np.zeros(capacity, np.int64)
    vecs = np.zeros((capacity, dims), np.float32)
    ids[: len(state["ids"])] = state["ids"]
    vecs[: len(state["vecs"])] = state["vecs"]
    state["ids"], state["vecs"] = ids, vecs


_matrices = _SpaceMatrices()
clear_cache = _matrices.clear  # tests: a rolled-back test hands out the same row ids again
