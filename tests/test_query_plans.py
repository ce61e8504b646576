"""The lookups a write and a search make by key use that key's index on SQLite even before the first ANALYZE
(a new hub, a big import): without statistics SQLite took any index on as many equal columns — the space's
live entries — and read the whole space (a turn's duplicate check 11 ms at 30k entries, a search's describe
17.7 ms for 60 ids at 100k)."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from memoryhub.memories.recall import cards as recall
from memoryhub.memories.write import gateway
from memoryhub.spaces.models import MemorySpace

pytestmark = pytest.mark.skipif(connection.vendor != "sqlite", reason="SQLite's planner")


@pytest.fixture
def space(db):
    space = MemorySpace.objects.create(slug="plans", name="plans")
    for n in range(30):
        gateway.write(space, gateway.Draft(body=f"the harbour crane {n} moved containers"))
    return space


def plans(statements: list[str]) -> list[str]:
    found = []
    with connection.cursor() as cursor:
        for statement in statements:
            cursor.execute(f"EXPLAIN QUERY PLAN {statement}")
            found += [row[-1] for row in cursor.fetchall()]
    return found


def test_a_writes_duplicate_check_reads_the_content_hash_index(space):
    with CaptureQueriesContext(connection) as seen:
        gateway.write(space, gateway.Draft(body="the harbour crane 3 moved containers again"))
    checks = [q["sql"] for q in seen.captured_queries if "content_hash =" in q["sql"] and q["sql"].startswith("SELECT")]
    assert checks and all("entry_space_content_hash" in step for step in plans(checks) if "memories_entry" in step
                          or "USING" in step and "content_hash" in step), plans(checks)


def test_a_searchs_lookups_by_id_go_by_the_key(space):
    with CaptureQueriesContext(connection) as seen:
        assert recall.search([space], "harbour crane containers", limit=8)
    by_id = [q["sql"] for q in seen.captured_queries if "e.id IN (" in q["sql"] and q["sql"].startswith("SELECT")]
    steps = plans(by_id)
    assert by_id and all("INTEGER PRIMARY KEY" in step or "rowid=?" in step for step in steps if step.startswith("SEARCH e")), steps
