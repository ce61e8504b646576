"""The one space service: every way a space is made, changed or removed is checked and audited alike."""

import pytest
from django.db import connection

from memoryhub.audit.models import AuditEvent
from memoryhub.core.errors import ApiError
from memoryhub.memories.search.fulltext import FTS_TABLE
from memoryhub.spaces import space_service
from memoryhub.spaces.models import MemorySpace

pytestmark = pytest.mark.django_db


def test_a_space_made_through_the_api_is_audited_like_one_made_in_the_dashboard(api):
    r = api.post("spaces", {"slug": "notes", "name": "Notes"})
    assert r.status_code == 201, r.content
    event = AuditEvent.objects.get(action="space.create", target="notes")
    assert event.actor == "token:agent" and event.before is None and event.after["provider"] == "native"


@pytest.mark.skipif("connection.vendor != 'sqlite'", reason="only SQLite keeps its index in a table of its own")
def test_a_space_deleted_anywhere_leaves_no_index_rows_behind(api):
    """The admin, a workspace's cascade and the dashboard all delete through Model.delete()."""
    MemorySpace.objects.create(slug="gone", name="Gone")
    ids = [int(api.turn(f"the ferry timetable part {i}", space="gone").json()["entry"]["id"]) for i in range(3)]
    MemorySpace.objects.get(slug="gone").delete()
    with connection.cursor() as cur:
        cur.execute(f"SELECT count(*) FROM {FTS_TABLE} WHERE rowid IN ({', '.join(['%s'] * len(ids))})", ids)
        assert cur.fetchone()[0] == 0


def test_a_config_field_the_provider_does_not_declare_is_refused(db):
    space = MemorySpace.objects.create(slug="kept", name="Kept")
    with pytest.raises(ApiError) as refused:
        space_service.update_space(space, actor="alice", config={"endpoint": "http://elsewhere"})
    assert refused.value.field == "config" and "not a space field of native" in refused.value.message
    space.refresh_from_db()
    assert space.config == {} and not AuditEvent.objects.filter(action="space.edit").exists()


def test_the_last_native_space_cannot_be_deleted(db):
    from memoryhub.spaces.workspaces import default_space

    space = default_space()
    MemorySpace.objects.exclude(pk=space.pk).delete()
    with pytest.raises(ApiError) as refused:
        space_service.delete_space(space, actor="alice")
    assert refused.value.code == "conflict"
    assert MemorySpace.objects.filter(pk=space.pk).exists()


def test_the_hubs_own_spaces_are_made_through_the_service_and_audited(api):
    """A workspace's own space appears on first sight, even when its path-derived slug starts with `_`."""
    r = api.turn("the build cache lives in /tmp", workspace="/srv/_build")
    assert r.status_code == 201, r.content
    slug = r.json()["entry"]["space"]
    assert slug.startswith("_build-")
    assert AuditEvent.objects.filter(action="space.create", target=slug, actor="hub").exists()
