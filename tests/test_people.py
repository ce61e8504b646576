"""People in the policy (#30): who may sign in to the dashboard, and what a refused account is told."""

from __future__ import annotations

import pytest
from django.test import Client

from memoryhub.access.people import GRANTS, Perm, Person, Role
from memoryhub.spaces.models import MemorySpace

pytestmark = pytest.mark.django_db


def test_an_account_without_staff_status_cannot_sign_in(django_user_model):
    django_user_model.objects.create_user("guest", password="a-right-password")
    browser = Client()
    page = browser.post("/login/", {"username": "guest", "password": "a-right-password"})
    assert page.status_code == 200 and "has no staff status" in page.content.decode()
    assert "_auth_user_id" not in browser.session
    wrong = browser.post("/login/", {"username": "guest", "password": "wrong"}).content.decode()
    assert "Wrong username or password." in wrong and "has no staff status" not in wrong


def test_a_staff_account_signs_in_and_gets_the_dashboard(django_user_model):
    django_user_model.objects.create_user("alice", password="a-right-password", is_staff=True)
    browser = Client()
    answer = browser.post("/login/", {"username": "alice", "password": "a-right-password", "next": "/tokens/"})
    assert answer.status_code == 302 and answer["Location"] == "/tokens/"
    assert browser.get("/tokens/").status_code == 200


def test_staff_status_taken_away_refuses_the_open_session_with_a_reason(client, django_user_model):
    alice = django_user_model.objects.create_user("alice", password=None, is_staff=True)
    client.force_login(alice)
    MemorySpace.objects.create(slug="diary", name="Diary", access=MemorySpace.Access.VAULT)
    assert client.get("/spaces/diary/").status_code == 200
    django_user_model.objects.filter(pk=alice.pk).update(is_staff=False)
    page = client.get("/spaces/diary/")
    html = page.content.decode()
    assert page.status_code == 403 and "signed in as alice" in html and str(Perm.MEMORY_READ.label) in html
    assert 'action="/logout/"' in html and 'class="sidebar"' not in html and "Diary" not in html
    zh = client.get("/spaces/diary/", HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    assert "工作人员状态" in zh


def test_only_staff_hold_permissions_and_an_inactive_account_is_nobody(django_user_model):
    assert GRANTS[Role.STAFF] == frozenset(Perm) and not GRANTS[Role.SIGNED_IN] and not GRANTS[Role.ANONYMOUS]
    inactive = django_user_model.objects.create_user("gone", password=None, is_staff=True, is_active=False)
    assert Person(inactive).role == Role.ANONYMOUS and not Person(inactive).may(Perm.MEMORY_READ)
