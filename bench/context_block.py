"""What the agent is given: LoCoMo's context metric (../shared/bench/README.md) and its two baselines.

For each answerable question the real `/api/v1/context` answers over HTTP (Django's full stack, one
token, the default budget). The block is normalised (lower case, every non-word character to a
space); *answer-in-context* asks whether the normalised gold answer is a substring of it, *evidence
seen* what share of the question's evidence turns have their first six content words (tokens longer
than one character) in a row in it (as written, and among the block's content words: see evidence_seen). Baselines from the same run: the bench's plain BM25 with its
ranked turns packed as `- <session date> · <speaker>: <text>` lines into the same budget, and the
oracle (the evidence turns with their session dates).
"""

from __future__ import annotations

import io
import json
import re
import time

BUDGET = 2600
EVIDENCE_WORDS = 6
_NON_WORD = re.compile(r"\W+")


def normalise(text: str) -> str:
    return _NON_WORD.sub(" ", str(text).lower()).strip()


def answer_in(block: str, answer) -> bool:
    gold = normalise(answer)
    return bool(gold) and gold in normalise(block)


def content_words(text: str) -> list[str]:
    return [w for w in normalise(text).split() if len(w) > 1]


def evidence_seen(block: str, evidence_texts: list[str | None], *, strict: bool = True) -> float:
    """The share of evidence turns whose first six content words appear in a row in the normalised block.

    `strict` (the definition as written, which reproduces the reference figures): the six words joined by
    single spaces occur in the normalised block, so a one-letter word between them ("I", "a") in the block
    breaks the row even when the turn is shown word for word; the oracle itself scores about 0.52 so.
    Otherwise the row is looked for among the block's own content words. A missing turn counts as unseen.
    """
    if not evidence_texts:
        return 0.0
    words = f" {normalise(block) if strict else ' '.join(content_words(block))} "
    seen = 0
    for text in evidence_texts:
        head = content_words(text or "")[:EVIDENCE_WORDS]
        if head and f" {' '.join(head)} " in words:
            seen += 1
    return seen / len(evidence_texts)


def packed(lines: list[str], budget: int = BUDGET) -> str:
    """Lines best first while they fit in `budget` characters (a line that does not fit is skipped)."""
    kept: list[str] = []
    used = 0
    for line in lines:
        extra = len(line) + (1 if kept else 0)
        if used + extra <= budget:
            kept.append(line)
            used += extra
    return "\n".join(kept)


def turn_line(session_date: str, speaker: str, text: str) -> str:
    return f"- {session_date} · {speaker}: {text}"


class ContextClient:
    """POST /api/v1/context through Django's whole stack with a token made by `manage.py issue_token`."""

    def __init__(self):
        from django.core.management import call_command
        from django.test import Client

        out = io.StringIO()
        call_command("issue_token", "--name", "locomo-bench", stdout=out, stderr=io.StringIO())
        self.client = Client(HTTP_HOST="127.0.0.1", HTTP_AUTHORIZATION=f"Bearer {out.getvalue().split()[-1]}")
        self.calls = 0

    def block(self, space_slug: str, query: str, latencies: list[float]) -> str:
        self.calls += 1
        body = json.dumps({"session_id": f"locomo-{self.calls}", "query": query, "space": space_slug})
        started = time.perf_counter()
        response = self.client.post("/api/v1/context", body, content_type="application/json")
        latencies.append((time.perf_counter() - started) * 1000)
        if response.status_code != 200:
            raise RuntimeError(f"/context answered {response.status_code}: {response.content[:300]!r}")
        return response.json()["text"]
