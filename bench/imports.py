"""History import at a realistic size: every format people bring (bench/history.py builds each from a seed, at
1,200 turns or memories), read and written into a fresh native space through the write gateway, then imported again
(which must add nothing). Beside them, the baseline: the same number of drafts handed to gateway.write_many directly,
the write path's own cost without any reading.

`python -m bench.imports [--turns N]` runs it alone; `make bench` runs it with the others. Rates are per second of
wall time on this machine (the worker's enrichment is not included: jobs queue for a worker here, as in production).
"""

from __future__ import annotations

import argparse
import json
import shutil
import tempfile
import time
from pathlib import Path

SESSIONS = 60


def _inputs(root: Path, turns: int) -> dict[str, tuple[Path, int]]:
    """format -> (its input, how many entries it must add)."""
    from bench import history

    per = max(1, turns // SESSIONS)
    total = per * SESSIONS
    chatgpt = root / "chatgpt" / "conversations.json"
    chatgpt.parent.mkdir(parents=True)
    chatgpt.write_text(json.dumps(history.chatgpt_conversations(conversations=SESSIONS, turns=per)))
    claude = root / "claude.zip"
    history.zip_of(claude, {"conversations.json": json.dumps(
        history.claude_ai_conversations(conversations=SESSIONS, turns=per)).encode(), "users.json": b"[]"})
    mem0 = root / "mem0.json"
    mem0.write_text(json.dumps(history.mem0_memories(memories=total)))
    letta = root / "letta.json"
    letta.write_text(json.dumps(history.letta_passages(passages=total)))
    return {
        "claude_code": (history.claude_code_project(root / "projects", sessions=SESSIONS, turns=per), total),
        "codex": (history.codex_sessions(root / "codex", sessions=SESSIONS, turns=per), total),
        "chatgpt": (chatgpt, total),
        "claude_ai": (claude, total),
        "turns": (history.turns_file(root / "turns.jsonl", sessions=SESSIONS, turns=per), total),
        "mem0": (mem0, total),
        "openmemory": (history.openmemory_zip(root / "openmemory.zip", memories=total + 1), total),  # one is deleted
        "letta": (letta, total),
    }


def _size(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file()) if path.is_dir() else path.stat().st_size


def _import(slug: str, path: Path, expected: int) -> dict:
    from memoryhub.memories.maintenance import importers
    from memoryhub.spaces.models import MemorySpace

    space = MemorySpace.objects.create(slug=slug, name=slug)
    started = time.perf_counter()
    batch = importers.load(path)
    read = time.perf_counter() - started
    started = time.perf_counter()
    result = importers.run(space, batch, actor="bench")
    wrote = time.perf_counter() - started
    if result["added"] != expected or result["error_count"]:
        raise RuntimeError(f"{slug}: added {result['added']} of {expected}, errors {result['errors'][:3]}")
    started = time.perf_counter()
    again = importers.run(space, importers.load(path), actor="bench")
    again_s = time.perf_counter() - started
    if again["added"]:
        raise RuntimeError(f"{slug}: a second import added {again['added']}")
    return {"format": slug, "bytes": _size(path), "added": result["added"], "read_s": read, "write_s": wrote,
            "rate": result["added"] / (read + wrote), "again_s": again_s}


def _open_export(root: Path, source_slug: str, expected: int) -> dict:
    """The open export of one imported space, imported into another: the restore path, and the export's own rate."""
    from memoryhub.memories.maintenance import open_export
    from memoryhub.spaces.models import MemorySpace

    path = root / "export.jsonl"
    started = time.perf_counter()
    path.write_text("".join(open_export.jsonl([MemorySpace.objects.get(slug=source_slug)])), encoding="utf-8")
    exported = time.perf_counter() - started
    row = _import("memoryhub", path, expected)
    return {**row, "export_s": exported}


def _baseline(n: int) -> dict:
    """n turn drafts straight into gateway.write_many, 100 at a time: the write path alone."""
    import random

    from bench import history
    from memoryhub.memories.models import Kind
    from memoryhub.memories.write import gateway
    from memoryhub.spaces.models import MemorySpace

    space = MemorySpace.objects.create(slug="baseline", name="baseline")
    pairs = history.exchanges(random.Random(9), n)
    started = time.perf_counter()
    for start in range(0, n, 100):
        gateway.write_many([(space, gateway.Draft(kind=Kind.TURN, user=u, assistant=a, session_id=f"s{i // 20}",
                                                  idempotency_key=f"b{i}"))
                            for i, (u, a) in enumerate(pairs[start:start + 100], start)], actor="bench")
    seconds = time.perf_counter() - started
    return {"format": "baseline: write_many", "bytes": 0, "added": n, "read_s": 0.0, "write_s": seconds,
            "rate": n / seconds, "again_s": 0.0}


def run(turns: int = 1200) -> list[dict]:
    root = Path(tempfile.mkdtemp(prefix="memoryhub-imports-"))
    try:
        inputs = _inputs(root, turns)
        rows = [_baseline(inputs["turns"][1])]
        for fmt, (path, expected) in inputs.items():
            rows.append(_import(fmt, path, expected))
        rows.append(_open_export(root, "claude_code", inputs["claude_code"][1]))
        return rows
    finally:
        shutil.rmtree(root, ignore_errors=True)


def report(rows: list[dict]) -> str:
    lines = ["history import (each format into a fresh native space, then again: the second adds nothing)",
             "format                  input     added   read s  write s   entries/s   again s"]
    for r in rows:
        size = f"{r['bytes'] / 1e6:6.2f} MB" if r["bytes"] else "        —"
        lines.append(f"{r['format']:<22} {size} {r['added']:>8} {r['read_s']:8.2f} {r['write_s']:8.2f} "
                     f"{r['rate']:11.0f} {r['again_s']:9.2f}")
    exported = next((r for r in rows if "export_s" in r), None)
    if exported:
        lines.append(f"open export of {exported['added']} entries written in {exported['export_s']:.2f} s")
    return "\n".join(lines)


if __name__ == "__main__":
    from bench.setup import django_on_temp_data

    parser = argparse.ArgumentParser()
    parser.add_argument("--turns", type=int, default=1200)
    options = parser.parse_args()
    django_on_temp_data("memoryhub-bench-imports-")
    print(report(run(options.turns)))
