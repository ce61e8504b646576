"""Per-space settings: global defaults (settings.MEMORYHUB["SPACE_DEFAULTS"]) overridden per space.

Read at use time, so a change takes effect without a restart. `validate` gives one clear error
per bad key; nothing is saved unless every key is valid.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from django.conf import settings

POLICIES = ("strict-v1", "balanced-v1", "exhaustive-v1")


@dataclass(frozen=True)
class Rule:
    kind: type | tuple[type, ...]
    low: float | None = None
    high: float | None = None
    choices: tuple[str, ...] = ()
    help: str = ""


RULES: dict[str, Rule] = {
    "inject": Rule(bool, help="Off: record and search only, nothing injected."),
    "maxInjectChars": Rule(int, 0, 100_000, help="Characters /context may inject."),
    "maxRecall": Rule(int, 0, 50, help="Cards at most per injection."),
    "autoSummarize": Rule(bool, help="Off: rule summaries only, zero model calls."),
    "summaryModel": Rule(str, help="Model for turn summaries (blank: MEMORYHUB_LLM_MODEL)."),
    "summaryTimeout": Rule((int, float), 1, 300, help="Seconds a summary call may take."),
    "autoPersona": Rule(bool, help="Rebuild the persona frame as memories arrive."),
    "personaEvery": Rule(int, 1, 10_000, help="New entries between persona rebuilds."),
    "autoConsolidate": Rule(bool, help="Consolidate daily."),
    "consolidateMinAgeDays": Rule(int, 1, 3650, help="Archive entries older than this that were never recalled."),
    "consolidateDigestAgeDays": Rule(int, 0, 3650, help="Digest topics that ended this many days ago."),
    "mergeSimilarity": Rule((int, float), 0.5, 1.0, help="Summaries this similar within a topic merge."),
    "maxEntries": Rule(int, 0, 10_000_000, help="Over this, the weakest entries are archived (0: no cap)."),
    "recordSubagents": Rule(bool, help="Also archive turns an agent marks as coming from a sub-agent."),
    "recallPolicy": Rule(str, choices=POLICIES, help="How results from several providers are filtered."),
    "recallLow": Rule((int, float), 0, 1, help="Scores below this are low."),
    "recallHigh": Rule((int, float), 0, 1, help="Scores from this up are high."),
    "recallMultiplier": Rule((int, float), 1, 5, help="Candidates fetched per result wanted."),
    "recallMaxMedium": Rule(int, 0, 50, help="Medium results kept at most (strict)."),
    "recallMaxUnknown": Rule(int, 0, 50, help="Unscored results kept at most (strict)."),
}


def defaults() -> dict[str, Any]:
    return dict(settings.MEMORYHUB["SPACE_DEFAULTS"])


def effective(space=None) -> dict[str, Any]:
    """Defaults with the space's own overrides on top."""
    values = defaults()
    if space is not None:
        values.update({k: v for k, v in (space.settings or {}).items() if k in RULES})
    return values


def validate(changes: dict[str, Any], base: dict[str, Any] | None = None) -> tuple[dict[str, Any], dict[str, str]]:
    """Check each key against its rule; returns (clean values, {key: error})."""
    clean: dict[str, Any] = {}
    errors: dict[str, str] = {}
    for key, value in changes.items():
        rule = RULES.get(key)
        if rule is None:
            errors[key] = f"unknown setting {key!r}"
            continue
        problem = _problem(rule, value)
        if problem:
            errors[key] = problem
        else:
            clean[key] = float(value) if rule.kind == (int, float) else value
    merged = {**(base or defaults()), **clean}
    if "recallLow" not in errors and "recallHigh" not in errors and merged["recallLow"] >= merged["recallHigh"]:
        errors["recallLow"] = "recallLow must be below recallHigh"
    return clean, errors


def _problem(rule: Rule, value: Any) -> str:
    if isinstance(value, bool) and rule.kind is not bool:
        return "must be a number" if rule.kind != str else "must be text"
    if not isinstance(value, rule.kind):
        names = {bool: "true or false", int: "a whole number", str: "text", (int, float): "a number"}
        return f"must be {names.get(rule.kind, 'valid')}"
    if isinstance(value, float) and not math.isfinite(value):
        return "must be a finite number"
    if rule.low is not None and value < rule.low or rule.high is not None and value > rule.high:
        return f"must be between {rule.low:g} and {rule.high:g}"
    if rule.choices and value not in rule.choices:
        return f"must be one of {', '.join(rule.choices)}"
    if rule.kind is str and len(value) > 200:
        return "must be at most 200 characters"
    return ""
