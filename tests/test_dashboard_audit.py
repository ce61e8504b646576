"""The audit log page: read-only, filterable, paged; and read-only in the Django admin too."""

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from memoryhub.audit.models import AuditEvent, record
from memoryhub.dashboard.views.audit import PAGE

pytestmark = pytest.mark.django_db


def test_the_audit_log_needs_login_and_takes_no_writes(client, staff):
    assert client.post(reverse("dashboard:audit")).status_code == 405
    client.logout()
    r = client.get(reverse("dashboard:audit"))
    assert r.status_code == 302 and r["Location"].startswith("/login/")


def test_dashboard_actions_show_up_in_the_log(client, staff):
    client.post(reverse("dashboard:tokens"), {"name": "laptop", "origin": "local", "scope": "all"})
    html = client.get(reverse("dashboard:audit")).content.decode()
    assert "token.create" in html and "alice" in html and "laptop" in html
    assert 'aria-current="page"' in html.split('href="/audit/"')[1][:30]


def test_filters_narrow_by_actor_action_target_and_date(client, staff):
    record("alice", "space.create", "billing")
    record("token:bot", "vault.request", "req_1")
    old = record("alice", "space.delete", "scratch")
    AuditEvent.objects.filter(pk=old.pk).update(at=timezone.now() - timedelta(days=40))
    url = reverse("dashboard:audit")
    only = lambda **q: client.get(url, q).content.decode()  # noqa: E731
    assert "billing" in only(action="space.create") and "req_1" not in only(action="space.create")
    assert "req_1" in only(actor="bot") and "billing" not in only(actor="bot")
    assert "scratch" in only(target="scr") and "billing" not in only(target="scr")
    since = (timezone.now() - timedelta(days=7)).date().isoformat()
    assert "scratch" not in only(since=since) and "billing" in only(since=since)
    assert "No events match" in only(actor="nobody")
    partial = client.get(url, {"action": "space.create"}, headers={"HX-Request": "true"}).content.decode()
    assert "<html" not in partial and "billing" in partial


def test_the_log_pages_by_id_keeping_the_filters(client, staff):
    for i in range(PAGE + 5):
        record("alice", "space.edit", f"space-{i}")
    first = client.get(reverse("dashboard:audit"), {"action": "space.edit"}).content.decode()
    assert first.count('id="event-') == PAGE and "space-104" in first and "space-4<" not in first
    older = first.split('class="button" href="')[1].split('"')[0].replace("&amp;", "&")
    assert "action=space.edit" in older and "before=" in older
    second = client.get(reverse("dashboard:audit") + older).content.decode()
    assert second.count('id="event-') == 5 and "space-0<" in second


def test_the_admin_cannot_add_change_or_delete_audit_events(client, django_user_model):
    event = record("alice", "space.create", "billing")
    client.force_login(django_user_model.objects.create_superuser("root", password="pw"))
    assert client.get("/admin/audit/auditevent/").status_code == 200
    assert client.get("/admin/audit/auditevent/add/").status_code == 403
    assert client.post(f"/admin/audit/auditevent/{event.pk}/delete/", {"post": "yes"}).status_code == 403
    assert client.post(f"/admin/audit/auditevent/{event.pk}/change/", {"actor": "mallory"}).status_code == 403
    changelist = client.post("/admin/audit/auditevent/", {"action": "delete_selected", "_selected_action": [event.pk],
                                                          "post": "yes"})
    assert changelist.status_code in (200, 302)
    event.refresh_from_db()
    assert event.actor == "alice" and AuditEvent.objects.count() == 1


def test_an_action_the_registry_does_not_know_is_refused():
    with pytest.raises(ValueError):
        record("alice", "space.explode", "billing")
    assert not AuditEvent.objects.exists()


def test_a_memory_edit_is_audited_with_before_and_after_but_never_its_words(client, staff):
    from memoryhub.memories.write import gateway
    from memoryhub.spaces.models import MemorySpace

    space = MemorySpace.objects.create(slug="notes", name="Notes")
    entry = gateway.write(space, gateway.Draft(title="plans", body="the surprise party is on friday")).entry
    client.post(f"/spaces/notes/entries/{entry.pk}/edit/", {"title": "plans", "body": "the party moved to saturday",
                                                            "category": "decision", "tags": "party"})
    event = AuditEvent.objects.get(action="entry.edit")
    assert event.actor == "alice" and event.target == f"notes:{entry.pk}"
    assert set(event.before) == set(event.after) == {"body", "category", "tags"}
    assert event.before["body"]["chars"] == len("the surprise party is on friday") and event.after["tags"] == ["party"]
    assert "friday" not in str(event.__dict__) and "saturday" not in str(event.__dict__)
    html = client.get(reverse("dashboard:audit")).content.decode()
    assert "memory edited" in html and "31 chars" in html and "tags: <del>[]</del> → <ins>party</ins>" in html
