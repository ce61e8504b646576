"""Full-text search over native entries, behind one small interface.

SQLite: an FTS5 table whose rowid is the entry id, fed with our own tokens (stemmed words, and pairs of
characters for scripts without spaces: text/tokens.py) so 中文, English and every other script work; ranked by
BM25 and the
log hit boost `1 + ln(1 + hits) × 0.12`. PostgreSQL: the same tokens in a tsvector with a GIN
index and the same BM25 (pgsearch.py). With embeddings on, query() blends in the nearest entries by
meaning (vectors.py). Callers never see SQL or the database vendor: index(), unindex(), query().
"""

from __future__ import annotations

import json
import logging
import math
import time
from dataclasses import dataclass
from typing import Iterable, NamedTuple

from django.conf import settings
from django.db import connection

from memoryhub.core import embeddings, sql
from memoryhub.memories.models import ARCHIVED, TEST_TAG, Kind
from memoryhub.memories.search import pgsearch, vectors
from memoryhub.memories.search.counts import ReusedCounts
from memoryhub.memories.text.tokens import QUESTION_WORDS, index_tokens
from providers.base import ProviderError

log = logging.getLogger(__name__)

FTS_TABLE = "memories_entry_fts"
# FTS5 splits what it is given once more: our tokens hold letters, digits and marks (a Thai vowel is a mark),
# so all three must count as parts of a token.
FTS_TOKENIZER = "unicode61 remove_diacritics 2 categories 'L* N* Co M*'"
VOCAB_TABLE = "memories_entry_fts_vocab"
# A query word in more documents than this adds almost nothing to BM25 but makes every search
# score tens of thousands of rows; such words are left out of the match when rarer ones exist.
COMMON_DOCS = 5000
_doc_counts = ReusedCounts()
HIT_BOOST = 0.12
DIGEST_BOOST = 1.3
CANDIDATES = 200
RECENT_WINDOW = 20_000  # the newest entries a query of only common words scores first
INNER_CAP = 2000
# With embeddings on: how much meaning counts against words, and how many neighbours each space offers (the
# similarity below which a neighbour counts as unrelated is the setting EMBEDDINGS_MIN_SIMILARITY).
SEMANTIC_WEIGHT = 0.5
NEIGHBOURS = 50


def create_index(conn) -> None:
    if conn.vendor == "postgresql":
        pgsearch.create(conn)
    elif conn.vendor == "sqlite":
        with conn.cursor() as cur:
            cur.execute(
                f"CREATE VIRTUAL TABLE IF NOT EXISTS {FTS_TABLE} USING fts5(tokens, tokenize = \"{FTS_TOKENIZER}\")"
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
    return index_tokens(" ".join(p for p in parts if p))


def index(entry, *, new: bool = False, tokens: list[str] | None = None) -> None:
    """(Re)index one entry; call inside the write's transaction. A new entry has no old row to drop,
    and its tokens may come worked out already (before the transaction took the write lock)."""
    tokens = document_tokens(entry) if tokens is None else tokens
    if connection.vendor == "postgresql":
        pgsearch.index(entry.pk, tokens)
        return
    with connection.cursor() as cur:
        if not new:
            cur.execute(f"DELETE FROM {FTS_TABLE} WHERE rowid = %s", [entry.pk])
        cur.execute(f"INSERT INTO {FTS_TABLE}(rowid, tokens) VALUES (%s, %s)", [entry.pk, " ".join(tokens)])


def reindex_all(conn, batch: int = 2000) -> int:
    """Every entry indexed afresh with today's tokenizer (after it changed); SQLite's table is made anew, so
    it also takes today's FTS5 tokenizer settings. Returns how many entries were indexed."""
    if conn.vendor == "sqlite":
        drop_index(conn)
        create_index(conn)
    done, last = 0, 0
    with conn.cursor() as cur:
        while True:
            cur.execute("SELECT id, title, summary, body, tags, entities FROM memories_entry WHERE id > %s "
                        "AND deleted_at IS NULL ORDER BY id LIMIT %s", [last, batch])
            rows = cur.fetchall()
            if not rows:
                break
            indexed = [(pk, document_tokens(_Parts(title, summary, body, json_list(tags), json_list(entities))))
                       for pk, title, summary, body, tags, entities in rows]
            if conn.vendor == "postgresql":
                cur.executemany("UPDATE memories_entry SET fts_tokens = %s::tsvector, fts_length = %s WHERE id = %s",
                                [(pgsearch.vector_literal(t), len(t), pk) for pk, t in indexed])
            else:
                cur.executemany(f"INSERT INTO {FTS_TABLE}(rowid, tokens) VALUES (%s, %s)",
                                [(pk, " ".join(t)) for pk, t in indexed])
            done += len(rows)
            last = rows[-1][0]
    _doc_counts.clear()
    return done


class _Parts(NamedTuple):
    title: str
    summary: str
    body: str
    tags: list
    entities: list


def json_list(value) -> list:
    """A JSON list column as the database driver hands it back (text on SQLite, a list on PostgreSQL)."""
    if isinstance(value, str):
        value = json.loads(value or "[]")
    return [str(v) for v in value or []]


def unindex(entry_ids: Iterable[int]) -> None:
    ids = list(entry_ids)
    if not ids:
        return
    if connection.vendor == "postgresql":
        pgsearch.unindex(ids)
    else:
        with connection.cursor() as cur:
            cur.execute(f"DELETE FROM {FTS_TABLE} WHERE rowid IN ({sql.placeholders(ids)})", ids)
    vectors.drop(ids)


def unindex_space(sender, instance, **kwargs) -> None:
    """pre_delete of a MemorySpace: its entries leave the index, which no foreign key cascades to."""
    ids = [pk for (pk,) in sql.rows("SELECT id FROM memories_entry WHERE space_id = %s", [instance.pk])]
    for start in range(0, len(ids), 500):
        unindex(ids[start : start + 500])


class Plan(NamedTuple):
    tokens: list[str]
    joiner: str  # " OR " or " AND "
    common: bool  # only words in more than COMMON_DOCS entries
    docs: dict[str, int]  # entries holding each token (PostgreSQL's idf reuses them)


def query_plans(query: str) -> list[Plan]:
    """The FTS queries to try in turn for `query`, best matches first.

    Words no entry holds are left out. When rarer words exist, entries with any of them come
    first; very common words (in more than COMMON_DOCS entries) would add almost nothing to
    their BM25 but make every search score tens of thousands of rows. Entries with only common
    words follow when the rare ones found too few: those having them all, then any of the two
    rarest.
    """
    seen = query_tokens(query)
    if not seen:
        return []
    docs = doc_counts(seen)
    present = [t for t in seen if docs.get(t, 0) > 0]
    rare = [t for t in present if docs[t] <= COMMON_DOCS]
    common = [t for t in present if docs[t] > COMMON_DOCS]
    plans = [Plan(rare, " OR ", False, docs)] if rare else []
    if len(common) == 1:
        plans.append(Plan(common, " OR ", True, docs))
    elif common:
        plans += [Plan(common, " AND ", True, docs), Plan(sorted(common, key=lambda t: docs[t])[:2], " OR ", True, docs)]
    return plans


def query_tokens(query: str) -> list[str]:
    """The query's distinct index tokens (at most 64) but Chinese question words, a Chinese character alone only
    where no pair it is part of
    is held by any entry: "猫" for 的猫 and 猫叫, not "数" beside 数据 (the pair says it, and a common character
    alone would make every search score thousands of rows)."""
    tokens = [t for t in dict.fromkeys(index_tokens(query)) if t not in QUESTION_WORDS][:64]
    singles = [t for t in tokens if len(t) == 1 and not t.isascii()]
    if not singles:
        return tokens
    pairs = [t for t in tokens if len(t) == 2 and any(c in t for c in singles)]
    held = {t for t, n in doc_counts(pairs).items() if n > 0} if pairs else set()
    return [t for t in tokens if t not in singles or not any(t in pair for pair in held)]


def doc_counts(tokens: list[str]) -> dict[str, int]:
    """How many entries hold each token; counts of frequent tokens are reused (counts.py)."""
    return _doc_counts.get(tokens, _count_docs, keep_from=COMMON_DOCS // 10)


def _count_docs(tokens: list[str]) -> dict[str, int]:
    if connection.vendor == "postgresql":
        return pgsearch.doc_counts(tokens)
    with connection.cursor() as cur:
        cur.execute(f"SELECT term, doc FROM {VOCAB_TABLE} WHERE term IN ({sql.placeholders(tokens)})", tokens)
        return dict(cur.fetchall())


def recount_words() -> int:
    """Count frequent words afresh: every few minutes, and after a bulk load grew a corpus faster than
    reused counts assume. Only PostgreSQL keeps them in a table (SQLite's FTS5 vocabulary is live)."""
    _doc_counts.clear()
    _corpus[0] = 0.0
    return pgsearch.refresh_term_stats() if connection.vendor == "postgresql" else 0


def matched_terms(ids: list[int], tokens: list[str]) -> dict[int, set[str]]:
    """Which of the query's tokens each indexed entry holds (read back from the index, by id)."""
    if not ids or not tokens:
        return {}
    wanted = set(tokens)
    if connection.vendor == "postgresql":
        return pgsearch.matched(ids, tokens)
    rows = sql.rows(f"SELECT rowid, tokens FROM {FTS_TABLE} WHERE rowid IN ({sql.placeholders(ids)})", ids)
    return {pk: wanted.intersection(text.split()) for pk, text in rows}


def match_expression(tokens: list[str], joiner: str = " OR ") -> str:
    """An FTS5 query of the tokens, each quoted (no operator injection)."""
    return joiner.join('"' + t.replace('"', '""') + '"' for t in tokens)


@dataclass
class Hit:
    entry_id: int
    rank: float  # the ordering key: BM25 × hit boost (× digest boost), larger is better
    bm25: float
    kind: str = ""
    similarity: float | None = None  # cosine similarity to the query, when embeddings are on


def query(
    space_ids: list[int],
    text: str,
    *,
    limit: int = 10,
    recallable_only: bool = True,
    origin: str | None = None,
    categories: list[str] | None = None,
    candidates: int = CANDIDATES,
    skip_tags: Iterable[str] = (),
    between: tuple | None = None,
    keep: int = 0,
) -> list[Hit]:
    """Entries of `space_ids` matching `text`, best first.

    `recallable_only` skips archived, test, merged and deleted entries (automatic recall);
    explicit searches pass False and still skip deleted ones. `skip_tags` leaves out entries
    carrying any of those tags (see `filters`); `between` (start, end) keeps only entries of that time.
    `limit` decides how far the query plans look (a wider look costs a big corpus dearly); `keep` returns up to
    that many of the matches they scored anyway, for ranking to weigh.
    """
    if not space_ids:
        return []
    where, params = filters(space_ids, recallable_only=recallable_only, origin=origin, categories=categories,
                            skip_tags=skip_tags)
    if between:
        where, params = [*where, "e.at >= %s", "e.at < %s"], [*params, sql.moment(between[0]), sql.moment(between[1])]
    hits = _word_hits(text, where, params, limit, candidates)
    if vectors.enabled() and text.strip():
        hits = _blend(space_ids, text, hits, where, params, limit)
    return hits[:max(limit, keep)]


SPACE_TERM = "e.space_id IN ("  # how filters() opens its space condition (among() turns its index off)


def among(ids: list[int], where: list[str]) -> str:
    """The SQL condition "one of `ids`, admitted by the search's filters `where`", written so that the database
    finds the ids by their key: with the filters' space condition as it stands SQLite chose the space index and
    read every live entry of the space (17.7 ms for 60 ids at 100k entries, against 0.2 ms by the key)."""
    unindexed = [f"+{w}" if w.startswith(SPACE_TERM) else w for w in where]  # unary +: not an indexed column
    return " AND ".join([f"e.id IN ({sql.placeholders(ids)})", *unindexed])


def filters(space_ids: list[int], *, recallable_only: bool = True, origin: str | None = None,
            categories: list[str] | None = None, skip_tags: Iterable[str] = ()) -> tuple[list[str], list]:
    """The SQL conditions (on `e`, memories_entry) and their parameters that admit an entry to a search.

    `skip_tags` (the agent's skipTags): `test` is the test mark (Entry.is_test, kept in step with the tag),
    `archived` the archive mark (archived and merged-away entries); any other name is a plain tag.
    """
    where = [f"{SPACE_TERM}{sql.placeholders(space_ids)})", "e.deleted_at IS NULL"]
    params: list = [*space_ids]
    skip = set(skip_tags)
    if recallable_only:
        skip |= {TEST_TAG, ARCHIVED}
    if TEST_TAG in skip:
        where.append("e.is_test = %s")
        params.append(False)
    if ARCHIVED in skip:
        where += ["e.archived = %s", "e.merged_into_id IS NULL"]
        params.append(False)
    tags = sorted(skip - {TEST_TAG, ARCHIVED})
    if tags:
        condition, values = sql.json_array_has_any("e.tags", tags)
        where.append(f"NOT ({condition})")
        params += values
    if origin:
        where.append("e.origin = %s")
        params.append(origin)
    if categories:
        where.append(f"e.category IN ({sql.placeholders(categories)})")
        params += categories
    return where, params


def _word_hits(text: str, where: list[str], params: list, limit: int, candidates: int) -> list[Hit]:
    hits: dict[int, Hit] = {}
    for plan in query_plans(text):
        for recent in ([True, False] if plan.common else [False]):
            rows = _rows(plan, where, params, max(candidates, limit), limit, recent)
            if len(rows) >= limit:
                break
        fresh = sorted((_hit(*row) for row in rows if row[0] not in hits), key=lambda h: h.rank, reverse=True)
        hits.update((h.entry_id, h) for h in fresh)  # an earlier plan's matches stay ahead of later ones
        if len(hits) >= limit:
            break
    return list(hits.values())


def _blend(space_ids: list[int], text: str, hits: list[Hit], where: list[str], params: list,
           limit: int) -> list[Hit]:
    """Word matches and nearest neighbours in one order: a weighted sum of each one's word score (relative
    to the best word match, never above an earlier plan's) and its similarity above the floor.

    An entry not embedded yet keeps its word score; a failing embedding service leaves word search alone.
    """
    try:
        vector = embeddings.query_vector(text)
    except ProviderError as exc:
        log.warning("query embedding failed, searching by words only: %s", exc.message)
        return hits
    near = {pk: sim for pk, sim in vectors.nearest(space_ids, vector, max(NEIGHBOURS, limit)).items()
            if meaning(sim) > 0}
    words: dict[int, float] = {}
    top = hits[0].rank if hits else 1.0
    ceiling = 1.0
    for hit in hits:
        ceiling = min(ceiling, hit.rank / top)
        words[hit.entry_id] = ceiling
    similarity = {**vectors.similarities(space_ids, vector, [pk for pk in words if pk not in near]), **near}
    extra = allowed([pk for pk in near if pk not in words], where, params)
    found = {h.entry_id: h for h in hits} | {pk: _hit(pk, 0.0, hits_count, kind) for pk, hits_count, kind in extra}

    def score(pk: int) -> float:
        if pk not in similarity:
            return words[pk]
        return (1 - SEMANTIC_WEIGHT) * words.get(pk, 0.0) + SEMANTIC_WEIGHT * meaning(similarity[pk])

    blended = []
    for pk, hit in found.items():
        hit.similarity = round(similarity[pk], 4) if pk in similarity else None
        hit.rank = score(pk) * top
        blended.append(hit)
    return sorted(blended, key=lambda h: h.rank, reverse=True)


def meaning(similarity: float | None) -> float:
    """0–1: how far a cosine similarity lies above the floor below which texts count as unrelated."""
    floor = float(settings.MEMORYHUB.get("EMBEDDINGS_MIN_SIMILARITY", 0.3))
    return 0.0 if similarity is None else max(0.0, (similarity - floor) / (1 - floor))


def allowed(ids: list[int], where: list[str], params: list) -> list[tuple]:
    """(id, hits, kind) of those entries the search's filters admit."""
    if not ids:
        return []
    with connection.cursor() as cur:
        cur.execute(f"SELECT e.id, e.hits, e.kind FROM memories_entry e WHERE {among(ids, where)}", [*ids, *params])
        return cur.fetchall()


def _hit(entry_id: int, relevance: float, hits_count: int, kind: str) -> Hit:
    rank = relevance * (1 + math.log1p(hits_count) * HIT_BOOST)
    if kind == Kind.DIGEST:
        rank *= DIGEST_BOOST
    return Hit(entry_id, rank, relevance, kind)


def _rows(plan: Plan, where: list[str], params: list, wanted: int, enough: int, recent: bool) -> list:
    """One plan's rows; `recent` looks only at the newest RECENT_WINDOW entries of a big corpus.

    Only queries of common words look there first: scoring every entry that has them is what
    makes a big space slow, and between entries that merely share common words the newer is
    the likelier memory. When the newest hold too few matches, the caller looks at all.
    """
    cutoff = 0
    if recent:
        cutoff = (_newest_id() or 0) - RECENT_WINDOW
        if cutoff <= RECENT_WINDOW:
            return []  # a small corpus: the full look is cheap
        where, params = [*where, "e.id > %s"], [*params, cutoff]
    if connection.vendor == "postgresql":
        return pgsearch.ranked(plan.tokens, plan.joiner == " AND ", where, params, wanted, docs=plan.docs)
    return _ranked_rows(match_expression(plan.tokens, plan.joiner), where, params, wanted, enough=enough,
                        newer_than=cutoff)


_corpus: list[float] = [0.0, 1.0]  # (when read, newest id)


def corpus_size() -> int:
    """About how many entries the index has seen (the newest id), for idf outside BM25; read once a minute (an idf
    moves slowly with the corpus)."""
    now = time.monotonic()
    if now - _corpus[0] > 60:
        _corpus[:] = [now, float(_newest_id() or 1)]
    return int(_corpus[1])


def _newest_id() -> int | None:
    with connection.cursor() as cur:
        cur.execute("SELECT max(id) FROM memories_entry")
        return cur.fetchone()[0]


def _ranked_rows(expression: str, where: list[str], params: list, wanted: int, enough: int,
                 newer_than: int = 0) -> list:
    """(entry id, BM25 relevance, hits, kind) from FTS5, best first.

    Rank inside the index first (cheap), then filter only the best of them; if filtering left
    too few and the index had more, look again without the cap."""
    rows: list = []
    with connection.cursor() as cur:
        for cap in (max(INNER_CAP, wanted * 5), None):
            # A rowid bound lets FTS5 skip the older part of every posting list.
            inner = (f"SELECT rowid, rank FROM {FTS_TABLE} WHERE {FTS_TABLE} MATCH %s AND rowid > {int(newer_than)} "
                     "ORDER BY rank")
            inner += f" LIMIT {int(cap)}" if cap else ""
            cur.execute(
                f"SELECT e.id, f.rank, e.hits, e.kind FROM ({inner}) f JOIN memories_entry e ON e.id = f.rowid "
                f"WHERE {' AND '.join(where)} ORDER BY f.rank LIMIT %s",
                [expression, *params, wanted],
            )
            rows = cur.fetchall()
            if cap is None or len(rows) >= enough:
                break
            cur.execute(f"SELECT count(*) FROM (SELECT 1 FROM {FTS_TABLE} WHERE {FTS_TABLE} MATCH %s "
                        f"AND rowid > {int(newer_than)} LIMIT %s)", [expression, int(cap) + 1])
            if cur.fetchone()[0] <= cap:
                break
    # FTS5's bm25() is negative; larger magnitude is better
    return [(entry_id, -score, hits_count, kind) for entry_id, score, hits_count, kind in rows]
