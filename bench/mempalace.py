"""MemPalace's published LoCoMo figure, computed from its committed per-question results (README: session-level R@10).

MemPalace ("hybrid v5": verbatim turns, keyword, person-name, quoted-phrase and temporal boosts, no model) ranks
whole sessions and commits one result per question (`benchmarks/results_locomo_hybrid_session_top10_*.json` in
github.com/MemPalace/mempalace, MIT). bench/data/ keeps the question, category and recall of each (the licence,
bench/data/mempalace_LICENSE.txt, allows it with its notice); the figure is the mean recall over the questions
of categories 1–4 of the conversations a run measures, as ../shared/bench/README.md defines it.
"""

from __future__ import annotations

import json
import statistics
from pathlib import Path

DATA = Path(__file__).resolve().parent / "data" / "mempalace_locomo_hybrid_v5_session_top10.json"


def session_recall(sample_ids: list[str | None]) -> dict | None:
    """{"recall", "questions"} over these conversations, or None when MemPalace has none of them."""
    wanted = {s for s in sample_ids if s}
    rows = [r for r in json.loads(DATA.read_text())["results"]
            if r["sample_id"] in wanted and r["category"] in (1, 2, 3, 4)]
    if not rows:
        return None
    return {"recall": statistics.mean(r["recall"] for r in rows), "questions": len(rows)}
