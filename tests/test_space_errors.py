"""#32: a space's error is the space's. Its settings are checked against the provider's declaration (and, where the
provider can say, against the service) when it is made or changed; a space-only error never switches the service
off; a passing Test connection switches it back on; a disabled service's message does not grow."""

import pytest
from django.urls import reverse

from memoryhub.memories.models import RemoteWrite
from memoryhub.memories.recall import cards as recall
from memoryhub.spaces.models import MemorySpace, ProviderService
from memoryhub.spaces.provider_services import save_service
from providers.retaindb import RetainDBProvider
from tests.providers.fakes.base import FakeServer
from tests.providers.fakes.openviking import FakeOpenViking
from tests.providers.fakes.supermemory import SupermemoryFake

HX = {"HX-Request": "true"}


@pytest.fixture(autouse=True)
def secrets_file(settings, tmp_path):
    settings.MEMORYHUB = {**settings.MEMORYHUB, "SECRETS_FILE": tmp_path / "state" / "memory-providers.json",
                          "PROVIDER_TIMEOUT": 2}


@pytest.fixture
def supermemory(db):
    fake = SupermemoryFake()
    save_service("supermemory", {"endpoint": fake.url, "apiKey": fake.api_key})
    yield fake
    fake.stop()


@pytest.fixture
def viking(db):
    fake = FakeOpenViking()
    save_service("openviking", {"endpoint": fake.url, "apiKey": "key-admin", "account": "acme"})
    yield fake
    fake.stop()


def make(api, provider, config):
    return api.post("spaces", {"slug": "s", "name": "S", "provider": provider, "config": config})


@pytest.mark.parametrize("provider, config, field", [
    ("supermemory", {"containerTag": "hub", "searchMode": "fuzzy"}, "config.searchMode"),
    ("holographic", {"minTrust": 2}, "config.minTrust"),
    ("holographic", {"defaultTrust": "very"}, "config.defaultTrust"),
    ("hindsight", {"bankId": "a/b"}, "config.bankId"),
    ("mem0", {"userId": "alice", "rerank": "maybe"}, "config.rerank"),
    ("openviking", {"targetUri": "viking://resources/x"}, "config.targetUri"),
    ("openviking", {"actorPeerId": "two@at@signs"}, "config.actorPeerId"),
])
def test_a_bad_space_setting_is_refused_with_a_sentence_naming_it(api, provider, config, field):
    r = make(api, provider, config)
    assert r.status_code == 400, r.content
    error = r.json()["error"]
    assert error["field"] == field and field.removeprefix("config.") in error["message"]
    assert not MemorySpace.objects.filter(slug="s").exists()


def test_an_openviking_user_the_key_cannot_reach_is_refused(api, viking):
    r = make(api, "openviking", {"user": "mallory"})
    assert r.status_code == 400 and r.json()["error"]["field"] == "config.user", r.content
    assert "not in account 'acme'" in r.json()["error"]["message"]
    assert make(api, "openviking", {"user": "bob"}).status_code == 201  # one the Admin key does reach


def test_the_key_users_own_space_is_the_only_one_a_user_key_reaches(api, viking):
    save_service("openviking", {"endpoint": viking.url, "apiKey": "key-alice", "account": "acme",
                                "discoveryUser": "alice"})
    r = make(api, "openviking", {"user": "bob"})
    assert r.status_code == 400 and r.json()["error"]["field"] == "config.user"


def test_the_dashboard_form_shows_the_refusal_beside_the_field(client, staff, viking):
    r = client.post(reverse("dashboard:space_create"), {"slug": "s", "name": "S", "provider": "openviking",
                                                        "access": "open", "active": "on", "cfg_user": "mallory"})
    html = r.content.decode()
    assert r.status_code == 200 and not MemorySpace.objects.filter(slug="s").exists()
    field = html.split('name="cfg_user"')[0].rsplit("<label", 1)[-1] + html.split('name="cfg_user"')[1][:600]
    assert "is not in account" in field


def test_editing_a_space_checks_the_new_settings_too(api, supermemory):
    assert make(api, "supermemory", {"containerTag": "hub"}).status_code == 201
    from memoryhub.core.errors import ApiError
    from memoryhub.spaces import space_service

    with pytest.raises(ApiError) as refused:
        space_service.update_space(MemorySpace.objects.get(slug="s"), actor="alice",
                                   config={"containerTag": "hub", "searchMode": "fuzzy"})
    assert refused.value.field == "config.searchMode"


def test_one_spaces_bad_setting_never_switches_the_service_off(api, supermemory):
    """Before, a searchMode accepted at creation raised a permanent error on the first search, which disabled
    Supermemory for every space (and the next multi-space read disabled it again)."""
    bad = MemorySpace.objects.create(slug="bad", name="Bad", provider="supermemory",  # made before validation
                                     config={"containerTag": "hub", "searchMode": "fuzzy"})
    good = MemorySpace.objects.create(slug="good", name="Good", provider="supermemory", config={"containerTag": "hub"})
    api.tool("memory_note", text="the ferry leaves at nine", space="good")
    errors: list = []
    recall.search([bad, good], "ferry", errors=errors)
    assert [e.space for e in errors] == ["bad"] and "searchMode" in errors[0].message
    service = ProviderService.objects.get(kind="supermemory")
    assert service.enabled and service.last_error == ""
    assert MemorySpace.objects.get(slug="bad").last_error and not MemorySpace.objects.get(slug="good").last_error
    assert api.tool("memory_search", query="ferry", space="good").status_code == 200


def test_a_disabled_services_message_does_not_quote_itself(api, supermemory):
    ProviderService.objects.filter(kind="supermemory").update(enabled=False, last_error="the key was refused")
    space = MemorySpace.objects.create(slug="sm", name="SM", provider="supermemory", config={"containerTag": "hub"})
    for _ in range(3):
        recall.remote_cards(space, "anything", 5, None, [])
        api.turn("a turn for a disabled service", space="sm")
    service = ProviderService.objects.get(kind="supermemory")
    assert service.last_error == "the key was refused"
    kept = RemoteWrite.objects.filter(space=space).last()
    assert kept.error.count("disabled after an error") == 1 and kept.state == "failed"


def test_a_passing_test_of_the_saved_settings_switches_the_service_back_on(client, staff, supermemory):
    ProviderService.objects.filter(kind="supermemory").update(enabled=False, last_error="the key was refused")
    r = client.post(reverse("dashboard:provider_test", args=["supermemory"]),
                    {"endpoint": supermemory.url, "apiKey": ""}, headers=HX)  # the form as saved
    assert "Connection works" in r.content.decode()
    assert ProviderService.objects.get(kind="supermemory").enabled


def test_a_passing_test_from_a_space_switches_the_service_back_on(client, staff, supermemory):
    MemorySpace.objects.create(slug="sm", name="SM", provider="supermemory", config={"containerTag": "hub"})
    ProviderService.objects.filter(kind="supermemory").update(enabled=False, last_error="the key was refused")
    r = client.post(reverse("dashboard:provider_test", args=["supermemory"]) + "?space=sm", headers=HX)
    assert "Connection works" in r.content.decode(), r.content.decode()
    assert ProviderService.objects.get(kind="supermemory").enabled


class NotRetainDB(FakeServer):
    """Some other web server: every path is a 404 (the only thing RetainDB's old check asked for)."""

    def authorized(self, req):
        return True


def test_retaindbs_check_fails_on_a_server_that_is_not_retaindb(db):
    other = NotRetainDB()
    try:
        provider = RetainDBProvider({"endpoint": other.url, "apiKey": "k", "_timeout": 2})
        with pytest.raises(Exception) as caught:
            provider.check()
        assert getattr(caught.value, "status", None) == 404
    finally:
        other.stop()
