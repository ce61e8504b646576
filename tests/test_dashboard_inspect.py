"""Inspecting one memory (#36): who recalled it and when, its links with their types both ways, linking by
searching for the other memory, and entity pages that say how often, since when and with what else a name is said."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from memoryhub.memories.models import Edge, Entry, OpLog
from memoryhub.memories.write import gateway
from memoryhub.spaces.workspaces import default_space

pytestmark = pytest.mark.django_db
HX = {"HX-Request": "true"}


def note(title: str, body: str = "", **extra) -> Entry:
    return gateway.write(default_space(), gateway.Draft(title=title, body=body or title, **extra)).entry


def test_a_memorys_page_says_which_agent_recalled_it_when_and_for_which_words(client, staff, api):
    api.tool("memory_save", category="decision", title="WAL mode", body="We keep SQLite in WAL mode.")
    api.tool("memory_save", category="general", title="Lunch", body="Pizza at the usual place.")
    api.post("context", {"session_id": "s1", "query": "is SQLite in WAL mode?"})
    wal, lunch = Entry.objects.get(title="WAL mode"), Entry.objects.get(title="Lunch")
    row = OpLog.objects.get(operation="recall")
    assert row.detail.endswith(f"ids={wal.pk}")  # the op log names what it recalled
    page = client.get(reverse("dashboard:entry", args=["default", wal.pk])).content.decode()
    section = page.split('id="entry-recalls"', 1)[1].split("</section>", 1)[0]
    assert "Recalled 1 time" in section and "token:agent" in section and "is SQLite in WAL mode?" in section
    other = client.get(reverse("dashboard:entry", args=["default", lunch.pk])).content.decode()
    assert "No agent has recalled it yet." in other and "token:agent" not in other.split('id="entry-recalls"')[1]


def test_the_related_list_names_each_links_type_and_which_way_it_points(client, staff):
    cause, effect, similar = note("Migrations ran"), note("The worker stalled"), note("Another stall")
    Edge.objects.create(source=cause, target=effect, edge_type="causal")  # one way, as enrichment makes it
    gateway.link(cause, similar, "semantic", 0.5)  # both ways, as a person's link
    html = client.get(reverse("dashboard:memory_related", args=["default"]) + f"?id={cause.pk}").content.decode()
    items = re.findall(r"<li><span class=\"badge\"[^>]*>([^<]+)</span>\s*<a href=\"[^\"]+\"><code>#(\d+)</code>", html)
    assert ("Cause and effect →", str(effect.pk)) in items and ("Linked", str(similar.pk)) in items
    back = client.get(reverse("dashboard:memory_related", args=["default"]) + f"?id={effect.pk}").content.decode()
    assert "Cause and effect ←" in back


def test_linking_picks_the_other_memory_by_searching_for_it(client, staff):
    source, target = note("The deploy script"), note("Deploys need the VPN up first")
    note("Lunch was pizza")
    picker = client.get(reverse("dashboard:memory_link_candidates", args=["default"]),
                        {"q": "VPN", "from": source.pk}).content.decode()
    assert f'name="to" value="{target.pk}"' in picker and "pizza" not in picker
    assert f'value="{source.pk}"' not in client.get(reverse("dashboard:memory_link_candidates", args=["default"]),
                                                     {"q": "deploy", "from": source.pk}).content.decode()
    first = client.get(reverse("dashboard:memory_related", args=["default"]) + f"?id={source.pk}").content.decode()
    assert 'type="radio" name="to"' in first and 'type="search" name="q"' in first  # no typed id
    r = client.post(reverse("dashboard:memory_link", args=["default"]),
                    {"from": source.pk, "to": target.pk, "kind": "causal"}, headers=HX)
    assert r.status_code == 200 and "Linked." in r.content.decode() and "Cause and effect" in r.content.decode()
    r = client.post(reverse("dashboard:memory_link", args=["default"]), {"from": source.pk, "kind": "causal"},
                    headers=HX)
    assert r.status_code == 422 and "to must not be empty" in r.content.decode()  # memory_link's words


def test_an_entity_page_says_how_often_since_when_and_what_else_is_said_with_it(client, staff):
    for text in ("Anna and Tom went climbing in Berlin.", "Anna booked the climbing gym in Berlin.",
                 "Tom fixed the bike."):
        note(text)
    page = client.get(reverse("dashboard:entities", args=["default"]) + "?entity=Anna").content.decode()
    records = page.split('id="entity-records"', 1)[1]
    assert "Mentioned in 2 memories" in records and "from " in records
    together = re.findall(r'href="\?entity=([^"]+)"', records.split("Often said with:", 1)[1].split("</p>", 1)[0])
    assert "Berlin" in together
    assert reverse("dashboard:entry", args=["default", Entry.objects.get(body__startswith="Anna booked").pk]) in records


def test_search_words_are_marked_by_stem_and_in_chinese_and_everything_else_is_escaped():
    from memoryhub.dashboard.templatetags.memoryhub_tags import highlight

    marked = highlight('Deploys <script>x</script> via deploy.sh; 我住在北京已经五年', "deploy 北京")
    assert marked == ('<mark>Deploys</mark> &lt;script&gt;x&lt;/script&gt; via <mark>deploy</mark>.sh; '
                      '我住在<mark>北京</mark>已经五年')
    assert highlight("<b>bold</b>", "") == "&lt;b&gt;bold&lt;/b&gt;"
