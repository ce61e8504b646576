"""Recall-quality policies for reads across providers (dsh-mnemon's strict-v1, balanced-v1, exhaustive-v1).

Every result gets a tier: unknown (no score, or a provider whose scores are not normalised
relevance), low, medium or high by the space's thresholds. Non-finite scores are dropped.
strict-v1 drops low results; balanced-v1 keeps them last, except a normalised score of zero or less,
which it drops too; exhaustive-v1 keeps everything.
"""

from __future__ import annotations

import math
from typing import Any

TIER_ORDER = {"high": 0, "medium": 1, "unknown": 2, "low": 3}


def candidate_limit(limit: int, multiplier: float) -> int:
    return min(50, max(limit, math.ceil(limit * multiplier)))


def tier(score: float | None, score_semantics: str, config: dict[str, Any]) -> str:
    if score is None or score_semantics != "normalized":
        return "unknown"
    if not math.isfinite(score):
        return "drop"
    if score <= 0:
        return "low"
    if score > 1:
        return "unknown"
    if score < config["recallLow"]:
        return "low"
    if score < config["recallHigh"]:
        return "medium"
    return "high"


def apply(cards: list, limit: int, config: dict[str, Any]) -> list:
    """Filter and order tiered cards by the configured policy; returns at most `limit`."""
    policy = config["recallPolicy"]
    kept = [c for c in cards if c.tier != "drop"]
    if policy == "balanced-v1":  # keeps low results last, but a score of zero or less says "unrelated"
        kept = [c for c in kept if not (c.tier == "low" and c.score is not None and c.score <= 0)]
    kept.sort(key=lambda c: (TIER_ORDER[c.tier], -(c.score if c.score is not None and math.isfinite(c.score) else 0)))
    if policy == "strict-v1":
        caps = {"high": limit, "medium": config["recallMaxMedium"], "unknown": config["recallMaxUnknown"], "low": 0}
        counts = dict.fromkeys(caps, 0)
        chosen = []
        for card in kept:
            if counts[card.tier] < caps[card.tier]:
                counts[card.tier] += 1
                chosen.append(card)
        kept = chosen
    return kept[:limit]
