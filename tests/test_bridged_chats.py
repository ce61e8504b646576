"""Bridged chats (seed 003): a turn's `channel` is checked field by field, kept on the entry with the seed's tags and
umo, shown as 「群 … · 用户 …」 in the dashboard; re-tagging history moves the facts of re-tagged turns too."""

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from memoryhub.memories import channels
from memoryhub.memories.maintenance.importers import retag
from memoryhub.memories.models import Entry, Fact
from memoryhub.memories.search import fulltext
from memoryhub.spaces.models import MemorySpace
from memoryhub.spaces.workspaces import default_space

GROUP = {"platform": "qq", "chat_type": "group", "chat_id": "123456789", "chat_name": "Night owls",
         "user_id": 987, "user_name": "Lan", "bridge": "astrbot"}


def test_a_group_turn_keeps_its_chat_with_the_seeds_tags_and_umo(api):
    r = api.turn("今晚谁来打球", "我来", session_id="qq-1", channel=GROUP)
    assert r.status_code == 201, r.content
    entry = Entry.objects.get(pk=r.json()["entry"]["id"])
    assert entry.tags == ["qq", "astrbot", "qq-group"]
    assert entry.channel == "123456789#u987"
    assert entry.chat == {**GROUP, "user_id": "987"}
    assert entry.origin == "local"  # the origin is the token's; the channel only says which chat


def test_a_private_turn_is_tagged_private_and_keyed_by_the_user(api):
    r = api.turn("明天提醒我交房租", "好的", channel={"platform": "qq", "chat_type": "private", "user_id": "987"})
    entry = Entry.objects.get(pk=r.json()["entry"]["id"])
    assert entry.tags == ["qq", "qq-private"] and entry.channel == "987"


def test_bridged_turns_are_found_by_their_platform_tags(api):
    r = api.turn("the court is booked for nine", "great", channel=GROUP)
    found = fulltext.query([default_space().pk], "qq-group", recallable_only=False)
    assert [h.entry_id for h in found] == [int(r.json()["entry"]["id"])]


def test_a_turn_without_channel_has_none(api):
    entry = Entry.objects.get(pk=api.turn("plain turn").json()["entry"]["id"])
    assert (entry.channel, entry.chat, entry.tags) == ("", {}, [])


@pytest.mark.parametrize("channel,field", [
    ("qq", "channel"),
    ({"chat_type": "group", "chat_id": "1"}, "channel.platform"),
    ({"platform": "QQ!", "chat_type": "group", "chat_id": "1"}, "channel.platform"),
    ({"platform": "qq", "chat_type": "dm", "chat_id": "1"}, "channel.chat_type"),
    ({"platform": "qq", "chat_type": "group"}, "channel.chat_id"),
    ({"platform": "qq", "chat_type": "private"}, "channel.user_id"),
    ({"platform": "qq", "chat_type": "group", "chat_id": "1", "user_id": ["9"]}, "channel.user_id"),
    ({"platform": "qq", "chat_type": "group", "chat_id": "1 2"}, "channel.chat_id"),
    ({"platform": "qq", "chat_type": "group", "chat_id": "x" * 101}, "channel.chat_id"),
    ({"platform": "qq", "chat_type": "group", "chat_id": "1", "chat_name": "a\x00b"}, "channel.chat_name"),
    ({"platform": "qq", "chat_type": "group", "chat_id": "1", "bridge": "Astr Bot"}, "channel.bridge"),
    ({"platform": "qq", "chat_type": "group", "chat_id": "1", "umo": "1"}, "channel.umo"),
])
def test_a_bad_channel_is_refused_field_by_field_and_nothing_is_written(api, channel, field):
    r = api.turn("hello", channel=channel)
    assert r.status_code == 400, r.content
    assert r.json()["error"]["code"] == "bad_request" and r.json()["error"]["field"] == field
    assert Entry.objects.count() == 0


def test_names_are_redacted_like_any_text(api):
    r = api.turn("hi", channel={**GROUP, "chat_name": "key sk-abcdefghijklmnopqrstuvwx"})
    assert "sk-abc" not in str(Entry.objects.get(pk=r.json()["entry"]["id"]).chat)
    assert r.json()["redactions"] == 1


@pytest.mark.parametrize("chat,umo,tags,shown", [
    ({**GROUP, "user_id": "987"}, "", [], {"group": "Night owls (123456789)", "user": "Lan (987)"}),
    ({"platform": "qq", "chat_type": "group", "chat_id": "123", "user_id": "9"}, "", [], {"group": "123", "user": "9"}),
    ({"platform": "qq", "chat_type": "private", "user_id": "987"}, "", [], {"user": "987"}),
    ({}, "aiocqhttp:GroupMessage:123456789#u987", ["qq-group"], {"group": "123456789", "user": "987"}),
    ({}, "aiocqhttp:GroupMessage:123456789", ["qq", "qq-group"], {"group": "123456789"}),
    ({}, "aiocqhttp:FriendMessage:987", ["qq-private"], {"user": "987"}),
    ({}, "", [], {}),
])
def test_describe_names_the_group_and_the_user(chat, umo, tags, shown):
    assert channels.describe(chat, umo, tags) == shown


def test_retagging_moves_the_facts_of_retagged_turns_to_the_new_origin(api, api_factory):
    api.turn("叫我老王", "好的老王", session_id="qq-sess")  # a QQ chat archived before the bridge was known
    api.turn("I prefer dark mode", "noted", session_id="qq-sess")
    api.turn("叫我王哥", "好的", session_id="web")  # said on the web: stays local
    space = default_space()
    assert set(Fact.objects.filter(status="active").values_list("origin", flat=True)) == {"local"}
    mapping = retag.mapping_from_sessions_json(
        {"aiocqhttp:GroupMessage:123": {"sessionId": "qq-sess", "chatType": "group", "senderId": "456"}})
    assert retag.apply(space, mapping) == 2
    moved = Fact.objects.filter(source_entry__session_id="qq-sess")
    assert set(moved.values_list("origin", "predicate", "value")) == {("qq", "nickname", "老王"),
                                                                      ("qq", "preference", "dark mode")}
    # the local nickname slot is left with what was said locally, and the qq origin sees its own facts
    local = Fact.objects.filter(origin="local", status="active").values_list("predicate", "value")
    assert list(local) == [("nickname", "王哥")]
    qq = api_factory(name="qq", origin="qq")
    facts = qq.tool("memory_facts", action="list").json()["result"]["facts"]
    assert {(f["predicate"], f["value"]) for f in facts} == {("nickname", "老王"), ("preference", "dark mode")}


def test_moved_facts_meet_the_new_origins_own_and_the_later_statement_wins(api, api_factory):
    api.turn("叫我老王", "好的", session_id="old-qq")  # said first, archived as local
    qq = api_factory(name="qq", origin="qq")
    qq.turn("叫我小王", "好的", session_id="group")  # said later, by the bridge itself
    api.turn("叫我阿王", "好的", session_id="web")  # said latest, on the web
    retag.apply(default_space(), {"old-qq": {"origin": "qq", "channel": "123", "tags": ["qq"]}})
    active = Fact.objects.filter(status="active", predicate="nickname")
    assert set(active.values_list("origin", "value")) == {("qq", "小王"), ("local", "阿王")}
    old = Fact.objects.get(value="老王")
    assert old.origin == "qq" and old.status == "invalidated" and old.invalidated_by.value == "小王"


@pytest.mark.django_db(transaction=True)
def test_entries_tagged_test_before_the_upgrade_become_test_entries():
    executor = MigrationExecutor(connection)
    before = [("memories", "0016_origins")]
    executor.migrate(before)
    try:
        old = executor.loader.project_state(before).apps
        OldEntry = old.get_model("memories", "Entry")
        space = MemorySpace.objects.create(slug="old", name="Old")
        OldEntry.objects.create(space_id=space.pk, body="a probe", tags=["test", "x"], content_hash="a")
        OldEntry.objects.create(space_id=space.pk, body="a real one", tags=["testing"], content_hash="b")
    finally:
        executor.loader.build_graph()
        executor.migrate(executor.loader.graph.leaf_nodes())
    assert dict(Entry.objects.values_list("body", "is_test")) == {"a probe": True, "a real one": False}


def test_the_dashboard_shows_where_a_bridged_turn_came_from(api, client, staff):
    group = api.turn("今晚谁来打球", "我来", channel=GROUP).json()["entry"]["id"]
    api.turn("明天提醒我交房租", "好的", channel={"platform": "qq", "chat_type": "private", "user_id": "987"})
    plain = api.turn("a turn from the web", "ok").json()["entry"]["id"]
    listing = client.get("/spaces/default/").content.decode()
    assert "group Night owls (123456789) · user Lan (987)" in listing and "user 987" in listing
    page = client.get(f"/spaces/default/entries/{group}/").content.decode()
    assert "group Night owls (123456789) · user Lan (987)" in page
    assert 'class="tag chat"' not in client.get(f"/spaces/default/entries/{plain}/").content.decode()


def test_the_dashboard_says_it_as_the_seed_does_in_chinese(api, client, staff):
    api.turn("今晚谁来打球", "我来", channel={"platform": "qq", "chat_type": "group", "chat_id": "123456789",
                                          "user_id": "987"})
    page = client.get("/spaces/default/", HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    assert "群 123456789 · 用户 987" in page


def test_retagged_history_shows_its_group_and_user_too(api, client, staff):
    entry = api.turn("old group chat", "ok", session_id="qq-sess").json()["entry"]["id"]
    retag.apply(default_space(), retag.mapping_from_sessions_json(
        {"aiocqhttp:GroupMessage:123456789": {"sessionId": "qq-sess", "chatType": "group", "senderId": "987"}}))
    page = client.get(f"/spaces/default/entries/{entry}/").content.decode()
    assert "group 123456789 · user 987" in page
