"""Facts a user states about themselves (../shared/bench/facts/README.md), through the real API.

Each statement goes into a native space of its own (`POST /api/v1/spaces`) as the user side of one turn
(`POST /api/v1/turns`, assistant "OK.", no model configured); the space's active facts are then read with
`memory_facts` (`action: list`), and only facts whose subject is the user count. An expected
`[family, token]` is matched by an unused active, non-negative fact with that family's predicate whose value
contains the token (case-insensitive); `dislike` is also matched by a negative `preference`/`like` fact.
Recall = matched / expected, precision = matched / user facts produced, negatives with a fact = statements
expecting nothing that produced a user fact / such statements.

Run on the dev set (../shared/bench/facts/facts_dev.jsonl) and on our own held-out set (bench/data/), written
before the patterns and never the source of one. `python bench/facts.py [--misses]` runs it alone; with
PYTHONPATH pointing at another checkout first (`PYTHONPATH=/path/to/main python bench/facts.py`) it measures
that checkout's code with this bench.
"""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
DEV = HERE.parent.parent / "shared" / "bench" / "facts" / "facts_dev.jsonl"
HELDOUT = HERE / "data" / "facts_heldout.jsonl"
PROBE = HERE / "data" / "facts_probe.jsonl"

# family -> the predicates that count for it (the README's table: the first name, then its aliases)
FAMILIES = {
    "name": ("name",), "nickname": ("nickname",), "location": ("location",), "hometown": ("hometown",),
    "job": ("job", "role", "occupation"), "employer": ("employer",), "education": ("education",),
    "spouse": ("spouse",), "partner": ("partner",), "child": ("child",), "parent": ("parent",),
    "sibling": ("sibling",), "pet": ("pet",), "allergy": ("allergy",), "diet": ("diet",), "health": ("health",),
    "like": ("preference", "like", "favorite"), "dislike": ("dislike",), "language": ("language",),
    "birthday": ("birthday",), "age": ("age",), "skill": ("skill",), "habit": ("habit",), "goal": ("goal",),
    "owns": ("owns",), "trait": ("trait", "personality"),
}
NEGATIVE_DISLIKE = ("preference", "like")


def load(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def matches(family: str, token: str, fact: dict) -> bool:
    value = str(fact.get("value", "")).casefold()
    if token.casefold() not in value:
        return False
    negative = bool(fact.get("negative"))
    if family == "dislike" and negative and fact.get("predicate") in NEGATIVE_DISLIKE:
        return True
    return not negative and fact.get("predicate") in FAMILIES[family]


def score(statements: list[dict], facts_of) -> dict:
    """The README's three figures over `statements`; `facts_of(text)` answers the user facts one statement left."""
    expected = matched = produced = negatives = negatives_with_fact = 0
    misses: list[str] = []
    extras: list[str] = []
    for statement in statements:
        facts = [f for f in facts_of(statement["text"]) if f.get("subject", "user") == "user"]
        produced += len(facts)
        unused = list(facts)
        if not statement["expect"]:
            negatives += 1
            negatives_with_fact += bool(facts)
        for family, token in statement["expect"]:
            expected += 1
            found = next((f for f in unused if matches(family, token, f)), None)
            if found is None:
                misses.append(f"{statement['text']}  expected {family}~{token!r}")
            else:
                matched += 1
                unused.remove(found)
        extras += [f"{statement['text']}  gave {f['predicate']}={f['value']!r}{' (negative)' if f.get('negative') else ''}"
                   for f in unused]
    return {"statements": len(statements), "expected": expected, "matched": matched, "produced": produced,
            "recall": matched / expected if expected else 0.0, "precision": matched / produced if produced else 0.0,
            "negatives": negatives, "negatives_with_fact": negatives_with_fact / negatives if negatives else 0.0,
            "misses": misses, "extras": extras}


class FactsClient:
    """A space per statement, one turn, then memory_facts — POSTs through Django's whole stack with one token."""

    def __init__(self, prefix: str):
        from django.core.management import call_command
        from django.test import Client

        out = io.StringIO()
        call_command("issue_token", "--name", f"facts-bench-{prefix}", stdout=out, stderr=io.StringIO())
        self.client = Client(HTTP_HOST="127.0.0.1", HTTP_AUTHORIZATION=f"Bearer {out.getvalue().split()[-1]}")
        self.prefix = prefix
        self.count = 0

    def post(self, path: str, body: dict) -> dict:
        response = self.client.post(f"/api/v1/{path}", json.dumps(body), content_type="application/json")
        if response.status_code not in (200, 201):
            raise RuntimeError(f"{path} answered {response.status_code}: {response.content[:300]!r}")
        return response.json()

    def __call__(self, text: str) -> list[dict]:
        self.count += 1
        slug = f"{self.prefix}-{self.count}"
        self.post("spaces", {"slug": slug, "name": f"facts statement {self.count}"})
        self.post("turns", {"session_id": slug, "user": text, "assistant": "OK.", "space": slug})
        listed = self.post("tools/memory_facts", {"session_id": slug, "arguments": {"action": "list", "space": slug}})
        return listed["result"]["facts"]


def run() -> dict:
    return {name: score(load(path), FactsClient(name)) for name, path in (("dev", DEV), ("heldout", HELDOUT), ("probe", PROBE))
            if path.exists()}


def report(result: dict, misses: bool = False) -> str:
    lines = ["facts users state about themselves (../shared/bench/facts/README.md, one space per statement, "
             "POST /turns then memory_facts list; targets recall >= 0.80, precision >= 0.90, "
             "negatives with a fact <= 5 %)",
             f"  {'set':<9} {'statements':>10} {'recall':>14} {'precision':>16} {'negatives with a fact':>22}"]
    for name, r in result.items():
        lines.append(f"  {name:<9} {r['statements']:>10} {r['recall']:>6.2f} ({r['matched']:>3}/{r['expected']:<3})"
                     f" {r['precision']:>6.2f} ({r['matched']:>3}/{r['produced']:<3})"
                     f" {r['negatives_with_fact']:>8.0%} of {r['negatives']}")
    if misses:
        for name, r in result.items():
            lines += [f"  {name} missed: {m}" for m in r["misses"]] + [f"  {name} extra: {e}" for e in r["extras"]]
    return "\n".join(lines)


if __name__ == "__main__":
    sys.path.append(str(HERE.parent))  # after PYTHONPATH: another checkout named there is the one measured
    from bench.setup import django_on_temp_data

    django_on_temp_data("memoryhub-facts-bench-")
    print(report(run(), misses="--misses" in sys.argv))
