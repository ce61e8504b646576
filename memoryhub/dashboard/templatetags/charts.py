"""Inline SVG pictures drawn on the server: a sparkline, and memories and recalls per day.

The tags compute coordinates only; the markup, its titles and its translations are in
templates/dashboard/charts/. Every mark carries its numbers (data-* and <title>) so the picture can be read
without seeing it. The day chart's SVG stretches to its box while its axis labels are HTML, so the text
stays readable from a phone to a wide screen.
"""

from __future__ import annotations

from django import template

from memoryhub.dashboard import palette

register = template.Library()

SPARK_W, SPARK_H = 100, 22
SLOT, PLOT_H = 10, 100  # one day is 10 units wide in the day chart's viewBox; bars are 4 units each


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
    columns = [{"day": d, "x": i * SLOT, "write_x": i * SLOT + 1, "recall_x": i * SLOT + 5,
                "write_h": round(d.writes / top * PLOT_H, 2), "recall_h": round(d.recalls / top * PLOT_H, 2),
                "write_y": round(PLOT_H - d.writes / top * PLOT_H, 2),
                "recall_y": round(PLOT_H - d.recalls / top * PLOT_H, 2)} for i, d in enumerate(days)]
    labelled = sorted({0, len(days) // 2, len(days) - 1}) if days else []
    return {"columns": columns, "width": len(days) * SLOT, "height": PLOT_H, "slot": SLOT, "top": top,
            "half": top // 2 if top % 2 == 0 else None, "ticks": [days[i].day for i in labelled],
            "writes_color": palette.WRITES, "recalls_color": palette.RECALLS}
