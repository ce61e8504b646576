"""A space's memories tab: keyset pages, search and filters in the URL, expand, edit, forget, notes, bulk actions."""

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from memoryhub.memories.write import gateway, marks
from memoryhub.memories.models import Entry, OpLog
from memoryhub.spaces.models import MemorySpace, ProviderService
from memoryhub.spaces.workspaces import default_space

pytestmark = pytest.mark.django_db

HX = {"HTTP_HX_REQUEST": "true"}


def add(space, body, **extra):
    entry = gateway.write(space, gateway.Draft(body=body, **extra)).entry
    return entry


def url(name, *args):
    return reverse(f"dashboard:{name}", args=args)


@pytest.mark.parametrize("name,args,method", [
    ("space", ["default"], "get"), ("entry", ["default", 1], "get"), ("entry_edit", ["default", 1], "post"),
    ("entry_forget", ["default", 1], "post"), ("note", ["default"], "post"), ("bulk", ["default"], "post"),
    ("activity", ["default"], "get"), ("record_forget", ["default"], "post"),
])
def test_memory_pages_require_login(client, name, args, method):
    add(default_space(), "a memory")
    r = getattr(client, method)(url(name, *args))
    assert r.status_code == 302 and r["Location"].startswith("/login/")
    assert Entry.objects.live().count() == 1


def test_list_full_page_and_partial(client, staff):
    space = default_space()
    add(space, "We decided on PostgreSQL", title="database choice", category="decision")
    r = client.get(url("space", "default"))
    assert r.status_code == 200 and b"<html" in r.content
    assert b"database choice" in r.content and b'id="memory-q"' in r.content and b"Note something" in r.content
    r = client.get(url("space", "default"), **HX)
    assert b"<html" not in r.content and b"database choice" in r.content and b'id="note-form"' not in r.content
    r = client.get(url("space", "default"), HTTP_HX_REQUEST="true", HTTP_HX_HISTORY_RESTORE_REQUEST="true")
    assert b"<html" in r.content


def test_empty_space_says_what_to_do(client, staff):
    default_space()
    r = client.get(url("space", "default"))
    assert b"No memories here yet" in r.content


def test_keyset_pages_walk_older_and_newer(client, staff):
    space = default_space()
    start = timezone.now() - timedelta(days=1)
    entries = [add(space, f"memory number {i}", at=start + timedelta(minutes=i)) for i in range(120)]
    first = client.get(url("space", "default"))
    shown = first.context["entries"]
    assert len(shown) == 50 and shown[0] == entries[-1] and first.context["has_older"]
    assert not first.context["has_newer"]
    older_url = first.context["older_url"]
    assert older_url == f"?before={entries[70].pk}"
    second = client.get(url("space", "default") + older_url)
    assert second.context["entries"][0] == entries[69] and second.context["has_newer"]
    third = client.get(url("space", "default") + second.context["older_url"])
    assert len(third.context["entries"]) == 20 and not third.context["has_older"]
    back = client.get(url("space", "default") + third.context["newer_url"])
    assert back.context["entries"] == second.context["entries"]


def test_pagination_keeps_filters(client, staff):
    space = default_space()
    for i in range(60):
        add(space, f"decision {i}", category="decision")
    r = client.get(url("space", "default") + "?category=decision&archived=")
    assert "category=decision" in r.context["older_url"] and "before=" in r.context["older_url"]


def test_search_filters_and_never_bumps_hits(client, staff):
    space = default_space()
    add(space, "PostgreSQL is our database", category="decision")
    add(space, "PostgreSQL tuning pitfall", category="pitfall", tags=["db"])
    add(space, "Lunch was nice", category="companion")
    archived = add(space, "PostgreSQL old plan")
    marks.archive(space, [archived.pk])
    r = client.get(url("space", "default") + "?q=PostgreSQL")
    assert {e.body for e in r.context["entries"]} == {"PostgreSQL is our database", "PostgreSQL tuning pitfall"}
    r = client.get(url("space", "default") + "?q=PostgreSQL&category=pitfall")
    assert [e.body for e in r.context["entries"]] == ["PostgreSQL tuning pitfall"]
    r = client.get(url("space", "default") + "?q=PostgreSQL&archived=only")
    assert [e.body for e in r.context["entries"]] == ["PostgreSQL old plan"]
    r = client.get(url("space", "default") + "?tag=db")
    assert [e.body for e in r.context["entries"]] == ["PostgreSQL tuning pitfall"]
    assert set(Entry.objects.values_list("hits", flat=True)) == {0}
    assert not OpLog.objects.filter(operation="recall").exists()


def test_date_range_and_bad_date(client, staff):
    space = default_space()
    add(space, "old one", at=timezone.now() - timedelta(days=30))
    add(space, "new one")
    today = timezone.localdate().isoformat()
    r = client.get(url("space", "default") + f"?since={today}")
    assert [e.body for e in r.context["entries"]] == ["new one"]
    r = client.get(url("space", "default") + "?since=not-a-date")
    assert r.status_code == 200 and len(r.context["entries"]) == 2


def test_origin_filter_only_when_several_origins(client, staff):
    space = default_space()
    add(space, "local note")
    assert b'name="origin"' not in client.get(url("space", "default")).content
    add(space, "group chat note", origin="qq")
    r = client.get(url("space", "default"))
    assert b'name="origin"' in r.content
    r = client.get(url("space", "default") + "?origin=qq")
    assert [e.body for e in r.context["entries"]] == ["group chat note"]


def test_expand_shows_full_text(client, staff):
    entry = add(default_space(), "First sentence. " + "Second part of a long body. " * 20, title="long")
    r = client.get(url("entry", "default", entry.pk), **HX)
    assert r.status_code == 200 and b"<html" not in r.content
    assert b"Second part of a long body" in r.content and b"Collapse" in r.content
    r = client.get(url("entry", "default", entry.pk) + "?collapse=1", **HX)
    assert b"Show full text" in r.content and b"Second part" not in r.content
    r = client.get(url("entry", "default", entry.pk))
    assert b"<html" in r.content and b"Second part" in r.content


def test_edit_redacts_and_reindexes(client, staff):
    entry = add(default_space(), "original text")
    r = client.get(url("entry_edit", "default", entry.pk), **HX)
    assert b"<html" not in r.content and b'name="body"' in r.content
    r = client.post(url("entry_edit", "default", entry.pk), {
        "title": "fixed", "body": "rotated key sk-abcdefghijklmnopqrstuvwx1234 today", "category": "decision",
        "tags": "ops, keys"}, **HX)
    assert r.status_code == 200 and b"secret was redacted" in r.content
    entry.refresh_from_db()
    assert "sk-abc" not in entry.body and "[REDACTED:" in entry.body
    assert entry.category == "decision" and entry.tags == ["ops", "keys"] and entry.title == "fixed"
    assert OpLog.objects.filter(operation="update", actor="alice").exists()
    r = client.get(url("space", "default") + "?q=rotated")
    assert [e.pk for e in r.context["entries"]] == [entry.pk]


def test_edit_with_bad_input_changes_nothing(client, staff):
    entry = add(default_space(), "keep me")
    r = client.post(url("entry_edit", "default", entry.pk), {"title": "", "body": "  ", "category": "nonsense"}, **HX)
    assert r.status_code == 200 and b"<html" not in r.content
    assert b"Text must not be empty" in r.content and b"Category must be one of" in r.content  # the API's words, the field by its label
    entry.refresh_from_db()
    assert entry.body == "keep me" and entry.category == "general"


def test_forget_soft_deletes(client, staff):
    entry = add(default_space(), "forget me")
    r = client.post(url("entry_forget", "default", entry.pk), **HX)
    assert r.status_code == 200 and r.content == b""
    entry.refresh_from_db()
    assert entry.deleted_at is not None
    assert client.get(url("entry", "default", entry.pk)).status_code == 404


def test_note_goes_through_the_pipeline(client, staff):
    space = default_space()
    r = client.post(url("note", "default"), {"text": "Call me Bob. token: hunter22secret", "tags": "me"}, **HX)
    assert r.status_code == 200 and b"<html" not in r.content and b"Saved as #" in r.content
    assert "memoriesChanged" in r["HX-Trigger"]
    entry = Entry.objects.get(space=space)
    assert entry.kind == "note" and entry.origin == "local" and entry.source == "user"
    assert "hunter22" not in entry.body and entry.redactions == 1 and entry.tags == ["me"]
    assert OpLog.objects.filter(operation="remember", actor="alice").exists()
    assert space.facts.filter(predicate="nickname", value="Bob").exists() or space.facts.exists()


def test_empty_note_is_refused_inline(client, staff):
    default_space()
    r = client.post(url("note", "default"), {"text": "   "}, **HX)
    assert r.status_code == 200 and b"Note must not be empty" in r.content and "HX-Trigger" not in r
    r = client.post(url("note", "default"), {"text": ""})
    assert r.status_code == 200 and b"<html" in r.content and b"Note must not be empty" in r.content
    assert not Entry.objects.exists()


def test_bulk_asks_first_then_archives(client, staff):
    space = default_space()
    a, b, c = (add(space, f"entry {i}") for i in range(3))
    r = client.post(url("bulk", "default"), {"action": "archive", "ids": [a.pk, b.pk]}, **HX)
    assert r.status_code == 200 and b"Archive 2 entries?" in r.content and b'name="confirm"' in r.content
    assert not Entry.objects.filter(archived=True).exists()
    r = client.post(url("bulk", "default"), {"action": "archive", "ids": [a.pk, b.pk], "confirm": "1"}, **HX)
    assert "memoriesChanged" in r["HX-Trigger"] and b"Archived 2 entries." in r.content
    assert set(Entry.objects.filter(archived=True).values_list("pk", flat=True)) == {a.pk, b.pk}
    assert OpLog.objects.filter(operation="archive").exists()
    client.post(url("bulk", "default"), {"action": "unarchive", "ids": [a.pk], "confirm": "1"}, **HX)
    assert set(Entry.objects.filter(archived=True).values_list("pk", flat=True)) == {b.pk}
    client.post(url("bulk", "default"), {"action": "forget", "ids": [c.pk, b.pk], "confirm": "1"}, **HX)
    assert list(Entry.objects.live().values_list("pk", flat=True)) == [a.pk]


def test_bulk_without_selection_explains(client, staff):
    add(default_space(), "x")
    r = client.post(url("bulk", "default"), {"action": "forget"}, **HX)
    assert b"Select some entries" in r.content and Entry.objects.live().count() == 1


def test_activity_lists_ops_newest_first(client, staff):
    space = default_space()
    for i in range(55):
        add(space, f"op {i}")
    r = client.get(url("activity", "default"))
    assert r.status_code == 200 and b"<html" in r.content and r.context["has_older"]
    assert r.context["ops"][0].pk > r.context["ops"][1].pk
    r = client.get(r.context["older_url"], **HX)
    assert b"<html" not in r.content and r.content.count(b"<tr>") == 6


# --- third-party spaces -----------------------------------------------------------------

def test_search_only_provider_hides_forget_graph_and_browse(client, staff):
    ProviderService.objects.create(kind="byterover")
    MemorySpace.objects.create(slug="brv", name="BRV", provider="byterover")
    r = client.get(url("space", "brv"))
    html = r.content.decode()
    assert r.status_code == 200 and "cannot list its memories" in html
    assert url("graph", "brv") not in html and url("activity", "brv") not in html and url("persona", "brv") not in html
    assert "Delete" not in html.split('id="memory-results"')[1] and 'id="bulk-form"' not in html
    assert client.get(url("graph", "brv")).status_code == 404
    assert client.get(url("graph_data", "brv")).status_code == 404
    assert client.post(url("record_forget", "brv"), {"id": "x"}).status_code == 404


def test_third_party_browse_lists_records_and_forgets(client, staff, tmp_path):
    ProviderService.objects.create(kind="holographic", config={"dataPath": str(tmp_path)})
    space = MemorySpace.objects.create(slug="holo", name="Holo", provider="holographic")
    r = client.post(url("note", "holo"), {"text": "Alice prefers tea over coffee"}, **HX)
    assert b"Sent to the provider: committed" in r.content
    r = client.get(url("space", "holo"))
    assert b"Alice prefers tea" in r.content and url("record_forget", "holo").encode() in r.content
    record_id = r.context["records"][0].id
    r = client.post(url("record_forget", "holo"), {"id": record_id}, **HX)
    assert r.status_code == 200 and r.content == b""
    assert client.get(url("space", "holo")).context["records"] == []
    assert url("graph", "holo").encode() in client.get(url("space", "holo")).content
    data = client.get(url("graph_data", "holo")).json()
    assert data["nodes"] == [] and "error" not in data
    assert space.pk


def test_provider_errors_show_inline_never_500(client, staff):
    ProviderService.objects.create(kind="mem0", config={"endpoint": "http://127.0.0.1:9", "mode": "selfhosted"})
    space = MemorySpace.objects.create(slug="m0", name="M0", provider="mem0", config={"userId": "u"})
    r = client.get(url("space", "m0"))
    assert r.status_code == 200 and b"The provider answered with an error" in r.content
    space.refresh_from_db()
    assert space.last_error
    r = client.get(url("space", "m0") + "?q=tea", **HX)
    assert r.status_code == 200 and b"error" in r.content
    r = client.post(url("note", "m0"), {"text": "hello"}, **HX)
    assert r.status_code == 200 and b"errorlist" in r.content
