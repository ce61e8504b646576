"""Does a vault write's answer time tell a duplicate from a new text? (#31)

Writes to one native vault space through the agent API in process (Django's test client: no network noise),
alternating a byte-identical copy of a stored note with a note never written before, and prints the median
time of each and their difference. The code path is made identical (tests/test_vault_oracles.py checks the
statements); this measures what is left. `python -m bench.vault_timing [--rounds N]`.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

ROUNDS = 300


def run(rounds: int = ROUNDS) -> dict:
    from django.test import Client

    from memoryhub.agents.models import ApiToken
    from memoryhub.spaces.models import MemorySpace

    MemorySpace.objects.get_or_create(slug="timing-vault", defaults={"name": "Timing vault", "access": "vault"})
    _, raw = ApiToken.issue(name="timing-bench")
    client = Client(HTTP_HOST="127.0.0.1")
    headers = {"HTTP_AUTHORIZATION": f"Bearer {raw}"}

    def note(text: str) -> float:
        body = json.dumps({"session_id": "timing", "arguments": {"text": text, "space": "timing-vault"}})
        start = time.perf_counter()
        response = client.post("/api/v1/tools/memory_note", body, content_type="application/json", **headers)
        elapsed = time.perf_counter() - start
        assert response.status_code == 200, response.content
        return elapsed * 1000

    stored = "the treasure lies under oak 4711"
    note(stored)
    for n in range(20):  # warm caches before measuring
        note(f"warm-up {n}")
    duplicate, new = [], []
    for n in range(rounds):
        duplicate.append(note(stored))
        new.append(note(f"the treasure lies under oak {n:04d}x"))
    return {"rounds": rounds, "duplicate_ms": statistics.median(duplicate), "new_ms": statistics.median(new),
            "duplicate_p90": statistics.quantiles(duplicate, n=10)[-1], "new_p90": statistics.quantiles(new, n=10)[-1]}


def report(r: dict) -> str:
    diff = r["duplicate_ms"] - r["new_ms"]
    return (f"vault write timing ({r['rounds']} rounds each, in process): duplicate median {r['duplicate_ms']:.2f} ms "
            f"(p90 {r['duplicate_p90']:.2f}), new text median {r['new_ms']:.2f} ms (p90 {r['new_p90']:.2f}); "
            f"difference {diff:+.2f} ms")


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=ROUNDS)
    options = parser.parse_args()
    import os

    from bench.setup import django_on_temp_data

    os.environ["MEMORYHUB_RATE_LIMIT_PER_MINUTE"] = str(10**9)
    django_on_temp_data()
    print(report(run(options.rounds)))
