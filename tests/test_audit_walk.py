"""The audit walk (#36): every POST the dashboard takes, made by staff on a world of its own, as ROWS says.

A POST that changes anything the hub keeps (a digest of every row but the audit log's own and the
bookkeeping clocks), or a provider's store (`outside`), must leave an audit record under the person's
name, of an action in the registry, saying what it found and what it left (`before`, `after`). A row
that promises a change must make one (so the walk is not blind), and one that promises none must
leave everything as it was. A new POST view without a row fails tests/test_people_matrix.py; one
whose change is not audited fails here.
"""

from __future__ import annotations

import pytest

from memoryhub.audit.actions import Action
from memoryhub.audit.models import AuditEvent
from tests.dashboard_walk import ROWS, build, dashboard_routes, db_state
from tests.fakes_embeddings import FakeEmbeddings
from tests.test_people_matrix import ask, login

pytestmark = pytest.mark.django_db

POSTS = [(name, space) for name, row in sorted(ROWS.items()) if "POST" in row.methods for space in row.spaces]


def test_the_walk_covers_every_view_that_takes_a_post():
    """Each view decorated with require_POST or require_http_methods([... "POST"]) has a POST row."""
    assert {name for name, _space in POSTS} == {
        name for name in dashboard_routes() if name in ROWS and "POST" in ROWS[name].methods}
    assert len(POSTS) >= 45


@pytest.fixture
def embeddings(settings):
    with FakeEmbeddings() as fake:
        settings.MEMORYHUB = {**settings.MEMORYHUB, "EMBEDDINGS_BASE_URL": fake.base_url,
                              "EMBEDDINGS_MODEL": "fake-synonyms"}
        yield fake


@pytest.mark.parametrize("name, space", POSTS)
def test_every_change_a_person_makes_is_audited_with_before_and_after(name, space, client, tmp_path,
                                                                      django_user_model, request):
    row = ROWS[name]
    world = build(tmp_path, django_user_model)
    if row.embeddings:
        request.getfixturevalue("embeddings")
    login(client, world, "staff")
    before, last = db_state(), AuditEvent.objects.order_by("-pk").values_list("pk", flat=True).first() or 0

    response = ask(client, world, name, space, "POST")

    where = f"POST {name} ({space})"
    assert response.status_code in (200, 302), f"{where}: {response.status_code} {response.content[:400]}"
    changed = db_state() != before or row.outside
    events = list(AuditEvent.objects.filter(pk__gt=last).order_by("pk"))
    mine = [e for e in events if e.user_id == world["staff"].pk]
    if row.changes:
        assert changed, f"{where} changed nothing: fix its row's form so the walk sees a change"
    else:
        assert not changed, f"{where} changed something though its row says it does not"
    if changed:
        assert mine, f"{where} changed something and left no audit record"
    for event in mine:
        assert event.actor == world["staff"].username and event.action in Action.values, f"{where}: {event}"
        assert event.before is not None or event.after is not None, f"{where}: {event.action} says no before/after"
