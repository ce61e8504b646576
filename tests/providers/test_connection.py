"""#22 part 1: "Test connection" checks the service alone (or one space), tests what is in the form, never
switches a service off for a space's missing field, and says what went wrong in a sentence."""

from __future__ import annotations

import pytest
from django.urls import reverse

from memoryhub.memories.recall import cards as recall
from memoryhub.spaces import secrets
from memoryhub.spaces.connection import check_service
from memoryhub.spaces.models import MemorySpace, ProviderService
from tests.providers.fakes.mem0 import Mem0Fake
from tests.providers.fakes.openviking import FakeOpenViking

pytestmark = pytest.mark.django_db
HX = {"HX-Request": "true"}


@pytest.fixture(autouse=True)
def secrets_file(settings, tmp_path):
    settings.MEMORYHUB = {**settings.MEMORYHUB, "SECRETS_FILE": tmp_path / "state" / "memory-providers.json",
                          "PROVIDER_TIMEOUT": 2}


@pytest.fixture
def mem0():
    server = Mem0Fake()
    yield server
    server.stop()


def save_mem0(endpoint: str, key: str) -> None:
    ProviderService.objects.update_or_create(kind="mem0", defaults={"config": {"endpoint": endpoint, "mode": "platform"}})
    secrets.save("mem0", {"apiKey": key})


def test_service_test_needs_no_space_field_and_keeps_the_service_on(mem0):
    save_mem0(mem0.url, mem0.api_key)
    MemorySpace.objects.create(slug="m", name="m", provider="mem0", config={})  # no userId
    outcome = check_service("mem0")
    assert outcome.ok, outcome.message
    service = ProviderService.objects.get(kind="mem0")
    assert service.enabled and service.last_error == "" and service.last_checked is not None
    assert mem0.log[-1].path == "/v1/ping/"


def test_a_space_missing_its_field_fails_alone_and_never_disables_the_service(mem0):
    save_mem0(mem0.url, mem0.api_key)
    broken = MemorySpace.objects.create(slug="broken", name="broken", provider="mem0", config={})
    errors: list = []
    assert recall.remote_cards(broken, "anything", 5, None, errors) == []
    assert "userId" in errors[0].message and errors[0].space == "broken"
    assert ProviderService.objects.get(kind="mem0").enabled


def test_the_form_values_are_tested_unsaved_and_said_so(client, staff, mem0):
    save_mem0("http://127.0.0.1:9", mem0.api_key)
    r = client.post(reverse("dashboard:provider_test", args=["mem0"]),
                    {"endpoint": mem0.url, "apiKey": "", "mode": "platform"}, headers=HX)
    html = r.content.decode()
    assert r.status_code == 200 and "Connection works" in html and "not saved yet" in html
    assert ProviderService.objects.get(kind="mem0").config["endpoint"] == "http://127.0.0.1:9"
    assert mem0.log and mem0.log[-1].headers["authorization"] == f"Token {mem0.api_key}"  # blank secret kept


def test_an_unreachable_endpoint_reads_as_a_sentence_with_the_raw_error_folded(client, staff, mem0):
    save_mem0(mem0.url, mem0.api_key)
    r = client.post(reverse("dashboard:provider_test", args=["mem0"]),
                    {"endpoint": "http://127.0.0.1:9", "apiKey": "", "mode": "platform"}, headers=HX)
    html = r.content.decode()
    assert "Could not reach 127.0.0.1:9 — is Mem0 running there? (connection refused)" in html
    assert "<details" in html and "ConnectError" in html.split("<details", 2)[-1]
    service = ProviderService.objects.get(kind="mem0")
    assert service.enabled, "an unsaved value that fails must not switch the saved service off"
    assert "last test failed" in html


def test_the_badge_shows_the_last_outcome_and_time(client, staff, mem0):
    save_mem0(mem0.url, mem0.api_key)
    client.post(reverse("dashboard:provider_test", args=["mem0"]), headers=HX)
    page = client.get(reverse("dashboard:providers")).content.decode()
    assert "ready · tested" in page
    mem0.stop()
    client.post(reverse("dashboard:provider_test", args=["mem0"]), headers=HX)
    page = client.get(reverse("dashboard:providers")).content.decode()
    assert "last test failed" in page and "ready · tested" not in page.split('id="provider-mem0"')[1].split("</summary>")[0]


def test_a_test_started_from_a_space_uses_its_merged_settings(client, staff, mem0):
    save_mem0(mem0.url, mem0.api_key)
    MemorySpace.objects.create(slug="alice", name="alice", provider="mem0", config={"userId": "alice"})
    r = client.post(reverse("dashboard:provider_test", args=["mem0"]) + "?space=alice", headers=HX)
    html = r.content.decode()
    assert "Connection works" in html and "space alice" in html
    assert mem0.log[-1].body["filters"] == {"user_id": "alice"}


def test_a_refused_saved_key_is_explained_and_disables_the_service(client, staff, mem0):
    save_mem0(mem0.url, "wrong-key-1234")
    r = client.post(reverse("dashboard:provider_test", args=["mem0"]), headers=HX)
    html = r.content.decode()
    assert "Mem0 refused the API key (HTTP 401)" in html and "wrong-key-1234" not in html
    assert not ProviderService.objects.get(kind="mem0").enabled


def test_openviking_discovery_lists_users_to_pick_into_a_space(client, staff):
    viking = FakeOpenViking()
    try:
        client.post(reverse("dashboard:provider_save", args=["openviking"]),
                    {"endpoint": viking.url, "apiKey": "key-admin", "account": "acme"})
        r = client.post(reverse("dashboard:provider_discover", args=["openviking"]), headers=HX)
        html = r.content.decode()
        assert "viking://user/alice/memories" in html and "viking://user/bob/memories" in html
        link = html.split("Create a space for alice")[0].rsplit('href="', 1)[1].split('"')[0].replace("&amp;", "&")
        form = client.get(link).content.decode()
        assert 'value="viking://user/alice/memories"' in form
    finally:
        viking.stop()


def test_discovery_is_only_offered_where_the_provider_discovers(client, staff):
    assert client.post(reverse("dashboard:provider_discover", args=["mem0"])).status_code == 404
    page = client.get(reverse("dashboard:providers")).content.decode()
    assert page.count("Discover users") == 1
