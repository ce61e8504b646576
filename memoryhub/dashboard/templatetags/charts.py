"""Inline SVG pictures drawn on the server: a sparkline, memories and recalls per day, horizontal bars.

The tags compute coordinates only; the markup, its titles and its translations are in
templates/dashboard/charts/. Every mark carries its numbers (data-* and <title>) so the picture can be read
without seeing it.
"""

from __future__ import annotations

from django import template

from memoryhub.dashboard import palette

register = template.Library()

SPARK_W, SPARK_H = 120, 24
CHART_W, CHART_H, LEFT, BOTTOM, TOP = 720, 200, 34, 22, 8
BAR_W, ROW_H, LABEL_W = 500, 24, 96


def nice_ceiling(value: int) -> int:
    """The axis top: the value rounded up to 1, 2 or 5 times a power of ten (at least 1)."""
    step = 1
    while True:
        for factor in (1, 2, 5):
            if value <= step * factor:
                return step * factor
        step *= 10


@register.inclusion_tag("dashboard/charts/sparkline.html")
def sparkline(values: list[int]) -> dict:
    """A line over one month of daily counts, its area lightly filled; flat at the bottom when all are 0."""
    top = max(values, default=0) or 1
    step = SPARK_W / max(len(values) - 1, 1)
    points = " ".join(f"{i * step:.1f},{SPARK_H - 1 - v / top * (SPARK_H - 3):.1f}" for i, v in enumerate(values))
    return {"points": points, "area": f"0,{SPARK_H} {points} {SPARK_W},{SPARK_H}", "total": sum(values),
            "days": len(values), "values": ",".join(map(str, values)), "width": SPARK_W, "height": SPARK_H,
            "color": palette.WRITES}


@register.inclusion_tag("dashboard/charts/activity.html")
def activity_chart(days: list) -> dict:
    """Two bars a day, memories written and recalls, on one axis; the first, middle and last day are labelled."""
    top = nice_ceiling(max([max(d.writes, d.recalls) for d in days], default=0))
    plot_w, plot_h = CHART_W - LEFT - 4, CHART_H - BOTTOM - TOP
    slot = plot_w / max(len(days), 1)
    bar = max(slot * 0.4, 1)
    columns = []
    for i, d in enumerate(days):
        x = LEFT + i * slot
        write_h, recall_h = d.writes / top * plot_h, d.recalls / top * plot_h
        columns.append({
            "day": d, "x": round(x, 2), "slot": round(slot, 2),
            "write": {"x": round(x + slot * 0.1, 2), "y": round(TOP + plot_h - write_h, 2), "h": round(write_h, 2)},
            "recall": {"x": round(x + slot * 0.1 + bar, 2), "y": round(TOP + plot_h - recall_h, 2),
                       "h": round(recall_h, 2)},
        })
    labelled = {0, len(days) // 2, len(days) - 1} if days else set()
    ticks = [{"x": round(LEFT + i * slot + slot / 2, 2), "day": days[i].day} for i in sorted(labelled)]
    grid = [{"y": round(TOP + plot_h - f * plot_h, 2), "value": round(top * f)} for f in (0, 0.5, 1)
            if f == 0 or top * f == int(top * f)]
    return {"columns": columns, "bar": round(bar, 2), "ticks": ticks, "grid": grid, "width": CHART_W,
            "height": CHART_H, "left": LEFT, "top": TOP, "plot_h": plot_h, "right": CHART_W - 4,
            "label_y": CHART_H - 6, "writes_color": palette.WRITES, "recalls_color": palette.RECALLS}


@register.inclusion_tag("dashboard/charts/bars.html")
def share_bars(shares: list) -> dict:
    """One horizontal bar per category (charts.Share), largest first as given, its count at its end."""
    top = max((s.count for s in shares), default=0) or 1
    rows = [{"share": s, "y": i * ROW_H, "w": round(max(s.count / top * BAR_W, 1), 2)} for i, s in enumerate(shares)]
    return {"rows": rows, "width": LABEL_W + BAR_W + 90, "height": max(len(shares), 1) * ROW_H,
            "label_w": LABEL_W, "bar_x": LABEL_W + 6, "bar_h": ROW_H - 8, "text_dy": ROW_H / 2 + 4}
