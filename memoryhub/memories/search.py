"""Full-text search over native entries, behind one small interface.

SQLite: an FTS5 table whose rowid is the entry id, fed with our own tokens (stemmed words and
CJK bigrams, see text.py) so 中文 and English queries both work; ranked by BM25 and the
log hit boost `1 + ln(1 + hits) × 0.12`. PostgreSQL: the same tokens in a tsvector with a GIN
index and the same BM25 (pgsearch.py). Callers never see SQL or the database vendor: index(),
unindex(), query().
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Iterable

from django.db import connection

from memoryhub.memories import pgsearch
from memoryhub.memories.text import tokenize

FTS_TABLE = "memories_entry_fts"
VOCAB_TABLE = "memories_entry_fts_vocab"
# A query word in more documents than this adds almost nothing to BM25 but makes every search
# score tens of thousands of rows; such words are left out of the match when rarer ones exist.
COMMON_DOCS = 5000
DOC_COUNT_TTL = 120
DOC_COUNT_CACHE_SIZE = 20_000
_doc_count_cache: dict[str, tuple[float, int]] = {}  # token -> (when counted, entries holding it)
HIT_BOOST = 0.12
DIGEST_BOOST = 1.3
CANDIDATES = 200
INNER_CAP = 2000


def create_index(conn) -> None:
    if conn.vendor == "postgresql":
        pgsearch.create(conn)
    elif conn.vendor == "sqlite":
        with conn.cursor() as cur:
            cur.execute(
                f"CREATE VIRTUAL TABLE IF NOT EXISTS {FTS_TABLE} USING fts5("
                "tokens, tokenize = 'unicode61 remove_diacritics 2')"
            )
            cur.execute(f"CREATE VIRTUAL TABLE IF NOT EXISTS {VOCAB_TABLE} USING fts5vocab({FTS_TABLE}, row)")


def drop_index(conn) -> None:
    if conn.vendor == "postgresql":
        pgsearch.drop(conn)
    elif conn.vendor == "sqlite":
        with conn.cursor() as cur:
            cur.execute(f"DROP TABLE IF EXISTS {VOCAB_TABLE}")
            cur.execute(f"DROP TABLE IF EXISTS {FTS_TABLE}")


def document_tokens(entry) -> list[str]:
    parts = [entry.title, entry.summary, entry.body, " ".join(entry.tags or []), " ".join(entry.entities or [])]
    return tokenize(" ".join(p for p in parts if p))


def index(entry, *, new: bool = False) -> None:
    """(Re)index one entry; call inside the write's transaction. A new entry has no old row to drop."""
    if connection.vendor == "postgresql":
        pgsearch.index(entry.pk, document_tokens(entry))
        return
    with connection.cursor() as cur:
        if not new:
            cur.execute(f"DELETE FROM {FTS_TABLE} WHERE rowid = %s", [entry.pk])
        cur.execute(f"INSERT INTO {FTS_TABLE}(rowid, tokens) VALUES (%s, %s)", [entry.pk, " ".join(document_tokens(entry))])


def unindex(entry_ids: Iterable[int]) -> None:
    ids = list(entry_ids)
    if not ids:
        return
    if connection.vendor == "postgresql":
        pgsearch.unindex(ids)
        return
    with connection.cursor() as cur:
        cur.execute(f"DELETE FROM {FTS_TABLE} WHERE rowid IN ({','.join(['%s'] * len(ids))})", ids)


def query_plans(query: str) -> list[tuple[list[str], str]]:
    """(tokens, " OR " | " AND ") queries to try in turn for `query`.

    Normally one OR-query of the distinct tokens. Very common words are left out when rarer ones
    carry the query; when every word is common, documents having them all are tried first, as
    scoring every document that has any of them is what makes a big space slow.
    """
    seen = list(dict.fromkeys(tokenize(query)))[:64]
    if len(seen) < 2:
        return [(seen, " OR ")] if seen else []
    docs = doc_counts(seen)
    rare = [t for t in seen if docs.get(t, 0) <= COMMON_DOCS]
    if rare:
        return [(rare, " OR ")]
    return [(seen, " AND "), (sorted(seen, key=lambda t: docs.get(t, 0))[:2], " OR ")]


def doc_counts(tokens: list[str]) -> dict[str, int]:
    """How many entries hold each token. Counting means reading the token's whole posting list,
    so counts of frequent tokens (the costly ones, and the only ones that decide anything) are
    reused for DOC_COUNT_TTL seconds in this process."""
    now = time.monotonic()
    docs = {t: hit[1] for t in tokens if (hit := _doc_count_cache.get(t)) and now - hit[0] < DOC_COUNT_TTL}
    missing = [t for t in tokens if t not in docs]
    if missing:
        if connection.vendor == "postgresql":
            fresh = pgsearch.doc_counts(missing)
        else:
            with connection.cursor() as cur:
                cur.execute(f"SELECT term, doc FROM {VOCAB_TABLE} WHERE term IN ({','.join(['%s'] * len(missing))})",
                            missing)
                fresh = dict(cur.fetchall())
        if len(_doc_count_cache) > DOC_COUNT_CACHE_SIZE:
            _doc_count_cache.clear()
        for token, count in fresh.items():
            if count >= COMMON_DOCS // 10:
                _doc_count_cache[token] = (now, count)
        docs.update(fresh)
    return docs


def match_expression(tokens: list[str], joiner: str = " OR ") -> str:
    """An FTS5 query of the tokens, each quoted (no operator injection)."""
    return joiner.join('"' + t.replace('"', '""') + '"' for t in tokens)


@dataclass
class Hit:
    entry_id: int
    rank: float  # the ordering key: BM25 × hit boost (× digest boost), larger is better
    bm25: float


def query(
    space_ids: list[int],
    text: str,
    *,
    limit: int = 10,
    recallable_only: bool = True,
    origin: str | None = None,
    categories: list[str] | None = None,
    candidates: int = CANDIDATES,
) -> list[Hit]:
    """Entries of `space_ids` matching `text`, best first.

    `recallable_only` skips archived, test, merged and deleted entries (automatic recall);
    explicit searches pass False and still skip deleted ones.
    """
    if not space_ids:
        return []
    where = [f"e.space_id IN ({','.join(['%s'] * len(space_ids))})", "e.deleted_at IS NULL"]
    params: list = [*space_ids]
    if recallable_only:
        where += ["e.archived = %s", "e.is_test = %s", "e.merged_into_id IS NULL"]
        params += [False, False]
    if origin:
        where.append("e.origin = %s")
        params.append(origin)
    if categories:
        where.append(f"e.category IN ({','.join(['%s'] * len(categories))})")
        params += categories
    rows: list = []
    for tokens, joiner in query_plans(text):
        if connection.vendor == "postgresql":
            rows = pgsearch.ranked(tokens, joiner == " AND ", where, params, max(candidates, limit))
        else:
            rows = _ranked_rows(match_expression(tokens, joiner), where, params, max(candidates, limit), enough=limit)
        if len(rows) >= limit:
            break
    hits = []
    for entry_id, relevance, hits_count, kind in rows:
        rank = relevance * (1 + math.log1p(hits_count) * HIT_BOOST)
        if kind == "digest":
            rank *= DIGEST_BOOST
        hits.append(Hit(entry_id, rank, relevance))
    hits.sort(key=lambda h: h.rank, reverse=True)
    return hits[:limit]


def _ranked_rows(expression: str, where: list[str], params: list, wanted: int, enough: int) -> list:
    """(entry id, BM25 relevance, hits, kind) from FTS5, best first.

    Rank inside the index first (cheap), then filter only the best of them; if filtering left
    too few and the index had more, look again without the cap."""
    rows: list = []
    with connection.cursor() as cur:
        for cap in (max(INNER_CAP, wanted * 5), None):
            inner = f"SELECT rowid, rank FROM {FTS_TABLE} WHERE {FTS_TABLE} MATCH %s ORDER BY rank"
            inner += f" LIMIT {int(cap)}" if cap else ""
            cur.execute(
                f"SELECT e.id, f.rank, e.hits, e.kind FROM ({inner}) f JOIN memories_entry e ON e.id = f.rowid "
                f"WHERE {' AND '.join(where)} ORDER BY f.rank LIMIT %s",
                [expression, *params, wanted],
            )
            rows = cur.fetchall()
            if cap is None or len(rows) >= enough:
                break
            cur.execute(f"SELECT count(*) FROM (SELECT 1 FROM {FTS_TABLE} WHERE {FTS_TABLE} MATCH %s LIMIT %s)",
                        [expression, int(cap) + 1])
            if cur.fetchone()[0] <= cap:
                break
    # FTS5's bm25() is negative; larger magnitude is better
    return [(entry_id, -score, hits_count, kind) for entry_id, score, hits_count, kind in rows]
