"""The topics tab: a native space's topics newest first, and one topic's turns in order."""

import pytest
from django.urls import reverse

from memoryhub.memories.models import Entry, Topic
from memoryhub.spaces.models import MemorySpace
from memoryhub.spaces.workspaces import default_space

pytestmark = pytest.mark.django_db


def test_topics_need_login(client):
    default_space()
    for url in (reverse("dashboard:topics", args=["default"]), reverse("dashboard:topic", args=["default", 1])):
        r = client.get(url)
        assert r.status_code == 302 and r["Location"].startswith("/login/")


def test_topics_list_links_each_topic_to_its_turns(client, staff, api):
    api.turn("Let's set up the Postgres backup cron for billing", session_id="s1")
    api.turn("The Postgres backup cron should run nightly", session_id="s1")
    api.turn("Which wallpaper engine preset do I like?", session_id="s2")
    topic = Topic.objects.get(session_id="s1")
    page = client.get(reverse("dashboard:topics", args=["default"])).content.decode()
    assert reverse("dashboard:topic", args=["default", topic.pk]) in page and f"t{topic.pk}" in page
    assert Topic.objects.count() == 2 and page.count('id="topic-') == 2
    assert 'href="/spaces/default/topics/" aria-current="page"' in page
    detail = client.get(reverse("dashboard:topic", args=["default", topic.pk])).content.decode()
    turns = list(Entry.objects.filter(topic=topic).order_by("at"))
    assert len(turns) == 2 and all(f'id="entry-{e.pk}"' in detail for e in turns)
    assert detail.index(f'id="entry-{turns[0].pk}"') < detail.index(f'id="entry-{turns[1].pk}"')
    assert "wallpaper" not in detail


def test_an_empty_space_says_how_topics_form(client, staff):
    default_space()
    assert "No topics yet" in client.get(reverse("dashboard:topics", args=["default"])).content.decode()


def test_topics_belong_to_native_spaces_and_to_their_own_space(client, staff, api):
    api.turn("Postgres backups at night", session_id="s1")
    topic = Topic.objects.get()
    MemorySpace.objects.create(slug="other", name="Other")
    MemorySpace.objects.create(slug="remote", name="R", provider="mem0")
    assert client.get(reverse("dashboard:topic", args=["other", topic.pk])).status_code == 404
    assert client.get(reverse("dashboard:topics", args=["remote"])).status_code == 404
    assert client.get(reverse("dashboard:topic", args=["default", topic.pk + 99])).status_code == 404
