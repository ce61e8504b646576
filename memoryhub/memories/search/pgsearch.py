"""PostgreSQL full-text search with the same tokens and the same BM25 as SQLite's FTS5.

Two columns on memories_entry that Django does not manage (so a flush or delete takes them
along): `fts_tokens`, a tsvector of text.tokenize output written as a literal (the tokens are final:
stemmed, folded, stopwords gone, unspaced scripts as pairs; PostgreSQL's own parser, which depends on
the server's locale, never splits them again), and `fts_length`, its token count. BM25 is computed
with FTS5's constants and idf, so ranks match the SQLite backend.
"""

from __future__ import annotations

import math
import re
import time

from django.db import connection, transaction

GIN_INDEX = "memories_entry_fts_gin"
K1, B = 1.2, 0.75
STATS_TTL = 120
STATS_CACHE_FROM = 5000
CANDIDATES = 500  # matches scored exactly, out of those ts_rank puts first
# New index entries wait in GIN's pending list, which every search reads from end to end: 4 MB by default
# (about 400 pages, 10 ms a search at 100k entries after a burst of writes). A short list is flushed more often.
PENDING_LIST_KB = 256
TERM_STATS = "memories_term_stat"
FREQUENT = 500  # entries; lexemes in at least this many are kept in TERM_STATS
MAX_POSITION = 16383  # PostgreSQL's limits for a tsvector: positions, positions kept per lexeme, lexeme bytes
MAX_POSITIONS = 256
MAX_LEXEME_BYTES = 2046
VECTOR_ITEM = re.compile(r"'((?:[^']|'')*)':([0-9A-D,]+)")  # one lexeme of a tsvector's text and its positions
_stats_cache: tuple[float, float, float] | None = None  # (when read, entries, mean length)


def create(conn) -> None:
    with conn.cursor() as cur:
        cur.execute("ALTER TABLE memories_entry ADD COLUMN IF NOT EXISTS fts_tokens tsvector, "
                    "ADD COLUMN IF NOT EXISTS fts_length integer")
        cur.execute(f"CREATE INDEX IF NOT EXISTS {GIN_INDEX} ON memories_entry USING gin (fts_tokens)")
        cur.execute(f"ALTER INDEX {GIN_INDEX} SET (gin_pending_list_limit = {PENDING_LIST_KB})")
        cur.execute(f"CREATE TABLE IF NOT EXISTS {TERM_STATS} (lexeme text PRIMARY KEY, docs integer NOT NULL)")


def drop(conn) -> None:
    with conn.cursor() as cur:
        cur.execute(f"DROP INDEX IF EXISTS {GIN_INDEX}")
        cur.execute(f"DROP TABLE IF EXISTS {TERM_STATS}")
        cur.execute("ALTER TABLE memories_entry DROP COLUMN IF EXISTS fts_tokens, DROP COLUMN IF EXISTS fts_length")


def lexeme(token: str) -> str:
    """A token as the index holds it: itself, cut to the bytes PostgreSQL allows a lexeme."""
    if len(token.encode()) > MAX_LEXEME_BYTES:
        return token.encode()[:MAX_LEXEME_BYTES].decode(errors="ignore")
    return token


def quoted(token: str) -> str:
    """A token as a quoted tsvector/tsquery lexeme (no operator injection)."""
    return "'" + lexeme(token).replace("\\", "\\\\").replace("'", "''") + "'"


def vector_literal(tokens: list[str]) -> str:
    """The tokens as tsvector text, `'tok':1,4 'other':2`: each token with the positions it holds."""
    positions: dict[str, list[int]] = {}
    for n, token in enumerate(tokens, 1):
        held = positions.setdefault(token, [])
        if len(held) < MAX_POSITIONS:
            held.append(min(n, MAX_POSITION))
    return " ".join(f"{quoted(t)}:{','.join(map(str, dict.fromkeys(p)))}" for t, p in positions.items())


def index(entry_id: int, tokens: list[str]) -> None:
    with connection.cursor() as cur:
        cur.execute("UPDATE memories_entry SET fts_tokens = %s::tsvector, fts_length = %s WHERE id = %s",
                    [vector_literal(tokens), len(tokens), entry_id])


def unindex(ids: list[int]) -> None:
    with connection.cursor() as cur:
        cur.execute("UPDATE memories_entry SET fts_tokens = NULL, fts_length = NULL WHERE id = ANY(%s)", [ids])


def lexemes(tokens: list[str]) -> list[str]:
    """The query's distinct lexemes: its tokens, which the index holds as they are."""
    return list(dict.fromkeys(lexeme(t) for t in tokens))


def doc_counts(tokens: list[str]) -> dict[str, int]:
    """How many indexed entries hold each token: frequent ones from TERM_STATS, the rest counted.

    Counting visits every matching row (28 ms for a word in 12,000 entries at 100k), which is
    cheap only for rare words; the frequent ones move slowly and are refreshed every few minutes.
    """
    with connection.cursor() as cur:
        cur.execute(f"SELECT lexeme, docs FROM {TERM_STATS} WHERE lexeme = ANY(%s)", [lexemes(tokens)])
        frequent = dict(cur.fetchall())
    counts = {token: frequent[lexeme(token)] for token in tokens if lexeme(token) in frequent}
    missing = [token for token in tokens if token not in counts]
    if missing:
        counted = _count_terms(lexemes(missing))
        counts.update((token, counted[lexeme(token)]) for token in missing)
    return counts


def refresh_term_stats() -> int:
    """Recount the frequent lexemes (ts_stat reads every entry's vector: 1.8 s at 100k); returns how many."""
    with transaction.atomic(), connection.cursor() as cur:
        cur.execute(f"DELETE FROM {TERM_STATS}")
        cur.execute(f"INSERT INTO {TERM_STATS} (lexeme, docs) SELECT word, ndoc FROM "
                    "ts_stat('SELECT fts_tokens FROM memories_entry WHERE fts_tokens IS NOT NULL') WHERE ndoc >= %s",
                    [FREQUENT])
        return cur.rowcount


def _count_terms(terms: list[str]) -> dict[str, int]:
    """Entries holding each lexeme the query plan had no count for."""
    with connection.cursor() as cur:
        cur.execute("SELECT t, (SELECT count(*) FROM memories_entry WHERE fts_tokens @@ q::tsquery) "
                    "FROM unnest(%s::text[], %s::text[]) AS u(t, q)", [terms, [quoted(t) for t in terms]])
        return dict(cur.fetchall())


def corpus_stats() -> tuple[float, float]:
    """(indexed entries, mean token count) for BM25's idf and length norm.

    Reading them scans the whole table (125 ms at 100k entries), so a big corpus's figures, which
    move slowly, are reused for STATS_TTL seconds; a small one is read every time (it is cheap).
    """
    global _stats_cache
    now = time.monotonic()
    if _stats_cache and now - _stats_cache[0] < STATS_TTL:
        return _stats_cache[1], _stats_cache[2]
    with connection.cursor() as cur:
        cur.execute("SELECT count(fts_length)::float8, coalesce(avg(fts_length), 1)::float8 FROM memories_entry")
        n, avgdl = cur.fetchone()
    _stats_cache = (now, n, avgdl) if n >= STATS_CACHE_FROM else None
    return n, avgdl


def matched(ids: list[int], tokens: list[str]) -> dict[int, set[str]]:
    """Which of `tokens` each entry's vector holds (its vector cut down to them, as `ranked` reads it)."""
    terms = lexemes(tokens)
    by_lexeme = {lexeme(t): t for t in tokens}
    with connection.cursor() as cur:
        cur.execute("SELECT id, ts_filter(setweight(fts_tokens, 'A', %s::text[]), '{a}')::text FROM memories_entry "
                    "WHERE id = ANY(%s) AND fts_tokens IS NOT NULL", [terms, ids])
        rows = cur.fetchall()
    found = {}
    for pk, vector in rows:
        held = (term.replace("''", "'").replace("\\\\", "\\") for term, _ in VECTOR_ITEM.findall(vector or ""))
        found[pk] = {by_lexeme[t] for t in held if t in by_lexeme}
    return found


def tsquery(terms: list[str], every: bool = False) -> str:
    """An OR (or, with `every`, AND) tsquery of quoted lexemes (no operator injection)."""
    return (" & " if every else " | ").join(quoted(t) for t in terms)


def ranked(tokens: list[str], every: bool, where: list[str], params: list, limit: int,
           docs: dict[str, int] | None = None) -> list[tuple[int, float, int, str]]:
    """(entry id, BM25 relevance, hits, kind) of entries with any (`every`: all) tokens, best first, as FTS5
    scores them.

    PostgreSQL's own ts_rank (C, term frequency only) first cuts the matches to the CANDIDATES
    likeliest; only those are scored exactly. Their vectors come back cut down to the query's
    lexemes, and BM25 is summed here: unnesting every candidate's whole vector in SQL cost
    more than finding the candidates. `docs` are the tokens' entry counts the query plan already
    has (search.doc_counts), so no word is counted twice.
    """
    terms = lexemes(tokens)
    if not terms:
        return []
    query = tsquery(terms, every)
    sql = f"""
        SELECT c.id, ts_filter(setweight(c.fts_tokens, 'A', %s::text[]), '{{a}}')::text, c.fts_length, c.hits, c.kind
        FROM (SELECT e.id, e.fts_tokens, e.fts_length, e.hits, e.kind FROM memories_entry e
              WHERE e.fts_tokens @@ %s::tsquery AND {' AND '.join(where)}
              ORDER BY ts_rank(e.fts_tokens, %s::tsquery, 1) DESC LIMIT %s) c"""
    counts = {lexeme(token): n for token, n in (docs or {}).items()}
    missing = [t for t in terms if t not in counts]
    if missing:
        counts.update(_count_terms(missing))
    n, avgdl = corpus_stats()
    # Keyed as the vector's text shows each lexeme: quoted, with quotes and backslashes doubled.
    idf = {t.replace("\\", "\\\\").replace("'", "''"): max(math.log((n - counts[t] + 0.5) / (counts[t] + 0.5)), 1e-6)
           for t in terms}
    with connection.cursor() as cur:
        cur.execute(sql, [terms, query, *params, query, max(CANDIDATES, limit)])
        rows = cur.fetchall()
    scored = []
    for entry_id, vector, length, hits, kind in rows:
        norm = K1 * (1 - B + B * length / avgdl)
        score = 0.0
        for term, positions in VECTOR_ITEM.findall(vector):
            frequency = positions.count(",") + 1
            score += idf[term] * frequency * (K1 + 1) / (frequency + norm)
        scored.append((entry_id, score, hits, kind))
    scored.sort(key=lambda row: (-row[1], row[0]))
    return scored[:limit]
