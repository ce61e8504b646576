"""The vault's dashboard: pending requests, approvals, grants, revocation, entry pages, sidebar dots."""

import pytest
from django.test import Client
from django.utils import timezone

from memoryhub.audit.models import AuditEvent
from memoryhub.dashboard.templatetags.memoryhub_tags import tag_colour
from memoryhub.spaces.models import MemorySpace
from memoryhub.vault.models import AccessRequest, Grant

from tests.answers import result


@pytest.fixture
def diary(db):
    return MemorySpace.objects.create(slug="diary", name="Diary", access="vault")


def save(api, title, category="progress", **extra):
    return result(api.tool("memory_save", category=category, title=title, body=f"body of {title}", space="diary",
                           **extra))["id"]


def file_request(api, session_id="s1", **criteria):
    return result(api.tool("memory_request", session_id=session_id, **criteria))["request_id"]


def test_vault_pages_need_a_staff_login(client, django_user_model, diary):
    for url in ("/vault/", "/vault/companion/", "/vault/requests/", "/vault/grants/"):
        r = client.get(url)
        assert r.status_code == 302 and r["Location"].startswith("/login/")
    client.force_login(django_user_model.objects.create_user("guest", password="pw"))
    assert client.get("/vault/requests/").status_code == 403
    assert client.post("/vault/requests/req_x/deny").status_code == 403


def test_the_whole_loop_through_api_and_dashboard(client, staff, api, api_factory, diary):
    a, b = save(api, "alpha", tags=["trip"]), save(api, "beta", category="pitfall")
    request_id = file_request(api)
    page = client.get("/vault/requests/").content.decode()
    assert request_id in page and "alpha" in page and "beta" in page and "body of alpha" in page
    assert 'class="chip cat-pitfall"' in page and "#trip" in page
    for label in ("Allow selected", "Allow all", "Deny"):
        assert label in page
    assert result(api.tool("memory_status"))["pending"][0]["request_id"] == request_id

    r = client.post(f"/vault/requests/{request_id}/approve", {"entries": [a]})
    assert r.status_code == 302
    read = result(api.tool("memory_read", request_id=request_id))["entries"]
    assert [e["id"] for e in read] == [a]
    assert AuditEvent.objects.filter(action="vault.grant", target=request_id, detail__entries=[int(a)],
                                     user=staff).exists()

    other_session = api.tool("memory_read", session_id="s2", request_id=request_id)
    assert other_session.status_code == 403
    assert api_factory(name="stranger").tool("memory_read", request_id=request_id).status_code == 403

    granted = client.get("/vault/grants/").content.decode()
    assert request_id in granted and "Revoke" in granted and "alpha" in granted

    assert api.post("sessions/s1/end").json() == {"expired_grants": 1}
    assert api.tool("memory_read", request_id=request_id).status_code == 403
    assert request_id not in client.get("/vault/grants/").content.decode()

    again = file_request(api, session_id="s3")
    client.post(f"/vault/requests/{again}/approve", {"all": "1"})
    assert len(result(api.tool("memory_read", session_id="s3", request_id=again))["entries"]) == 2
    assert client.post(f"/vault/grants/{again}/revoke").status_code == 302
    assert api.tool("memory_read", session_id="s3", request_id=again).status_code == 403
    assert AuditEvent.objects.filter(action="vault.revoke", target=again,
                                     detail__entries=sorted([int(a), int(b)])).exists()


def test_deny_refuses_the_read(client, staff, api, diary):
    save(api, "alpha")
    request_id = file_request(api)
    client.post(f"/vault/requests/{request_id}/deny")
    assert AccessRequest.objects.get(pk=request_id).status == "denied"
    assert api.tool("memory_read", request_id=request_id).status_code == 403
    assert AuditEvent.objects.filter(action="vault.deny", target=request_id, user=staff).exists()
    r = client.post(f"/vault/requests/{request_id}/approve", {"all": "1"}, follow=True)
    assert "already decided" in r.content.decode() and not Grant.objects.exists()


def test_approval_cannot_name_entries_outside_the_request(client, staff, api, diary):
    save(api, "alpha")
    request_id = file_request(api)
    later = save(api, "alpha later")
    r = client.post(f"/vault/requests/{request_id}/approve", {"entries": [later]})
    assert r.status_code == 400 and not Grant.objects.exists()
    assert client.post(f"/vault/requests/{request_id}/approve", {"entries": ["x"]}).status_code == 400


def test_approving_nothing_keeps_the_request_pending(client, staff, api, diary):
    save(api, "alpha")
    request_id = file_request(api)
    r = client.post(f"/vault/requests/{request_id}/approve", {}, follow=True)
    assert "Tick at least one entry" in r.content.decode()
    assert AccessRequest.objects.get(pk=request_id).status == "pending"
    htmx = client.post(f"/vault/requests/{request_id}/approve", {}, HTTP_HX_REQUEST="true")
    assert "Tick at least one entry" in htmx.content.decode() and "Allow selected" in htmx.content.decode()


def test_htmx_approval_answers_with_the_outcome_and_the_sidebar(client, staff, api, diary):
    a = save(api, "alpha")
    request_id = file_request(api)
    r = client.post(f"/vault/requests/{request_id}/approve", {"entries": [a]}, HTTP_HX_REQUEST="true")
    body = r.content.decode()
    assert r.status_code == 200 and f'id="req-{request_id}"' in body and "Allowed 1 entry" in body
    assert 'id="nav-vault-requests"' in body and 'hx-swap-oob="true"' in body and "dot red" not in body
    revoked = client.post(f"/vault/grants/{request_id}/revoke", HTTP_HX_REQUEST="true").content.decode()
    assert f'id="grant-{request_id}"' in revoked and "Revoked" in revoked


def test_approval_with_csrf_enforced(django_user_model, api, diary):
    a = save(api, "alpha")
    request_id = file_request(api)
    browser = Client(enforce_csrf_checks=True)
    browser.force_login(django_user_model.objects.create_user("carol", password="pw", is_staff=True))
    assert browser.post(f"/vault/requests/{request_id}/approve", {"entries": [a]}).status_code == 403
    browser.get("/vault/requests/")
    token = browser.cookies["csrftoken"].value
    r = browser.post(f"/vault/requests/{request_id}/approve", {"entries": [a], "csrfmiddlewaretoken": token})
    assert r.status_code == 302 and AccessRequest.objects.get(pk=request_id).status == "approved"


def test_sidebar_shows_red_dot_for_requests_and_grey_dot_for_unseen_memories(client, staff, api, diary):
    assert 'class="dot' not in client.get("/").content.decode()
    save(api, "alpha")
    home = client.get("/").content.decode()
    assert "dot grey" in home and "dot red" not in home
    client.get("/vault/")
    assert "dot grey" not in client.get("/").content.decode()
    assert MemorySpace.objects.get(slug="diary").last_seen_at is not None
    file_request(api)
    assert "dot red" in client.get("/").content.decode()


def test_vault_page_lists_vault_entries_with_filters_and_a_companion_tab(client, staff, api, diary):
    save(api, "walk in the park", category="companion", tags=["dog"])
    save(api, "migration broke", category="pitfall")
    api.tool("memory_save", category="pitfall", title="open memory", body="x")
    page = client.get("/vault/").content.decode()
    assert "walk in the park" in page and "migration broke" in page and "open memory" not in page
    assert f'style="color: {tag_colour("dog")}"' in page
    only = client.get("/vault/", {"category": "pitfall"}).content.decode()
    assert "migration broke" in only and "walk in the park" not in only
    assert "walk in the park" not in client.get("/vault/", {"q": "migration"}).content.decode()
    companion = client.get("/vault/companion/").content.decode()
    assert "walk in the park" in companion and "migration broke" not in companion
    partial = client.get("/vault/", {"q": "walk"}, HTTP_HX_REQUEST="true").content.decode()
    assert partial.strip().startswith('<section id="entry-list">') and "walk in the park" in partial


def test_entry_page_links_related_entries_both_ways(client, staff, api, diary):
    first = save(api, "first")
    second = save(api, "second", related=[first])
    page = client.get(f"/vault/entries/{second}/").content.decode()
    assert f'href="/vault/entries/{first}/"' in page
    back = client.get(f"/vault/entries/{first}/").content.decode()
    assert f'href="/vault/entries/{second}/"' in back
    assert client.get("/vault/entries/999999/").status_code == 404


def test_tag_colour_is_stable_and_differs_between_names():
    assert tag_colour("memory") == tag_colour("memory") == tag_colour(" Memory ")
    assert tag_colour("memory") != tag_colour("plugin")
    assert tag_colour("x").startswith("hsl(")


def test_looking_at_requests_marks_vault_spaces_seen(client, staff, diary):
    MemorySpace.objects.filter(pk=diary.pk).update(last_write_at=timezone.now())
    client.get("/vault/requests/")
    diary.refresh_from_db()
    assert diary.last_seen_at >= diary.last_write_at


def test_a_decision_refreshes_the_tab_counter_out_of_band(client, staff, api, diary):
    save(api, "alpha")
    first, second = file_request(api, session_id="s1"), file_request(api, session_id="s2")
    assert "Pending requests (2)" in client.get("/vault/requests/").content.decode()
    html = client.post(f"/vault/requests/{first}/deny", HTTP_HX_REQUEST="true").content.decode()
    tabs = html.split('id="vault-tabs"')[1].split("</nav>")[0]
    assert 'hx-swap-oob="true"' in tabs and "Pending requests (1)" in tabs
    html = client.post(f"/vault/requests/{second}/approve", {"all": "1"}, HTTP_HX_REQUEST="true").content.decode()
    tabs = html.split('id="vault-tabs"')[1].split("</nav>")[0]
    assert "Pending requests</a>" in tabs and "(1)" not in tabs
