"""The dashboard shell: login required, the home page lists spaces with entry counts."""

import pytest
from django.urls import reverse

pytestmark = pytest.mark.django_db


def test_home_requires_login(client):
    r = client.get("/")
    assert r.status_code == 302 and r["Location"].startswith("/login/")


def test_login_page_renders(client):
    r = client.get("/login/")
    assert r.status_code == 200 and b'name="password"' in r.content


def test_home_lists_spaces_with_entry_counts(client, staff, api):
    api.turn("one")
    api.turn("two")
    r = client.get(reverse("dashboard:home"))
    assert r.status_code == 200
    assert b"default" in r.content and b">2<" in r.content.replace(b" ", b"")


def test_admin_registers_every_model_without_secrets(client, django_user_model):
    from django.apps import apps
    from django.contrib import admin

    ours = [m for m in apps.get_models() if m._meta.app_label in {"spaces", "memories", "vault", "agents", "jobs", "audit"}]
    assert ours and all(admin.site.is_registered(m) for m in ours)
    superuser = django_user_model.objects.create_superuser("root", password="pw")
    client.force_login(superuser)
    from memoryhub.agents.models import ApiToken

    token, raw = ApiToken.issue("bot")
    page = client.get(f"/admin/agents/apitoken/{token.pk}/change/")
    assert page.status_code == 200
    assert token.token_hash.encode() not in page.content and raw.encode() not in page.content


def test_the_favicon_every_browser_asks_for_is_served_without_a_login(client):
    r = client.get("/favicon.ico")
    body = b"".join(r.streaming_content) if r.streaming else r.content
    assert r.status_code == 200 and body[:4] == b"\x00\x00\x01\x00"  # an icon file, not a 404 page
    assert b'rel="icon" href="/favicon.ico"' in client.get("/login/").content
