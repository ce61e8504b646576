"""Pictures of a space: memories and recalls per day, category mix, most recalled, and the home sparklines."""

from __future__ import annotations

import re
from datetime import datetime, timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from memoryhub.dashboard.templatetags.charts import nice_ceiling, sparkline
from memoryhub.memories.models import Entry, OpLog
from memoryhub.memories.write.oplog import log_op
from memoryhub.spaces.models import MemorySpace
from memoryhub.spaces.workspaces import default_space

pytestmark = pytest.mark.django_db


def entry(space, days_ago=0, category="general", hits=0, deleted=False, at=None, title=""):
    when = at or timezone.now() - timedelta(days=days_ago)
    return Entry.objects.create(space=space, body=f"b {when} {category}", title=title, summary=f"about {category}",
                                category=category, hits=hits,
                                at=when, content_hash=str(when), deleted_at=timezone.now() if deleted else None)


def days(page: str) -> dict[str, tuple[int, int]]:
    return {d: (int(w), int(r)) for d, w, r in
            re.findall(r'<g class="day" data-day="([\d-]+)" data-writes="(\d+)" data-recalls="(\d+)"', page)}


def test_charts_need_login_and_a_native_space(client, staff):
    remote = MemorySpace.objects.create(slug="mem", name="Mem", provider="mem0")
    assert client.get(reverse("dashboard:charts", args=["mem"])).status_code == 404
    assert client.get(reverse("dashboard:charts", args=["nope"])).status_code == 404
    client.logout()
    assert client.get(reverse("dashboard:charts", args=[default_space().slug])).status_code == 302
    assert remote.pk


def test_activity_counts_live_memories_per_day_and_the_space_recalls(client, staff, api):
    space, other = default_space(), MemorySpace.objects.create(slug="other", name="Other", provider="native")
    today = timezone.localdate()
    for _ in range(3):
        entry(space, 0)
    entry(space, 2)
    entry(space, 2, deleted=True)
    entry(space, 40)  # outside 30 days
    entry(other, 0)
    api.tool("memory_note", text="Deploys go through scripts/deploy.sh", space="default")
    assert api.tool("memory_search", query="deploy").json()["result"]["results"]
    api.tool("memory_search", query="deploy")
    page = client.get(reverse("dashboard:charts", args=["default"])).content.decode()
    counted = days(page)
    assert len(counted) == 30
    assert counted[str(today)] == (4, 2)  # three entries and the note; two searches found it
    assert counted[str(today - timedelta(days=2))] == (1, 0)
    assert sum(w for w, _ in counted.values()) == 5 and sum(r for _, r in counted.values()) == 2
    assert f"{today:%Y-%m-%d}: 4 memories · 2 recalls" in page


def test_the_period_is_chosen_from_fixed_choices(client, staff):
    default_space()
    assert len(days(client.get(reverse("dashboard:charts", args=["default"]) + "?days=7").content.decode())) == 7
    assert len(days(client.get(reverse("dashboard:charts", args=["default"]) + "?days=90").content.decode())) == 90
    assert len(days(client.get(reverse("dashboard:charts", args=["default"]) + "?days=100000").content.decode())) == 30


@pytest.mark.parametrize("zone", ["UTC", "Asia/Shanghai", "Asia/Kathmandu", "America/St_Johns"])
def test_days_are_the_hubs_local_days(client, staff, settings, zone):
    """Just after and just before local midnight land on either side of it, whatever the offset (+5:45, -3:30…)."""
    settings.TIME_ZONE = zone
    space = default_space()
    today = timezone.localdate()
    midnight = timezone.make_aware(datetime.combine(today, datetime.min.time()))
    entry(space, at=midnight + timedelta(minutes=10))
    entry(space, at=midnight - timedelta(minutes=10))
    entry(space, at=midnight - timedelta(minutes=20))
    counted = days(client.get(reverse("dashboard:charts", args=["default"])).content.decode())
    assert counted[str(today)] == (1, 0) and counted[str(today - timedelta(days=1))] == (2, 0)


def test_category_mix_and_most_recalled(client, staff):
    space = default_space()
    for _ in range(3):
        entry(space, category="decision", hits=1)
    top = entry(space, category="pitfall", hits=7, title="Never run migrations while the worker is busy")
    entry(space, category="pitfall", hits=0)
    entry(space, category="insight", hits=5, deleted=True)
    page = client.get(reverse("dashboard:charts", args=["default"])).content.decode()
    shares = re.findall(r'data-category="(\w+)" data-count="(\d+)" data-hits="(\d+)"', page)
    assert shares == [("decision", "3", "3"), ("pitfall", "2", "7")]
    recalled = re.findall(r'<li data-hits="(\d+)">\s*<a href="([^"]+)"><span translate="no">([^<]+)</span></a>', page)
    assert recalled[0] == ("7", reverse("dashboard:entry", args=["default", top.pk]), top.title)
    assert [hits for hits, _, _ in recalled] == ["7", "1", "1", "1"]
    assert "10 recall hits in all" in page and "5 memories in this space" in page


def test_an_empty_space_says_so(client, staff):
    default_space()
    page = client.get(reverse("dashboard:charts", args=["default"])).content.decode()
    assert "No memories yet." in page and "No memory has been recalled by an agent yet." in page
    assert set(days(page).values()) == {(0, 0)}


def test_the_recall_count_says_when_the_op_log_was_trimmed_within_the_chart(client, staff, settings):
    settings.MEMORYHUB = {**settings.MEMORYHUB, "OPLOG_KEEP": 3}
    space = default_space()

    def note_shown():
        return "keeps its newest operations only" in client.get(reverse("dashboard:charts", args=["default"])).content.decode()

    for _ in range(3):
        log_op(space, "recall", detail="q=x hits=1")
    assert not note_shown()  # full, but nothing trimmed yet: the log reaches back to its first operation
    log_op(space, "recall", detail="q=x hits=1")
    assert OpLog.objects.filter(space=space).count() == 3 and note_shown()  # the first was trimmed
    OpLog.objects.filter(space=space).update(created_at=timezone.now() - timedelta(days=60))
    assert not note_shown()  # trimmed, but what is kept reaches back past the chart's first day


def test_home_draws_a_sparkline_per_native_space_from_one_query(client, staff):
    space = default_space()
    MemorySpace.objects.create(slug="mem", name="Mem", provider="mem0")
    entry(space, 0)
    entry(space, 0)
    entry(space, 29)
    page = client.get("/").content.decode()
    line = re.search(r'<svg class="sparkline"[^>]*data-total="(\d+)" data-values="([\d,]+)"', page)
    values = [int(v) for v in line.group(2).split(",")]
    assert line.group(1) == "3" and len(values) == 30 and values[-1] == 2 and values[0] == 1
    assert page.count('class="sparkline"') == 1  # the mem0 space has no entries of its own to draw
    assert "3 memories in the last 30 days" in page

    with CaptureQueriesContext(connection) as few:
        client.get("/")
    for i in range(5):
        entry(MemorySpace.objects.create(slug=f"s{i}", name=f"S{i}", provider="native"), i)
    with CaptureQueriesContext(connection) as many:
        page = client.get("/").content.decode()
    assert page.count('class="sparkline"') == 6
    assert len(many.captured_queries) == len(few.captured_queries)


def test_toggling_a_space_keeps_its_sparkline(client, staff):
    space = default_space()
    entry(space, 0)
    row = client.post(reverse("dashboard:space_toggle", args=["default"]), HTTP_HX_REQUEST="true").content.decode()
    assert 'class="sparkline"' in row and 'data-total="1"' in row


def test_axis_tops_are_round_and_all_zero_lines_lie_flat():
    assert [nice_ceiling(v) for v in (0, 1, 3, 7, 10, 11, 180, 501)] == [1, 1, 5, 10, 10, 20, 200, 1000]
    flat = sparkline([0] * 30)
    assert flat["total"] == 0 and {p.split(",")[1] for p in flat["points"].split()} == {"21.0"}


def test_charts_speak_chinese(client, staff):
    entry(default_space(), 0, category="decision", hits=2)
    client.cookies.load({"django_language": "zh-hans"})
    page = client.get(reverse("dashboard:charts", args=["default"])).content.decode()
    assert "类别分布" in page and "最常被召回" in page and "1 条记忆 · 0 次召回" in page
    assert "最近 30 天 1 条记忆" in client.get("/").content.decode()
