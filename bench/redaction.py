"""How much redaction catches, and what it wrongly changes: the table before #31 and today's, in one run.

Over bench/redaction_corpus.py: a secret is *caught* when no piece of it survives (no run of 6 characters, or
the whole of a shorter one), *partly* when some survives (a URL password's tail), *missed* when it all does;
an ordinary text that comes out changed is a *false positive*. `python -m bench.redaction [-v]` (-v lists
every miss and false positive); `make bench` runs it with the rest. It also times both tables on an ordinary
turn (what every write pays).

The held-out set was written after the table was extended. Its first run caught 28 of 30 secrets with 3 false
positives in 50 (a password "for the NAS is …", an English name glued to Chinese "的token:", and version numbers
written `version = '3.11.4.2'` or 版本 1.2.3.4 taken for IPv4 addresses); those three were fixed after it, so
its figures now are no longer unseen. What it still flags (`0.0.0.0`) is an IPv4 address, redacted by the rule.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

from bench import redaction_before
from bench.redaction_corpus import (HELD_OUT2_ORDINARY, HELD_OUT2_SECRETS, HELD_OUT_ORDINARY, HELD_OUT_SECRETS,
                                    ORDINARY, SECRETS)
from memoryhub.core import redaction

PIECE = 6
HELD_OUT2_FIRST_RUN = "caught 13/25 (52 %), missed 12; false positives 1/40 (\"Your password is case-sensitive.\")"


def survives(secret: str, text: str) -> str:
    """"whole", "piece" or "" — how much of `secret` is still in `text`."""
    if secret in text:
        return "whole"
    size = min(PIECE, len(secret))
    return "piece" if any(secret[i:i + size] in text for i in range(len(secret) - size + 1)) else ""


def score(redact: Callable[[str], object], secrets=SECRETS, ordinary=ORDINARY) -> dict:
    outcome = {"caught": [], "partly": [], "missed": [], "false_positive": [], "size": (len(secrets), len(ordinary))}
    started = time.perf_counter()
    for shape, text, parts in secrets:
        left = redact(text).text
        found = [survives(secret, left) for secret in parts]
        key = "caught" if not any(found) else "missed" if all(f == "whole" for f in found) else "partly"
        outcome[key].append((shape, text, left))
    for shape, text in ordinary:
        left = redact(text).text
        if left != text:
            outcome["false_positive"].append((shape, text, left))
    outcome["ms"] = (time.perf_counter() - started) * 1000
    return outcome


TURN = ("User: can you look at why the nightly import failed? It started at 02:00 and stopped after the third "
        "batch; the log says the connection was reset. 我们昨天也遇到过类似的问题，当时是因为数据库连接池满了，"
        "后来把 max_connections 调大就好了。\n\nAssistant: The importer retries three times and then gives up. "
        "I checked the job page: batch 3 of 12 failed at 02:14 with 'connection reset by peer'. The pool size is "
        "20 and the nightly run opens 24 connections, so raising max_connections to 40 (as you did last time) "
        "should fix it. 我已经把配置改好了，今晚会再跑一次，明早我们看一下结果。") * 3


def per_turn_us(redact: Callable[[str], object], rounds: int = 300) -> float:
    """Microseconds the table takes over one ordinary turn of about 2 KB (no secrets), best of three runs."""
    best = float("inf")
    for _ in range(3):
        started = time.perf_counter()
        for _ in range(rounds):
            redact(TURN)
        best = min(best, (time.perf_counter() - started) / rounds * 1e6)
    return best


def run() -> dict:
    held_out = {"secrets": HELD_OUT_SECRETS, "ordinary": HELD_OUT_ORDINARY}
    held_out2 = {"secrets": HELD_OUT2_SECRETS, "ordinary": HELD_OUT2_ORDINARY}
    return {"before": score(redaction_before.redact), "after": score(redaction.redact),
            "held-out before": score(redaction_before.redact, **held_out),
            "held-out after": score(redaction.redact, **held_out),
            "held-out 2 before": score(redaction_before.redact, **held_out2),
            "held-out 2 after": score(redaction.redact, **held_out2),
            "turn_us": {"before": per_turn_us(redaction_before.redact), "after": per_turn_us(redaction.redact)}}


def report(results: dict, verbose: bool = False) -> str:
    lines = [f"redaction: secrets and ordinary text (English, Chinese, code); the table before #31 and today's. "
             f"Corpus: {len(SECRETS)} secrets, {len(ORDINARY)} ordinary texts; held out (written after the table "
             f"changed; its first run caught 28/30 with 3 false positives, three fixes followed): "
             f"{len(HELD_OUT_SECRETS)} and {len(HELD_OUT_ORDINARY)}"]
    for name in ("before", "after", "held-out before", "held-out after", "held-out 2 before", "held-out 2 after"):
        r = results[name]
        secrets, ordinary = r["size"]
        lines.append(f"  {name:15}  caught {len(r['caught'])}/{secrets} ({100 * len(r['caught']) / secrets:.0f} %), "
                     f"partly {len(r['partly'])}, missed {len(r['missed'])}; false positives "
                     f"{len(r['false_positive'])}/{ordinary} ({100 * len(r['false_positive']) / ordinary:.0f} %); "
                     f"{r['ms']:.1f} ms for the corpus")
        if verbose:
            for key in ("missed", "partly", "false_positive"):
                lines += [f"      {key}: [{shape}] {text!r} -> {left!r}" for shape, text, left in r[key]]
    lines.append(f"  held-out 2 ({len(HELD_OUT2_SECRETS)} secrets and {len(HELD_OUT2_ORDINARY)} ordinary texts, "
                 f"plain-word passwords and prose about passwords) against the table at the start of the 2026-12-04 "
                 f"session: {HELD_OUT2_FIRST_RUN}")
    lines.append(f"  an ordinary {len(TURN)}-character turn: {results['turn_us']['before']:.0f} µs before, "
                 f"{results['turn_us']['after']:.0f} µs after (best of 3, shared machine)")
    return "\n".join(lines)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("-v", "--verbose", action="store_true")
    print(report(run(), parser.parse_args().verbose))
