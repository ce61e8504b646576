"""The API tokens page: create (raw value shown once), list, revoke with confirmation, audited."""

from __future__ import annotations

import re

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from memoryhub.agents.models import ApiToken, hash_token
from memoryhub.audit.models import AuditEvent
from memoryhub.spaces.workspaces import default_space

pytestmark = pytest.mark.django_db

HX = {"HX-Request": "true"}


def test_tokens_page_requires_login(client):
    assert client.get(reverse("dashboard:tokens")).status_code == 302
    assert client.post(reverse("dashboard:tokens"), {"name": "bot", "origin": "local"}).status_code == 302
    assert not ApiToken.objects.exists()


def test_empty_state_says_what_to_do(client, staff):
    html = client.get(reverse("dashboard:tokens")).content.decode()
    assert "No tokens yet" in html and 'value="local"' in html


def test_create_shows_the_raw_token_once_and_stores_only_its_hash(client, staff):
    r = client.post(reverse("dashboard:tokens"), {"name": "laptop-agent", "origin": "local", "scope": "all"})
    assert r.status_code == 200 and r["Cache-Control"].startswith("max-age=0")
    token = ApiToken.objects.get()
    html = r.content.decode()
    raw = html.split('id="new-token-value" value="', 1)[1].split('"', 1)[0]
    assert raw.startswith("mh_") and token.token_hash == hash_token(raw) and token.created_by == staff
    assert "shown only this once" in html
    again = client.get(reverse("dashboard:tokens")).content.decode()
    assert raw not in again and "laptop-agent" in again and token.prefix in again


def test_created_token_works_against_the_api(client, staff):
    r = client.post(reverse("dashboard:tokens"), {"name": "bot", "origin": "qq", "scope": "all"})
    raw = r.content.decode().split('id="new-token-value" value="', 1)[1].split('"', 1)[0]
    assert client.get("/api/v1/spaces", HTTP_AUTHORIZATION=f"Bearer {raw}").status_code == 200


def test_create_with_spaces_restricts_the_token(client, staff):
    space = default_space()
    r = client.post(reverse("dashboard:tokens"), {"name": "bot", "origin": "qq", "scope": "spaces", "spaces": [space.slug]},
                    headers=HX)
    html = r.content.decode()
    assert r.status_code == 200 and "<html" not in html and 'id="token-panel"' in html
    token = ApiToken.objects.get()
    assert token.origin == "qq" and list(token.spaces.all()) == [space]
    event = AuditEvent.objects.get(action="token.create")
    assert event.after["spaces"] == ["default"] and event.target == "token:bot"
    raw = html.split('id="new-token-value" value="', 1)[1].split('"', 1)[0]
    assert raw not in f"{event.after}{event.detail}" and event.after["prefix"] == raw[:10]


def test_bad_input_rerenders_with_errors_and_creates_nothing(client, staff):
    r = client.post(reverse("dashboard:tokens"), {"name": "", "origin": "not an origin!"}, headers=HX)
    html = r.content.decode()
    assert r.status_code == 200 and "This field is required" in html and "letters, numbers" in html
    r = client.post(reverse("dashboard:tokens"), {"name": "bot", "origin": "local", "scope": "spaces",
                                                  "spaces": ["missing"]})
    assert r.status_code == 200 and "Select a valid choice" in r.content.decode()
    assert not ApiToken.objects.exists()


def test_a_new_token_is_limited_to_the_spaces_ticked_unless_unrestricted_is_chosen(client, staff):
    form = client.get(reverse("dashboard:tokens")).content.decode()
    assert re.search(r'<input type="radio" name="scope" value="spaces"[^>]*checked', form)
    assert "names new workspaces" in form and "reads and edits the notebooks" in form  # what "every space" allows
    r = client.post(reverse("dashboard:tokens"), {"name": "bot", "origin": "local"}, headers=HX)
    assert "Tick at least one space" in r.content.decode() and not ApiToken.objects.exists()
    client.post(reverse("dashboard:tokens"), {"name": "bot", "origin": "local", "scope": "all",
                                              "spaces": [default_space().slug]})
    assert list(ApiToken.objects.get().spaces.all()) == []  # unrestricted wins over a stray tick


def test_a_second_token_of_the_same_name_is_refused_even_after_the_first_is_revoked(client, staff):
    token, _raw = ApiToken.issue("laptop")
    r = client.post(reverse("dashboard:tokens"), {"name": " laptop ", "origin": "local", "scope": "all"}, headers=HX)
    assert "A token called “laptop” exists" in r.content.decode() and ApiToken.objects.count() == 1
    ApiToken.objects.filter(pk=token.pk).update(revoked_at=timezone.now())
    r = client.post(reverse("dashboard:connect"), {"name": "laptop", "space": default_space().slug, "origin": "local"})
    assert "A revoked token was called “laptop”" in r.content.decode() and ApiToken.objects.count() == 1


def test_revoke_asks_for_confirmation_then_revokes_and_audits(client, staff):
    token, raw = ApiToken.issue("bot")
    confirm = client.get(reverse("dashboard:token_revoke", args=[token.pk]))
    assert confirm.status_code == 200 and "cannot be undone" in confirm.content.decode()
    token.refresh_from_db()
    assert token.revoked_at is None
    r = client.post(reverse("dashboard:token_revoke", args=[token.pk]))
    assert r.status_code == 302
    token.refresh_from_db()
    assert token.revoked_at is not None
    assert client.get("/api/v1/spaces", HTTP_AUTHORIZATION=f"Bearer {raw}").status_code == 401
    assert AuditEvent.objects.filter(action="token.revoke", target="token:bot").count() == 1
    client.post(reverse("dashboard:token_revoke", args=[token.pk]))
    assert AuditEvent.objects.filter(action="token.revoke").count() == 1


def test_htmx_revoke_answers_with_the_panel(client, staff):
    token, _ = ApiToken.issue("bot")
    r = client.post(reverse("dashboard:token_revoke", args=[token.pk]), headers=HX)
    html = r.content.decode()
    assert r.status_code == 200 and "<html" not in html and "revoked" in html
    assert client.post(reverse("dashboard:token_revoke", args=[999])).status_code == 404


def test_list_shows_name_origin_spaces_and_last_used(client, staff, api):
    api.get("spaces")
    html = client.get(reverse("dashboard:tokens")).content.decode()
    assert "agent" in html and "<code>local</code>" in html and "every space (unrestricted)" in html
    assert "never" not in html.split('id="token-', 1)[1].split("</tr>", 1)[0]


def test_create_enforces_csrf(staff):
    csrf_client = Client(enforce_csrf_checks=True)
    csrf_client.force_login(staff)
    assert csrf_client.post(reverse("dashboard:tokens"), {"name": "bot", "origin": "local"}).status_code == 403
    assert not ApiToken.objects.exists()


def test_pause_and_resume_with_one_click_keep_the_token_and_are_audited(client, staff):
    space = default_space()
    token, raw = ApiToken.issue("bot", origin="qq", spaces=[space])
    agent = Client()
    assert agent.get("/api/v1/spaces", HTTP_AUTHORIZATION=f"Bearer {raw}").status_code == 200  # now cached
    page = client.get(reverse("dashboard:tokens")).content.decode()
    assert reverse("dashboard:token_pause", args=[token.pk]) in page and ">Pause<" in page
    r = client.post(reverse("dashboard:token_pause", args=[token.pk]), headers=HX)
    assert r.status_code == 200 and "paused" in r.content.decode() and ">Resume<" in r.content.decode()
    refused = agent.get("/api/v1/spaces", HTTP_AUTHORIZATION=f"Bearer {raw}")
    assert refused.status_code == 403 and refused.json()["error"]["code"] == "paused"
    assert client.post(reverse("dashboard:token_pause", args=[token.pk])).status_code == 302
    token.refresh_from_db()
    assert token.paused_at is None and token.origin == "qq" and list(token.spaces.all()) == [space]
    assert agent.get("/api/v1/spaces", HTTP_AUTHORIZATION=f"Bearer {raw}").status_code == 200
    assert [e.action for e in AuditEvent.objects.order_by("pk") if e.action.startswith("token.")] == [
        "token.pause", "token.resume"]


def test_pause_is_post_only_and_a_revoked_token_is_not_resumed(client, staff):
    token, raw = ApiToken.issue("bot")
    assert client.get(reverse("dashboard:token_pause", args=[token.pk])).status_code == 405
    client.post(reverse("dashboard:token_revoke", args=[token.pk]))
    client.post(reverse("dashboard:token_pause", args=[token.pk]))
    token.refresh_from_db()
    assert token.revoked_at is not None and token.paused_at is None
    assert Client().get("/api/v1/spaces", HTTP_AUTHORIZATION=f"Bearer {raw}").status_code == 401
    assert client.post(reverse("dashboard:token_pause", args=[999])).status_code == 404
