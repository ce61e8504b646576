"""The Settings tab: per-space overrides, inline errors that save nothing, audit, effect without restart."""

import pytest

from memoryhub.audit.models import AuditEvent
from memoryhub.spaces.models import MemorySpace
from memoryhub.spaces.workspaces import default_space

pytestmark = pytest.mark.django_db


def form(**overrides):
    from memoryhub.spaces import space_settings

    values = space_settings.defaults()
    values.update(overrides)
    return {k: ("on" if v is True else "" if v is False else str(v)) for k, v in values.items() if v is not False}


def test_settings_tab_requires_login(client):
    assert client.get("/spaces/default/settings/").status_code == 302


def test_settings_tab_shows_every_setting(client, staff):
    default_space()
    r = client.get("/spaces/default/settings/")
    assert r.status_code == 200 and b"maxInjectChars" in r.content and b"prompt-cache" in r.content
    partial = client.get("/spaces/default/settings/", HTTP_HX_REQUEST="true")
    assert b"<html" not in partial.content and b'id="settings-form"' in partial.content


def test_saving_stores_only_overrides_audits_and_takes_effect(client, staff, api):
    default_space()
    api.turn("kubernetes upgrade notes", "ok")
    r = client.post("/spaces/default/settings/", form(inject=False, maxRecall=3))
    assert r.status_code == 302
    assert MemorySpace.objects.get(slug="default").settings == {"inject": False, "maxRecall": 3}
    event = AuditEvent.objects.get(action="space.settings")
    assert event.actor == "alice" and event.before["inject"] is True and event.after["inject"] is False
    assert event.after["maxRecall"] == 3 and set(event.before) == set(event.after) == {"inject", "maxRecall"}
    assert api.post("context", {"session_id": "s", "query": "kubernetes"}).json()["text"] == ""


def test_bad_values_show_inline_and_save_nothing(client, staff):
    default_space()
    r = client.post("/spaces/default/settings/", form(maxInjectChars="lots", recallLow=0.9, recallHigh=0.5))
    assert r.status_code == 200 and b"Nothing was saved" in r.content and b"recallLow must be below" in r.content
    assert MemorySpace.objects.get(slug="default").settings == {}


def test_reset_clears_overrides(client, staff):
    space = default_space()
    space.settings = {"maxRecall": 2}
    space.save()
    client.post("/spaces/default/settings/", {"reset": "1"})
    assert MemorySpace.objects.get(slug="default").settings == {}


def test_setting_descriptions_and_errors_read_in_chinese(client, staff):
    from memoryhub.spaces.workspaces import default_space

    default_space()
    client.post("/i18n/setlang/", {"language": "zh-hans"})
    page = client.get("/spaces/default/settings/").content.decode()
    assert "关闭：只记录和搜索，不注入任何内容。" in page and "Off: record and search only" not in page
    r = client.post("/spaces/default/settings/", {"maxRecall": "lots"})
    assert "必须是整数" in r.content.decode() and "must be a whole number" not in r.content.decode()
