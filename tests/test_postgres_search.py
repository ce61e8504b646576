"""PostgreSQL search ranks exactly as SQLite's FTS5 does: same tokens, same BM25."""

import sqlite3

import pytest

from memoryhub.memories.search import fulltext as search, pgsearch
from memoryhub.memories.write import gateway
from memoryhub.memories.models import Entry
from memoryhub.spaces.models import MemorySpace
from tests.procs import on_postgres

pytestmark = [pytest.mark.postgres, pytest.mark.django_db,
              pytest.mark.skipif(not on_postgres(), reason="needs a PostgreSQL server (DATABASE_URL)")]

DOCS = [
    ("SQLite locks", "The database locks when two writers race; WAL mode and busy_timeout fix the locking."),
    ("Running jobs", "The worker was running three jobs when it crashed; jobs are retried after a crash."),
    ("数据库选型", "我们决定用 PostgreSQL 作为数据库，Redis 做队列。"),
    ("Café notes", "Meeting at the café about résumé screening and the database migration."),
    ("Kafka", "Kafka consumer lag grew during the migration; the consumer group was rebalanced."),
    ("Unrelated", "Lunch was noodles."),
    ("Книги", "Купили новые книги для библиотеки; старые книги отдали."),
    ("อาหาร", "พรุ่งนี้เราจะไปกินข้าวที่ร้านอาหารใกล้บ้าน"),
    ("O'Brien", "O'Brien's back\\slash notes: it's the café again."),
]
QUERIES = ["database lock", "locking", "run job crash", "数据库", "cafe resume", "kafka consumer lag migration",
           "PostgreSQL 队列", "nothing matches this",
           "книга", "ร้านอาหาร", "o'brien back\\slash"]


def fts5_relevance(docs: dict[int, str], query: str) -> dict[int, float]:
    """What SQLite's FTS5 (the reference backend) scores for these documents."""
    db = sqlite3.connect(":memory:")
    db.execute(f"CREATE VIRTUAL TABLE t USING fts5(tokens, tokenize = \"{search.FTS_TOKENIZER}\")")
    db.executemany("INSERT INTO t(rowid, tokens) VALUES (?, ?)", docs.items())
    plans = search.query_plans(query)
    expression = search.match_expression(plans[0].tokens, plans[0].joiner) if plans else ""
    if not expression:
        return {}
    return {rowid: -score for rowid, score in db.execute("SELECT rowid, bm25(t) FROM t WHERE t MATCH ?", [expression])}


@pytest.fixture
def entries():
    space = MemorySpace.objects.create(slug="pg", name="pg")
    made = [gateway.write(space, gateway.Draft(title=t, body=b)).entry for t, b in DOCS]
    return space, {e.pk: " ".join(search.document_tokens(e)) for e in made}


@pytest.mark.parametrize("query", QUERIES)
def test_postgres_matches_and_scores_like_fts5(entries, query):
    space, docs = entries
    expected = fts5_relevance(docs, query)
    got = {h.entry_id: h.bm25 for h in search.query([space.pk], query, limit=50, recallable_only=False)}
    assert set(got) == set(expected)
    for entry_id, score in expected.items():
        assert got[entry_id] == pytest.approx(score, rel=1e-6)


def test_unindexed_and_deleted_entries_leave_the_index(entries):
    space, _ = entries
    entry = Entry.objects.get(space=space, title="Kafka")
    assert search.query([space.pk], "kafka", recallable_only=False)
    gateway.forget(entry)
    assert search.query([space.pk], "kafka", recallable_only=False) == []
    gateway.edit(Entry.objects.get(space=space, title="Unrelated"), body="Kafka again, after lunch")
    assert len(search.query([space.pk], "kafka", recallable_only=False)) == 1


def test_frequent_word_counts_come_from_the_refreshed_table(entries, monkeypatch):
    space, _ = entries
    monkeypatch.setattr(pgsearch, "FREQUENT", 2)
    [database] = search.index_tokens("database")  # in two of the entries: frequent at this threshold
    assert search.recount_words() > 0
    before = pgsearch.doc_counts([database])[database]
    gateway.write(space, gateway.Draft(title="Database again", body="The database migration ran overnight"))
    assert pgsearch.doc_counts([database])[database] == before  # the table's count, until the next refresh
    [lunch] = search.index_tokens("lunch")
    assert pgsearch.doc_counts([lunch])[lunch] == 1  # a rare word is counted live
    search.recount_words()
    assert pgsearch.doc_counts([database])[database] == before + 1
    assert len(search.query([space.pk], "database", limit=50, recallable_only=False)) == before + 1


def test_the_index_keeps_a_short_pending_list(entries):
    """Every search reads GIN's whole pending list; the default 4 MB cost about 10 ms a search at 100k entries."""
    from django.db import connection

    with connection.cursor() as cur:
        cur.execute("SELECT reloptions FROM pg_class WHERE relname = %s", [pgsearch.GIN_INDEX])
        assert f"gin_pending_list_limit={pgsearch.PENDING_LIST_KB}" in cur.fetchone()[0]


@pytest.mark.django_db(transaction=True)
def test_compaction_gives_the_planner_statistics_for_new_rows():
    """Until ANALYZE, the planner guesses at freshly imported rows (a 10k space searched slower than a 100k one)."""
    from django.db import connection

    from memoryhub.memories.maintenance import compact

    space = MemorySpace.objects.create(slug="fresh", name="fresh")
    for title, body in DOCS:
        gateway.write(space, gateway.Draft(title=title, body=body))
    assert compact.optimize_storage() == ["vacuum-analyze"]
    with connection.cursor() as cur:
        cur.execute("SELECT reltuples FROM pg_class WHERE relname = 'memories_entry'")
        assert cur.fetchone()[0] == len(DOCS)
