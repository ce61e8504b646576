"""The spaces overview: list, create (with the provider's own fields), edit, toggle, delete or disconnect; search."""

import pytest
from django.db import connection
from django.test import Client
from django.urls import reverse

from memoryhub.audit.models import AuditEvent
from memoryhub.memories.search import fulltext as fts
from memoryhub.memories.models import Entry
from memoryhub.spaces.models import MemorySpace, ProviderService
from memoryhub.spaces.workspaces import default_space

pytestmark = pytest.mark.django_db

HX = {"HTTP_HX_REQUEST": "true"}


def holographic_space(slug="holo", **extra):
    ProviderService.objects.get_or_create(kind="holographic")
    return MemorySpace.objects.create(slug=slug, name="Holo", provider="holographic", **extra)


@pytest.mark.parametrize("name,args,method", [
    ("home", [], "get"), ("search", [], "get"), ("space_create", [], "get"), ("space_create", [], "post"),
    ("space_edit", ["default"], "get"), ("space_toggle", ["default"], "post"), ("space_delete", ["default"], "post"),
])
def test_spaces_pages_require_login(client, name, args, method):
    default_space()
    r = getattr(client, method)(reverse(f"dashboard:{name}", args=args))
    assert r.status_code == 302 and r["Location"].startswith("/login/")
    assert MemorySpace.objects.get(slug="default").active


def test_overview_lists_provider_access_state_and_last_error(client, staff, api):
    api.turn("first")
    holographic_space(access="vault", last_error="connection refused")
    r = client.get("/")
    assert r.status_code == 200 and b"<html" in r.content
    html = r.content.decode()
    assert "Holographic" in html and "vault" in html and "connection refused" in html
    assert 'id="space-default"' in html and "Disconnect" in html and "Delete" in html


def test_toggle_flips_active_and_answers_with_the_row(client, staff):
    space = default_space()
    r = client.post(reverse("dashboard:space_toggle", args=[space.slug]), **HX)
    assert r.status_code == 200 and b"<html" not in r.content
    assert b'id="space-default"' in r.content and b"inactive" in r.content
    assert not MemorySpace.objects.get(pk=space.pk).active
    assert AuditEvent.objects.filter(action="space.deactivate", target="default").exists()
    r = client.post(reverse("dashboard:space_toggle", args=[space.slug]))
    assert r.status_code == 302 and MemorySpace.objects.get(pk=space.pk).active


def test_post_without_csrf_token_is_refused(staff):
    space = default_space()
    csrf_client = Client(enforce_csrf_checks=True)
    csrf_client.force_login(staff)
    r = csrf_client.post(reverse("dashboard:space_toggle", args=[space.slug]), **HX)
    assert r.status_code == 403
    assert MemorySpace.objects.get(pk=space.pk).active


def test_create_form_full_page_and_partial(client, staff):
    r = client.get(reverse("dashboard:space_create"))
    assert r.status_code == 200 and b"<html" in r.content and b'name="slug"' in r.content
    r = client.get(reverse("dashboard:space_create"), **HX)
    assert b"<html" not in r.content and b'id="space-form"' in r.content


def test_switching_provider_rerenders_only_its_space_fields(client, staff):
    r = client.get(reverse("dashboard:space_create") + "?provider=holographic", **HX)
    assert r.status_code == 200 and b"<html" not in r.content
    html = r.content.decode()
    assert html.strip().startswith('<fieldset id="provider-fields"')
    assert 'name="cfg_defaultTrust"' in html and 'name="cfg_minTrust"' in html and 'name="slug"' not in html
    html = client.get(reverse("dashboard:space_create") + "?provider=hindsight", **HX).content.decode()
    assert 'name="cfg_bankId"' in html and "<select" in html  # budget is a select field


def test_create_native_space(client, staff):
    r = client.post(reverse("dashboard:space_create"), {
        "slug": "notes", "name": "Notes", "provider": "native", "access": "open", "active": "on",
        "description": "personal notes"})
    assert r.status_code == 302 and r["Location"] == reverse("dashboard:space", args=["notes"])
    space = MemorySpace.objects.get(slug="notes")
    assert space.provider == "native" and space.active and space.selection["by"] == "alice"


def test_create_through_htmx_redirects_on_the_client(client, staff):
    holographic_space("other")
    r = client.post(reverse("dashboard:space_create"), {
        "slug": "holo2", "name": "Holo 2", "provider": "holographic", "access": "vault", "cfg_minTrust": "0.4"}, **HX)
    assert r.status_code == 200 and r["HX-Redirect"] == reverse("dashboard:space", args=["holo2"])
    space = MemorySpace.objects.get(slug="holo2")
    assert space.config == {"minTrust": 0.4} and space.access == "vault" and not space.active


def test_bad_create_shows_inline_errors_and_creates_nothing(client, staff):
    default_space()
    before = MemorySpace.objects.count()
    r = client.post(reverse("dashboard:space_create"), {"slug": "Bad Slug!", "name": "", "provider": "native",
                                                         "access": "open"}, **HX)
    assert r.status_code == 200 and b"<html" not in r.content
    assert b"lower-case letters" in r.content and b"This field is required" in r.content
    r = client.post(reverse("dashboard:space_create"), {"slug": "default", "name": "x", "provider": "native",
                                                         "access": "open"})
    assert r.status_code == 200 and b"A space with this slug exists" in r.content
    assert MemorySpace.objects.count() == before


def test_unconfigured_provider_is_refused(client, staff):
    r = client.post(reverse("dashboard:space_create"), {"slug": "m", "name": "M", "provider": "mem0",
                                                         "access": "open", "cfg_userId": "u"})
    assert r.status_code == 200 and b"Configure this provider" in r.content
    assert not MemorySpace.objects.filter(slug="m").exists()


def test_required_space_field_is_enforced(client, staff):
    ProviderService.objects.create(kind="hindsight", config={"endpoint": "http://127.0.0.1:9"})
    r = client.post(reverse("dashboard:space_create"), {"slug": "h", "name": "H", "provider": "hindsight",
                                                         "access": "open", "cfg_budget": "mid"})
    assert r.status_code == 200 and b"This field is required" in r.content
    assert not MemorySpace.objects.filter(slug="h").exists()


def test_edit_changes_name_access_and_space_fields(client, staff):
    space = holographic_space(config={"minTrust": 0.3})
    r = client.get(reverse("dashboard:space_edit", args=[space.slug]))
    assert b'value="0.3"' in r.content and b'name="slug"' not in r.content
    r = client.post(reverse("dashboard:space_edit", args=[space.slug]), {
        "name": "Renamed", "access": "vault", "description": "d", "cfg_minTrust": "0.6", "cfg_defaultTrust": "0.5"})
    assert r.status_code == 302
    space.refresh_from_db()
    assert space.name == "Renamed" and space.access == "vault" and space.config["minTrust"] == 0.6
    assert not space.active  # the checkbox was left unticked


def test_edit_with_bad_input_changes_nothing(client, staff):
    space = holographic_space()
    r = client.post(reverse("dashboard:space_edit", args=[space.slug]),
                    {"name": "", "access": "open", "cfg_minTrust": "lots"}, **HX)
    assert r.status_code == 200 and b"<html" not in r.content and b"Enter a number" in r.content
    space.refresh_from_db()
    assert space.name == "Holo" and space.active


def test_delete_native_space_says_what_is_lost_then_deletes(client, staff, api):
    MemorySpace.objects.create(slug="work", name="Work", provider="native")
    api.turn("call me Bob, I use PostgreSQL", space="work")
    api.turn("another", space="work")
    r = client.get(reverse("dashboard:space_delete", args=["work"]))
    html = r.content.decode()
    assert "2 entries" in html and "facts" in html and "topics" in html and "cannot be undone" in html
    ids = list(Entry.objects.filter(space__slug="work").values_list("pk", flat=True))
    r = client.post(reverse("dashboard:space_delete", args=["work"]))
    assert r.status_code == 302 and not MemorySpace.objects.filter(slug="work").exists()
    with connection.cursor() as cur:
        cur.execute(f"SELECT count(*) FROM {fts.FTS_TABLE} WHERE rowid IN ({','.join(map(str, ids))})")
        assert cur.fetchone()[0] == 0
    assert AuditEvent.objects.filter(action="space.delete", target="work").exists()


def test_last_native_default_space_cannot_be_deleted(client, staff):
    space = default_space()
    r = client.get(reverse("dashboard:space_delete", args=[space.slug]))
    assert b"last native space" in r.content
    r = client.post(reverse("dashboard:space_delete", args=[space.slug]), **HX)
    assert r.status_code == 200 and b"last native space" in r.content
    assert MemorySpace.objects.filter(slug="default").exists()


def test_disconnecting_a_third_party_space_keeps_its_remote_data(client, staff):
    space = holographic_space()
    r = client.get(reverse("dashboard:space_delete", args=[space.slug]))
    assert b"memories stay in Holographic" in r.content and b"Disconnect" in r.content
    r = client.post(reverse("dashboard:space_delete", args=[space.slug]), follow=True)
    assert b"its data stays with the provider" in r.content
    assert not MemorySpace.objects.filter(slug="holo").exists()
    assert AuditEvent.objects.filter(action="space.disconnect").exists()


def test_search_all_covers_active_open_spaces_without_bumping_hits(client, staff, api):
    MemorySpace.objects.create(slug="work", name="Work", provider="native")
    MemorySpace.objects.create(slug="locked", name="Locked", provider="native", access="vault")
    api.turn("we chose PostgreSQL for billing", space="work")
    api.turn("PostgreSQL password rotation is secret", space="locked")
    r = client.get(reverse("dashboard:search") + "?q=PostgreSQL")
    assert r.status_code == 200 and b"<html" in r.content and b'id="global-q"' in r.content
    html = r.content.decode()
    assert "billing" in html and "rotation" not in html
    r = client.get(reverse("dashboard:search") + "?q=PostgreSQL", **HX)
    assert b"<html" not in r.content and b"billing" in r.content
    assert set(Entry.objects.values_list("hits", flat=True)) == {0}
    r = client.get(reverse("dashboard:search") + "?q=nothingmatcheszzz")
    assert b"Nothing matches" in r.content


def test_smart_selection_page_chooses_and_the_decision_is_saved_with_the_space(client, staff):
    page = client.post("/spaces/choose/", {"candidates": ["mem0", "holographic"], "boundary": "local-only",
                                          "required": ["related"], "preference": "balanced", "policy_prompt": "x"})
    assert page.status_code == 200 and b'id="decision"' in page.content
    decision = page.context["decision"]
    assert decision["provider"] in ("native", "holographic") and "mem0" not in decision["eligible"]
    created = client.post(f"/spaces/new/?provider={decision['provider']}", {
        "slug": "chosen", "name": "Chosen", "provider": decision["provider"], "access": "open", "active": "on",
        "selection": page.context["token"]})
    assert created.status_code == 302
    from memoryhub.spaces.models import MemorySpace

    assert MemorySpace.objects.get(slug="chosen").selection["source"] == "rules"


def test_a_tampered_selection_falls_back_to_manual(client, staff):
    client.post("/spaces/new/", {"slug": "man", "name": "M", "provider": "native", "access": "open", "active": "on",
                                 "selection": "forged"})
    from memoryhub.spaces.models import MemorySpace

    assert MemorySpace.objects.get(slug="man").selection["source"] == "manual"


def test_search_all_results_link_to_the_memory(client, staff, api):
    entry_id = api.turn("we chose PostgreSQL for billing").json()["entry"]["id"]
    html = client.get(reverse("dashboard:search") + "?q=PostgreSQL").content.decode()
    assert f'href="{reverse("dashboard:entry", args=["default", int(entry_id)])}"' in html
