"""The provider services page: cards from declarations, saving service config, masked secrets, test connection."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from memoryhub.audit.models import AuditEvent
from memoryhub.spaces import secrets
from memoryhub.spaces.models import ProviderService
from providers.registry import PROVIDERS
from tests.providers.fakes.openviking import FakeOpenViking

pytestmark = pytest.mark.django_db

HX = {"HX-Request": "true"}


@pytest.fixture(autouse=True)
def secrets_file(settings, tmp_path):
    """Each test gets its own secrets file, so nothing saved leaks into another test."""
    settings.MEMORYHUB = {**settings.MEMORYHUB, "SECRETS_FILE": tmp_path / "state" / "memory-providers.json"}
    return secrets.path()


@pytest.fixture
def viking():
    server = FakeOpenViking()
    yield server
    server.stop()


def viking_values(server, **overrides) -> dict:
    return {"endpoint": server.url, "apiKey": "key-alice", "account": "acme", "discoveryUser": "alice", **overrides}


def test_providers_page_requires_login(client):
    r = client.get(reverse("dashboard:providers"))
    assert r.status_code == 302 and r["Location"].startswith("/login/")


def test_save_requires_login(client):
    r = client.post(reverse("dashboard:provider_save", args=["honcho"]), {"endpoint": "http://127.0.0.1:9"})
    assert r.status_code == 302
    assert not ProviderService.objects.exists()


def test_page_shows_every_kind_with_capabilities_and_workspace_behaviour(client, staff):
    r = client.get(reverse("dashboard:providers"))
    assert r.status_code == 200
    html = r.content.decode()
    for kind in PROVIDERS:
        assert f'id="provider-{kind}"' in html
    assert "No service settings" in html  # native
    assert "controlled hard delete" in html and "verified exact body" in html  # OpenViking's row
    assert "follows the workspace by default" in html and "provider-global" in html
    assert 'name="discoveryUser"' in html and 'name="defaultDirectory"' in html and 'name="cliPath"' in html
    assert 'action="/providers/native/"' not in html


def test_form_fields_follow_declared_inputs(client, staff):
    html = client.get(reverse("dashboard:providers")).content.decode()
    assert '<select name="mode"' in html and '<option value="self-hosted"' in html  # mem0's select
    assert 'type="password" name="apiKey"' in html
    assert 'type="url" name="endpoint"' in html


def test_byterover_secret_shows_not_set_then_configured_never_the_value(client, staff):
    url = reverse("dashboard:provider_save", args=["byterover"])
    r = client.post(url, {"cliPath": "/usr/local/bin/brv", "apiKey": "brv-very-secret-key", "defaultDirectory": ""})
    assert r.status_code == 302
    assert secrets.for_kind("byterover") == {"apiKey": "brv-very-secret-key"}
    config = ProviderService.objects.get(kind="byterover").config
    assert config == {"cliPath": "/usr/local/bin/brv", "defaultDirectory": ""}
    page = client.get(reverse("dashboard:providers")).content.decode()
    assert "brv-very-secret-key" not in page
    assert 'data-secret="apiKey">configured<' in page.replace("\n", "")


def test_blank_secret_keeps_the_saved_one(client, staff):
    url = reverse("dashboard:provider_save", args=["byterover"])
    client.post(url, {"cliPath": "/bin/brv", "apiKey": "first-key"})
    client.post(url, {"cliPath": "/opt/brv", "apiKey": ""})
    assert secrets.for_kind("byterover")["apiKey"] == "first-key"
    assert ProviderService.objects.get(kind="byterover").config["cliPath"] == "/opt/brv"
    client.post(url, {"cliPath": "/opt/brv", "apiKey": "second-key"})
    assert secrets.for_kind("byterover")["apiKey"] == "second-key"


def test_htmx_save_answers_with_the_card_only(client, staff):
    r = client.post(reverse("dashboard:provider_save", args=["holographic"]), {"dataPath": "/tmp/holo"}, headers=HX)
    assert r.status_code == 200
    html = r.content.decode()
    assert "<html" not in html and 'id="provider-holographic"' in html and "Saved." in html
    assert ProviderService.objects.get(kind="holographic").config == {"dataPath": "/tmp/holo"}


def test_invalid_input_rerenders_with_errors_and_changes_nothing(client, staff):
    url = reverse("dashboard:provider_save", args=["honcho"])
    client.post(url, {"endpoint": "http://127.0.0.1:7000", "apiKey": "kept"})
    r = client.post(url, {"endpoint": "not a url at all", "apiKey": "replaced"}, headers=HX)
    assert r.status_code == 200 and "Enter a valid URL" in r.content.decode()
    assert ProviderService.objects.get(kind="honcho").config["endpoint"] == "http://127.0.0.1:7000"
    assert secrets.for_kind("honcho")["apiKey"] == "kept"
    r = client.post(url, {"apiKey": "x"})  # endpoint required; full-page fallback
    assert r.status_code == 200 and "<html" in r.content.decode() and "This field is required" in r.content.decode()


def test_select_refuses_an_undeclared_option(client, staff):
    r = client.post(reverse("dashboard:provider_save", args=["mem0"]),
                    {"endpoint": "http://127.0.0.1:9", "apiKey": "k", "mode": "cloud"}, headers=HX)
    assert "Select a valid choice" in r.content.decode()
    assert not ProviderService.objects.filter(kind="mem0").exists()


def test_provider_refusal_shows_inline_and_keeps_the_old_config(client, staff, viking):
    url = reverse("dashboard:provider_save", args=["openviking"])
    assert client.post(url, viking_values(viking)).status_code == 302
    r = client.post(url, viking_values(viking, apiKey="key-wrong", discoveryUser="mallory"), headers=HX)
    html = r.content.decode()
    assert r.status_code == 200 and "Not saved" in html and "key-wrong" not in html
    assert ProviderService.objects.get(kind="openviking").config["discoveryUser"] == "alice"
    assert secrets.for_kind("openviking")["apiKey"] == "key-alice"


def test_test_connection_success_is_shown_and_recorded(client, staff, viking):
    client.post(reverse("dashboard:provider_save", args=["openviking"]), viking_values(viking))
    r = client.post(reverse("dashboard:provider_test", args=["openviking"]), headers=HX)
    html = r.content.decode()
    assert r.status_code == 200 and "Connection works" in html and "<html" not in html
    service = ProviderService.objects.get(kind="openviking")
    assert service.last_checked is not None and service.last_error == "" and service.enabled


def test_test_connection_failure_is_shown_inline_and_disables_on_permanent_error(client, staff, viking):
    client.post(reverse("dashboard:provider_save", args=["openviking"]), viking_values(viking))
    viking.keys.pop("key-alice")
    r = client.post(reverse("dashboard:provider_test", args=["openviking"]), headers=HX)
    html = r.content.decode()
    assert "Connection failed" in html and "key-alice" not in html
    service = ProviderService.objects.get(kind="openviking")
    assert service.last_error and not service.enabled
    assert "disabled after an error" in html


def test_test_connection_without_htmx_redirects_with_a_message(client, staff):
    r = client.post(reverse("dashboard:provider_test", args=["hindsight"]), follow=True)
    assert r.redirect_chain[-1][0].startswith(reverse("dashboard:providers"))
    assert "Hindsight failed" in r.content.decode()


def test_native_and_unknown_kinds_have_no_service_routes(client, staff):
    assert client.post(reverse("dashboard:provider_save", args=["native"]), {}).status_code == 404
    assert client.post(reverse("dashboard:provider_test", args=["native"])).status_code == 404
    assert client.post(reverse("dashboard:provider_save", args=["nope"]), {}).status_code == 404
    assert client.get(reverse("dashboard:provider_save", args=["honcho"])).status_code == 405


def test_save_is_audited_with_before_and_after_and_never_a_secret(client, staff):
    url = reverse("dashboard:provider_save", args=["retaindb"])
    client.post(url, {"endpoint": "http://retaindb.internal:9", "apiKey": "rdb-secret"})
    client.post(url, {"endpoint": "http://retaindb.internal:10", "apiKey": "rdb-other"})
    first, second = AuditEvent.objects.filter(action="provider.save").order_by("id")
    assert first.target == "retaindb" and first.user == staff
    assert first.before == {"endpoint": None, "apiKey": None}
    assert first.after == {"endpoint": "http://retaindb.internal:9", "apiKey": "(a new secret)"}
    assert second.before == {"endpoint": "http://retaindb.internal:9", "apiKey": "(a secret)"}
    assert second.after["endpoint"] == "http://retaindb.internal:10"
    assert not [e for e in (first, second) if "rdb-" in f"{e.before}{e.after}{e.detail}"]


def test_save_enforces_csrf(staff, django_user_model):
    csrf_client = Client(enforce_csrf_checks=True)
    csrf_client.force_login(staff)
    r = csrf_client.post(reverse("dashboard:provider_save", args=["holographic"]), {"dataPath": "/tmp/x"})
    assert r.status_code == 403
    assert not ProviderService.objects.filter(kind="holographic").exists()


def test_pages_speak_simplified_chinese_when_the_browser_asks(client, staff):
    html = client.get(reverse("dashboard:providers"), HTTP_ACCEPT_LANGUAGE="zh-CN,zh;q=0.9").content.decode()
    assert "提供方服务" in html and "召回 / 浏览" in html and "受控硬删除" in html
    assert '<html lang="zh-hans">' in html
    assert "记忆空间" in client.get(reverse("dashboard:home"), HTTP_ACCEPT_LANGUAGE="zh-Hans").content.decode()
    assert "运行自检" in client.get(reverse("dashboard:jobs"), HTTP_ACCEPT_LANGUAGE="zh-CN").content.decode()
    assert "创建令牌" in client.get(reverse("dashboard:tokens"), HTTP_ACCEPT_LANGUAGE="zh-CN").content.decode()


def test_provider_descriptions_and_fields_read_in_chinese(client, staff):
    client.post(reverse("set_language"), {"language": "zh-hans"})
    html = client.get(reverse("dashboard:providers")).content.decode()
    assert "从中枢写入内容中异步提取的 Mem0 记忆" in html and "Mem0 memories extracted asynchronously" not in html
    assert "API 密钥" in html and "端点" in html
    space_form = client.get(reverse("dashboard:space_create") + "?provider=mem0").content.decode()
    assert "附加在写入上；读取覆盖该用户的所有智能体。" in space_form
