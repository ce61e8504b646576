"""Choosing a ranking constant without fitting it: leave-one-conversation-out over the LoCoMo dev split.

The dev split has six conversations. For each constant under study, every candidate value ranks every question
once; then, for each conversation in turn, the value is chosen on the other five (the mean of evidence R@10 and
session-level R@10 over their questions) and that conversation's questions are scored with it. "Held out" is
the mean over all questions so scored: what a value chosen this way does on a conversation it was not chosen on.
The Chinese conversation (bench/data/locomo_zh.json) is scored with every candidate and never chosen on.
docs/benchmarks.md keeps the figures, also of two studies whose code was dropped after them (session diversity,
summed offers).

    python -m bench.locomo_folds              # every study in STUDIES
    python -m bench.locomo_folds relevance    # one of them
"""

from __future__ import annotations

import json
import statistics
import sys
import time
from contextlib import contextmanager
from pathlib import Path

from bench import locomo

# name -> candidate settings ("module.CONSTANT": value); the first is main's
STUDIES: dict[str, list[dict]] = {
    "session": [{"signals.SESSION": v} for v in (0.3, 0.15, 0.45)],
    "neighbours": [{"ranking.SESSION_NEIGHBOUR": a, "ranking.SECOND_NEIGHBOUR": b}
                   for a, b in ((0.6, 0.4), (0.45, 0.3), (0.75, 0.5))],
    "dates": [{"signals.DATES": v} for v in (2.0, 1.5, 3.0)],
    "speaker": [{"signals.SPEAKER": v} for v in (1.3, 1.15, 1.5)],
    "pool": [{"ranking.POOL": v} for v in (40, 80)],
    "relevance": [{"cards.ORDER_RANK_SHARE": v} for v in (0.5, 0.7, 0.85, 0.3)],
}


@contextmanager
def constants(values: dict):
    """Rank with module constants set (the bench's knob; the code reads them at call time)."""
    from memoryhub.memories.recall import cards
    from memoryhub.memories.search import ranking, signals

    owners = {"ranking": ranking, "signals": signals, "cards": cards}
    before = {}
    for key, value in values.items():
        module, name = key.split(".")
        before[key] = getattr(owners[module], name)  # an unknown constant fails here, not silently
        setattr(owners[module], name, value)
    try:
        yield
    finally:
        for key, value in before.items():
            module, name = key.split(".")
            setattr(owners[module], name, value)


def label(values: dict) -> str:
    return ", ".join(f"{k.split('.')[1]}={v}" for k, v in values.items())


def scored(loaded: list[locomo.Loaded], samples: list[dict]) -> tuple[list[list[dict]], float]:
    """Per conversation, per question: {"r10", "sessions", …}; and the mean search time in ms."""
    from memoryhub.memories.recall import cards as recall

    out, took = [], []
    for one, sample in zip(loaded, samples):
        rows = []
        for question, evidence, _answer in locomo.questions(sample):
            with locomo.words_only():
                ranked = locomo._ranked(recall, one.space, question, one.dia_of, took)
            rows.append({**{f"r{k}": locomo.recall_at(ranked, evidence, k) for k in locomo.KS},
                         "sessions": locomo.session_recall(ranked, evidence)})
        out.append(rows)
    return out, statistics.mean(took)


def objective(rows: list[dict]) -> float:
    return statistics.mean((r["r10"] + r["sessions"]) / 2 for r in rows)


def means(rows: list[dict]) -> dict:
    return {key: statistics.mean(r[key] for r in rows) for key in rows[0]}


def leave_one_out(per_value: dict[str, list[list[dict]]], candidates: list[str]) -> tuple[list[dict], list[str]]:
    """(each conversation's questions scored with the candidate chosen on the others, the choice per fold)."""
    held_out, chosen = [], []
    for out in range(len(per_value[candidates[0]])):
        best = max(candidates, key=lambda v: objective(
            [r for i, rows in enumerate(per_value[v]) if i != out for r in rows]))
        chosen.append(best)
        held_out += per_value[best][out]
    return held_out, chosen


def study(name: str, dev: tuple[list, list], chinese: tuple[list, list]) -> dict:
    candidates = [label(c) for c in STUDIES[name]]
    per_value, zh_value, ms = {}, {}, {}
    for value, setting in zip(candidates, STUDIES[name]):
        with constants(setting):
            per_value[value], ms[value] = scored(*dev)
            zh_value[value] = scored(*chinese)[0][0]
    held_out, chosen = leave_one_out(per_value, candidates)
    on_all = max(candidates, key=lambda v: objective([r for rows in per_value[v] for r in rows]))
    return {
        "study": name, "candidates": candidates, "chosen_per_fold": chosen, "chosen_on_all": on_all,
        "held_out": means(held_out),
        "per_value": {v: means([r for rows in per_value[v] for r in rows]) for v in candidates},
        "chinese": {v: means(zh_value[v]) for v in candidates},
        "ms": ms,
    }


def _row(name: str, m: dict) -> str:
    return f"{name:40}" + "".join(f"{m[f'r{k}']:<8.3f}" for k in locomo.KS) + f"{m['sessions']:.3f}"


def report(name: str, result: dict) -> str:
    header = f"{'':40}" + "".join(f"R@{k:<6}" for k in locomo.KS) + "session R@10"
    lines = [f"{result['study']}: chosen per held-out fold {result['chosen_per_fold']}, "
             f"on all six {result['chosen_on_all']}", header]
    for value in result["candidates"]:
        lines.append(_row(f"dev, {value}{' (main)' if value == result['candidates'][0] else ''}",
                          result["per_value"][value]) + f"   {result['ms'][value]:.1f} ms")
    lines.append(_row("held out (chosen on 5 of 6)", result["held_out"]))
    for value in result["candidates"]:
        lines.append(_row(f"Chinese, {value}", result["chinese"][value]))
    return "\n".join(lines)


def load_all() -> tuple[tuple[list, list], tuple[list, list]]:
    dev_samples = json.loads(Path(locomo.DATA).read_text())
    zh_samples = json.loads(Path(locomo.CHINESE).read_text())
    started = time.perf_counter()
    dev = [locomo.load(s, f"fold-{i}") for i, s in enumerate(dev_samples)]
    zh = [locomo.load(s, f"fold-zh-{i}") for i, s in enumerate(zh_samples)]
    print(f"loaded {sum(len(d.docs) for d in dev + zh)} turns in {time.perf_counter() - started:.0f} s", flush=True)
    return (dev, dev_samples), (zh, zh_samples)


if __name__ == "__main__":
    from bench.setup import django_on_temp_data

    django_on_temp_data()
    dev, chinese = load_all()
    for name in sys.argv[1:] or list(STUDIES):
        print(report(name, study(name, dev, chinese)), flush=True)
