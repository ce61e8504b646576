"""Query plans of the native search: unknown words, rare words first, common words on the newest first."""

import pytest

from memoryhub.memories.search import fulltext as search
from memoryhub.memories.write import gateway
from memoryhub.spaces.workspaces import default_space

pytestmark = pytest.mark.django_db


@pytest.fixture
def space():
    return default_space()


@pytest.fixture
def small_thresholds(monkeypatch):
    """The cut-offs of a 100k-entry hub, scaled down to a handful of entries."""
    monkeypatch.setattr(search, "COMMON_DOCS", 3)
    monkeypatch.setattr(search, "RECENT_WINDOW", 5)
    search.recount_words()
    yield
    search.recount_words()


def write(space, body):
    return gateway.write(space, gateway.Draft(body=body)).entry


def ids(space, query, limit=10):
    return [h.entry_id for h in search.query([space.pk], query, limit=limit, recallable_only=False)]


def test_a_word_no_entry_holds_does_not_hide_the_rest_of_the_query(space):
    kafka = write(space, "Kafka consumer lag on the billing topic")
    write(space, "Lunch was noodles")
    assert ids(space, "kafka consumer zqxvor") == [kafka.pk]
    assert ids(space, "zqxvor") == []


def test_entries_with_a_rare_word_come_first_then_common_matches_fill_up(space, small_thresholds):
    common = [write(space, f"the deploy script failed again, run {n}") for n in range(6)]
    rare = write(space, "the deploy script of karomi failed")
    found = ids(space, "deploy script karomi", limit=4)
    assert found[0] == rare.pk
    assert len(found) == 4 and set(found[1:]) <= {e.pk for e in common}


def test_a_query_of_common_words_scores_the_newest_entries_first(space, small_thresholds):
    entries = [write(space, f"nginx gateway timeout number {n}") for n in range(20)]
    newest = {e.pk for e in entries[-5:]}
    assert set(ids(space, "nginx gateway", limit=3)) <= newest


def test_older_entries_are_found_when_the_newest_hold_too_few_matches(space, small_thresholds):
    old = [write(space, f"nginx gateway timeout number {n}") for n in range(4)]
    for n in range(12):
        write(space, f"nginx reload number {n}")
    assert set(ids(space, "nginx gateway", limit=3)) <= {e.pk for e in old}
    assert len(ids(space, "nginx gateway", limit=3)) == 3


SCRIPTS = [
    ("Купили новые книги для библиотеки в Казани", "книга библиотека"),
    ("Η συνάντηση για τον προϋπολογισμό μετακινήθηκε την Τρίτη", "προϋπολογισμός συνάντηση"),
    ("اجتماع الميزانية تأجل إلى يوم الثلاثاء", "الميزانية"),
    ("פגישת התקציב נדחתה ליום שלישי", "התקציב"),
    ("พรุ่งนี้เราจะไปกินข้าวที่ร้านอาหารใกล้บ้าน", "ร้านอาหาร"),
    ("来週の会議は東京タワーの近くで開きます", "東京タワー"),
    ("다음 주 회의는 서울역 근처에서 열립니다", "서울역 회의"),
]


@pytest.mark.parametrize("body, question", SCRIPTS)
def test_memories_in_any_script_are_found(space, body, question):
    found = write(space, body)
    for other, _ in SCRIPTS:
        if other != body:
            write(space, other)
    write(space, "Lunch was noodles")
    assert ids(space, question)[:1] == [found.pk]


def test_the_retokenizing_migration_makes_old_index_rows_searchable(space):
    from django.db import connection

    entry = write(space, "Купили новые книги для библиотеки")
    with connection.cursor() as cur:  # what the tokenizer before it left: no tokens for Cyrillic at all
        if connection.vendor == "postgresql":
            cur.execute("UPDATE memories_entry SET fts_tokens = ''::tsvector, fts_length = 0 WHERE id = %s", [entry.pk])
        else:
            cur.execute(f"UPDATE {search.FTS_TABLE} SET tokens = '' WHERE rowid = %s", [entry.pk])
    search.recount_words()
    assert ids(space, "книги") == []
    assert search.reindex_all(connection) >= 1
    assert ids(space, "книги") == [entry.pk]
