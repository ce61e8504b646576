"""The Django admin cannot go around the hub's doors (#30): every model of ours, and django-q's, is read-only there,
even for a superuser; people's accounts stay editable, and each change to one is audited.

The list of models comes from the admin's own registry, so a model registered later is held to it too.
"""

from __future__ import annotations

import pytest
from django.contrib import admin
from django.db import connection

from memoryhub.audit.models import AuditEvent
from memoryhub.memories.models import Entry
from memoryhub.memories.search.fulltext import FTS_TABLE
from memoryhub.memories.write import gateway
from memoryhub.spaces.models import MemorySpace

pytestmark = pytest.mark.django_db

# What stays editable, and why: accounts are where staff status is given (audited below); groups carry only
# Django admin permissions, which the dashboard never reads; axes' rows are how staff unlock an account.
EDITABLE = {"auth.User", "auth.Group", "axes.AccessAttempt", "axes.AccessLog", "axes.AccessFailureLog"}
REGISTERED = sorted(admin.site._registry, key=lambda m: m._meta.label)
GUARDED = [m for m in REGISTERED if m._meta.label not in EDITABLE]


@pytest.fixture
def root(client, django_user_model):
    user = django_user_model.objects.create_superuser("root", password=None)
    client.force_login(user)
    return user


def url(model, view: str, *args) -> str:
    from django.urls import reverse

    return reverse(f"admin:{model._meta.app_label}_{model._meta.model_name}_{view}", args=args)


def test_every_model_of_ours_and_django_qs_is_guarded():
    ours = {m._meta.label for m in REGISTERED if m.__module__.startswith(("memoryhub.", "django_q."))}
    assert ours and ours <= {m._meta.label for m in GUARDED}
    assert {m._meta.label for m in REGISTERED} - {m._meta.label for m in GUARDED} == EDITABLE


@pytest.mark.parametrize("model", GUARDED, ids=lambda m: m._meta.label)
def test_a_superuser_may_look_but_not_add_change_or_delete(model, root, client):
    modeladmin = admin.site._registry[model]
    request = type("Request", (), {"user": root, "method": "GET", "GET": {}})()
    assert modeladmin.has_view_permission(request)
    assert not (modeladmin.has_add_permission(request) or modeladmin.has_change_permission(request)
                or modeladmin.has_delete_permission(request))
    assert modeladmin.get_actions(request) == {}
    assert client.get(url(model, "changelist")).status_code == 200
    assert client.get(url(model, "add")).status_code == 403


def test_an_entry_cannot_be_edited_or_deleted_around_the_write_gateway(root, client):
    """Before: the admin's delete left the entry's search-index rows behind, and its edit skipped redaction."""
    space = MemorySpace.objects.create(slug="notes", name="Notes")
    entry = gateway.write(space, gateway.Draft(title="ferry", body="the ferry leaves at nine")).entry
    change = client.post(url(Entry, "change", entry.pk), {"space": space.pk, "title": "x", "body": "password=hunter2",
                                                          "kind": "note", "category": "general"})
    delete = client.post(url(Entry, "delete", entry.pk), {"post": "yes"})
    bulk = client.post(url(Entry, "changelist"), {"action": "delete_selected", "_selected_action": [entry.pk],
                                                  "post": "yes"})
    assert change.status_code == 403 and delete.status_code == 403 and bulk.status_code in (200, 302)
    entry.refresh_from_db()
    assert entry.body == "the ferry leaves at nine" and entry.deleted_at is None
    if connection.vendor == "sqlite":
        with connection.cursor() as cur:
            cur.execute(f"SELECT count(*) FROM {FTS_TABLE} WHERE rowid = %s", [entry.pk])
            assert cur.fetchone()[0] == 1


def test_giving_an_account_staff_status_in_the_admin_is_audited(root, client, django_user_model):
    from memoryhub.audit.actions import Action

    added = client.post("/admin/auth/user/add/", {"username": "bob", "password1": "a-long-pass-phrase",
                                                  "password2": "a-long-pass-phrase", "usable_password": "true"})
    assert added.status_code == 302, added.content[:500]
    bob = django_user_model.objects.get(username="bob")
    made = AuditEvent.objects.get(action=Action.PERSON_CREATE)
    assert made.user == root and made.target == "bob" and made.after["is_staff"] is False and made.before is None

    form = {"username": "bob", "is_active": "on", "is_staff": "on", "date_joined_0": "2026-01-01",
            "date_joined_1": "00:00:00", "initial-date_joined_0": "2026-01-01", "initial-date_joined_1": "00:00:00"}
    changed = client.post(f"/admin/auth/user/{bob.pk}/change/", form)
    assert changed.status_code == 302, changed.content[:800]
    edit = AuditEvent.objects.get(action=Action.PERSON_EDIT)
    assert edit.actor == "root" and edit.before == {"is_staff": False} and edit.after == {"is_staff": True}

    password = client.post(f"/admin/auth/user/{bob.pk}/password/", {"password1": "another-long-phrase",
                                                                     "password2": "another-long-phrase"})
    assert password.status_code == 302
    assert "another-long-phrase" not in str(AuditEvent.objects.get(action=Action.PERSON_PASSWORD).__dict__)

    assert client.post(f"/admin/auth/user/{bob.pk}/delete/", {"post": "yes"}).status_code == 302
    gone = AuditEvent.objects.get(action=Action.PERSON_DELETE)
    assert gone.before["username"] == "bob" and gone.before["is_staff"] is True and gone.after is None
