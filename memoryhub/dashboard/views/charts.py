"""Pictures of a native space: memories and recalls per day, the category mix, the most recalled memories.

Each picture is one aggregate query, drawn on the server as inline SVG (templatetags/charts.py): no script,
works offline, and the numbers are in the page for screen readers and tests. Days are the hub's time zone.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta

from django.db import connection
from django.db.models import Count, Min, Sum
from django.db.models.expressions import RawSQL
from django.db.models.functions import TruncDate
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils import timezone
from django.views.decorators.http import require_GET

from memoryhub.access.people import Perm
from memoryhub.dashboard.access import person_may, space_context, space_for_user
from memoryhub.dashboard.palette import category_color
from memoryhub.memories.models import Entry, OpLog
from memoryhub.spaces.models import MemorySpace

DAY_CHOICES = (7, 30, 90)
DEFAULT_DAYS = 30
SPARKLINE_DAYS = 30
TOP_RECALLED = 10


@dataclass
class Day:
    day: date
    writes: int
    recalls: int


@dataclass
class Share:
    name: str
    count: int
    hits: int
    color: str


def window(days: int) -> tuple[datetime, datetime, list[date]]:
    """[start, end) of the last `days` local days, today included, and those days in order."""
    today = timezone.localdate()
    first = today - timedelta(days=days - 1)
    start = timezone.make_aware(datetime.combine(first, time.min))
    end = timezone.make_aware(datetime.combine(today + timedelta(days=1), time.min))
    return start, end, [first + timedelta(days=i) for i in range(days)]


def per_day(queryset, field: str, *keys: str) -> dict:
    """{(key…, local day): count} from one GROUP BY over the rows' `field` (a datetime column).

    PostgreSQL finds the local day itself. On SQLite Django would call a Python function per row for that
    (about 10 µs each, 0.2 s for the 25k rows of a busy quarter), so there rows are counted per UTC hour
    natively, from the UTC text SQLite keeps, and the buckets are folded into local days here; per quarter
    hour where the time zone's offset is not whole hours.
    """
    queryset = queryset.order_by()
    if connection.vendor != "sqlite":
        rows = (queryset.annotate(day=TruncDate(field)).values(*keys, "day").annotate(n=Count("id"))
                .values_list(*keys, "day", "n"))
        return {tuple(row[:-1]): row[-1] for row in rows}
    column = f'"{queryset.model._meta.db_table}"."{queryset.model._meta.get_field(field).column}"'
    quarters = any(timezone.localtime(moment).utcoffset().total_seconds() % 3600 for moment in
                   (timezone.now(), timezone.now() - timedelta(days=max(DAY_CHOICES))))
    bucket = f"substr({column}, 1, 14) || (CAST(substr({column}, 15, 2) AS INTEGER) / 15)" if quarters \
        else f"substr({column}, 1, 13)"
    rows = (queryset.annotate(bucket=RawSQL(bucket, [])).values(*keys, "bucket").annotate(n=Count("id"))
            .values_list(*keys, "bucket", "n"))
    counts: dict = {}
    for *key, text, n in rows:
        hour, _, quarter = text.partition(":")
        start = datetime.fromisoformat(hour + ":00").replace(tzinfo=UTC) + timedelta(minutes=15 * int(quarter or 0))
        day = (*key, timezone.localtime(start).date())
        counts[day] = counts.get(day, 0) + n
    return counts


def activity(space: MemorySpace, days: int) -> list[Day]:
    """Memories by the day they happened (`at`) and agent recalls that reached this space (the op log)."""
    start, end, dates = window(days)
    writes = per_day(Entry.objects.live().filter(space=space, at__gte=start, at__lt=end), "at")
    recalls = per_day(OpLog.objects.filter(space=space, operation="recall", created_at__gte=start,
                                           created_at__lt=end), "created_at")
    return [Day(d, writes.get((d,), 0), recalls.get((d,), 0)) for d in dates]


def category_mix(space: MemorySpace) -> list[Share]:
    """Live memories and their recall hits per category, largest first."""
    rows = (Entry.objects.live().filter(space=space).order_by().values("category")
            .annotate(n=Count("id"), hits=Sum("hits")).order_by("-n", "category"))
    return [Share(r["category"], r["n"], r["hits"] or 0, category_color(r["category"])) for r in rows]


def top_recalled(space: MemorySpace) -> list[Entry]:
    """The memories agents brought back most often (Entry.hits), each with its category's colour."""
    entries = list(Entry.objects.live().filter(space=space, hits__gt=0).order_by("-hits", "-at")
                   .only("id", "title", "summary", "category", "hits", "at")[:TOP_RECALLED])
    for entry in entries:
        entry.color = category_color(entry.category)
    return entries


def oplog_since(space: MemorySpace) -> datetime | None:
    """When the op log's oldest row was written, if older ones were trimmed (its `seq` is past 1): recalls
    before it are no longer counted."""
    kept = OpLog.objects.filter(space=space).aggregate(first=Min("created_at"), first_seq=Min("seq"))
    return kept["first"] if (kept["first_seq"] or 0) > 1 else None


def with_sparklines(rows: list[MemorySpace]) -> list[MemorySpace]:
    """Give each native space of the overview its memories per day over the last month, in one query."""
    native = [row for row in rows if row.is_native]
    if native:
        start, end, dates = window(SPARKLINE_DAYS)
        counts = per_day(Entry.objects.live().filter(space__in=native, at__gte=start, at__lt=end), "at", "space_id")
        for row in native:
            row.sparkline = [counts.get((row.pk, d), 0) for d in dates]
    return rows


@require_GET
@person_may(Perm.MEMORY_READ)
def charts(request: HttpRequest, slug: str) -> HttpResponse:
    space = space_for_user(request, slug, native=True)  # only native spaces keep the data these are drawn from
    days = int(request.GET["days"]) if request.GET.get("days") in {str(d) for d in DAY_CHOICES} else DEFAULT_DAYS
    shares = category_mix(space)
    start, _, _ = window(days)
    since = oplog_since(space)
    context = {
        **space_context(space, "charts"), "days": days, "day_choices": DAY_CHOICES,
        "activity": activity(space, days), "shares": shares, "top": top_recalled(space),
        "total": sum(s.count for s in shares), "total_hits": sum(s.hits for s in shares),
        "oplog_since": since if since and since > start else None,
    }
    return render(request, "dashboard/charts.html", context)
