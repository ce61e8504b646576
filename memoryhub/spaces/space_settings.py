"""Per-space settings: global defaults (settings.MEMORYHUB["SPACE_DEFAULTS"]) overridden per space.

Read at use time, so a change takes effect without a restart. `validate` gives one clear error
per bad key; nothing is saved unless every key is valid.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from memoryhub.core import llm

POLICIES = ("strict-v1", "balanced-v1", "exhaustive-v1")


@dataclass(frozen=True)
class Rule:
    kind: type | tuple[type, ...]
    low: float | None = None
    high: float | None = None
    choices: tuple[str, ...] = ()
    help: str = ""
    check: Callable[[Any], str] | None = None  # what is wrong with a value beyond its type and range, or ""


def model_endpoint_problem(value: str) -> str:
    """summarizeProvider names a configured model endpoint, or is blank for the default one."""
    names = llm.endpoint_names()
    if not value or value in names:
        return ""
    if not names:
        return _("must be blank: no other model endpoint is configured (MEMORYHUB_LLM_ENDPOINTS)")
    return _("must be blank (the default model endpoint) or one of: %(names)s") % {"names": ", ".join(names)}


RULES: dict[str, Rule] = {
    "inject": Rule(bool, help=gettext_lazy("Off: record and search only, nothing injected.")),
    "maxInjectChars": Rule(int, 0, 100_000, help=gettext_lazy("Characters /context may inject.")),
    "maxRecall": Rule(int, 0, 50, help=gettext_lazy("Cards at most per injection.")),
    "autoSummarize": Rule(bool, help=gettext_lazy("Off: rule summaries only, zero model calls.")),
    "summarizeProvider": Rule(str, help=gettext_lazy("Model endpoint that writes summaries (blank: "
                                                     "MEMORYHUB_LLM_BASE_URL; else a name from "
                                                     "MEMORYHUB_LLM_ENDPOINTS)."), check=model_endpoint_problem),
    "summaryModel": Rule(str, help=gettext_lazy("Model for summaries (blank: the endpoint's own model).")),
    "summaryTimeout": Rule((int, float), 1, 300, help=gettext_lazy("Seconds a summary call may take.")),
    "autoPersona": Rule(bool, help=gettext_lazy("Rebuild the persona frame as memories arrive.")),
    "personaEvery": Rule(int, 1, 10_000, help=gettext_lazy("New entries between persona rebuilds.")),
    "autoConsolidate": Rule(bool, help=gettext_lazy("Consolidate daily.")),
    "consolidateMinAgeDays": Rule(int, 1, 3650, help=gettext_lazy("Archive entries older than this that were never recalled.")),
    "consolidateDigestAgeDays": Rule(int, 0, 3650, help=gettext_lazy("Digest topics that ended this many days ago.")),
    "mergeSimilarity": Rule((int, float), 0.5, 1.0, help=gettext_lazy("Summaries this similar within a topic merge.")),
    "maxEntries": Rule(int, 0, 10_000_000, help=gettext_lazy("Over this, the weakest entries are archived (0: no cap).")),
    "recordSubagents": Rule(bool, help=gettext_lazy("Also archive turns an agent marks as coming from a sub-agent.")),
    "recallPolicy": Rule(str, choices=POLICIES, help=gettext_lazy("How results from several providers are filtered.")),
    "recallLow": Rule((int, float), 0, 1, help=gettext_lazy("Scores below this are low.")),
    "recallHigh": Rule((int, float), 0, 1, help=gettext_lazy("Scores from this up are high.")),
    "recallMultiplier": Rule((int, float), 1, 5, help=gettext_lazy("Candidates fetched per result wanted.")),
    "recallMaxMedium": Rule(int, 0, 50, help=gettext_lazy("Medium results kept at most (strict).")),
    "recallMaxUnknown": Rule(int, 0, 50, help=gettext_lazy("Unscored results kept at most (strict).")),
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
            errors[key] = _("unknown setting %(key)r") % {"key": key}
            continue
        problem = _problem(rule, value)
        if problem:
            errors[key] = problem
        else:
            clean[key] = float(value) if rule.kind == (int, float) else value
    merged = {**(base or defaults()), **clean}
    if "recallLow" not in errors and "recallHigh" not in errors and merged["recallLow"] >= merged["recallHigh"]:
        errors["recallLow"] = _("recallLow must be below recallHigh")
    return clean, errors


def _problem(rule: Rule, value: Any) -> str:
    if isinstance(value, bool) and rule.kind is not bool:
        return _("must be a number") if rule.kind is not str else _("must be text")
    if not isinstance(value, rule.kind):
        names = {bool: _("must be true or false"), int: _("must be a whole number"), str: _("must be text"),
                 (int, float): _("must be a number")}
        return names.get(rule.kind, _("must be valid"))
    if isinstance(value, float) and not math.isfinite(value):
        return _("must be a finite number")
    if rule.low is not None and value < rule.low or rule.high is not None and value > rule.high:
        return _("must be between %(low)g and %(high)g") % {"low": rule.low, "high": rule.high}
    if rule.choices and value not in rule.choices:
        return _("must be one of %(choices)s") % {"choices": ", ".join(rule.choices)}
    if rule.kind is str and len(value) > 200:
        return _("must be at most 200 characters")
    return rule.check(value) if rule.check else ""
