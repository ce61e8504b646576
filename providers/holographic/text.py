"""Tokens and entity names for Holographic facts: plain rules, no model, the same on every machine."""

from __future__ import annotations

import re

STOPWORDS = frozenset("""
a an and are as at be been but by can could did do does for from had has have how i if in into is it its
me my no not of on or our she he so than that the their them then there these they this to was we were
what when where which who why will with would you your about after all also any before just more most
other over some such only own same very
""".split())

CAPITALISED = re.compile(r"\b([A-Z][a-z]+(?:\s+[A-Z][a-z]+)+)\b")
QUOTED = re.compile(r"\"([^\"]{2,60})\"|'([^']{2,60})'")
AKA = re.compile(r"\b([\w-]+)\s+(?:aka|also known as)\s+([\w-]+)", re.IGNORECASE)


def tokens(text: str) -> set[str]:
    return {t for t in re.findall(r"\w+", text.lower()) if len(t) > 1 and t not in STOPWORDS}


def entities(text: str) -> list[str]:
    """Capitalised multi-word names, quoted terms and both sides of "X aka Y", first seen first."""
    found: list[str] = []
    for match in CAPITALISED.finditer(text):
        found.append(match.group(1))
    for match in QUOTED.finditer(text):
        found.append(match.group(1) or match.group(2))
    for match in AKA.finditer(text):
        found.extend(match.groups())
    seen: set[str] = set()
    unique = []
    for name in (f.strip() for f in found):
        if name and name.lower() not in seen:
            seen.add(name.lower())
            unique.append(name)
    return unique


def jaccard(a: set[str], b: set[str]) -> float:
    return len(a & b) / len(a | b) if a and b else 0.0
