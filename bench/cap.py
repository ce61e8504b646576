"""The maxEntries cap's cost per write: a space far over its cap (a bulk load, an import, a lowered cap) and one at it.

Each case writes WRITES notes through the write gateway into a seeded space and times each write, beside the same
writes into a space without a cap (the baseline of the same run). For the space over its cap it also reports what
the cap archived during the writes and afterwards on the worker (its catch-up job), and how long that took.

    .venv/bin/python -m bench.cap [--entries 100000] [--writes 200]

Timings depend on the machine (and on a shared one, on its neighbours).
"""

from __future__ import annotations

import argparse
import time

from bench.setup import django_on_temp_data

WRITES = 200


def run(entries: int = 100_000, writes: int = WRITES) -> list[dict]:
    from memoryhub.memories.models import Entry
    from memoryhub.spaces.models import MemorySpace

    from bench import synthetic

    rows = []
    for label, size, cap in (("no cap (baseline)", entries, 0), ("5x over its cap", entries, entries // 5),
                             ("at its cap", entries // 5, entries // 5)):
        space = MemorySpace.objects.create(slug=f"cap-{len(rows)}", name=label, settings={"maxEntries": cap})
        synthetic.seed_space(space, size, seed=len(rows) + 1)
        before = Entry.objects.recallable().filter(space=space).count()
        samples = _writes(space, writes)
        during = before + writes - Entry.objects.recallable().filter(space=space).count()
        started = time.perf_counter()
        jobs = _worker(space)
        catch_up = time.perf_counter() - started
        after = Entry.objects.recallable().filter(space=space).count()
        rows.append({"case": label, "entries": size, "cap": cap, "p50": _pct(samples, 0.5), "p95": _pct(samples, 0.95),
                     "total_s": sum(samples) / 1000, "archived_during": during, "jobs": jobs,
                     "catch_up_s": catch_up, "recallable_after": after})
    return rows


def _writes(space, count: int) -> list[float]:
    from memoryhub.memories.write import gateway

    samples = []
    for i in range(count):
        draft = gateway.Draft(title=f"cap bench note {i}", body=f"a note written past the cap, number {i}")
        started = time.perf_counter()
        gateway.write(space, draft)
        samples.append((time.perf_counter() - started) * 1000)
    return samples


def _worker(space) -> int:
    """Run what the writes queued for the space's cap, as the worker would; how many jobs that was."""
    from memoryhub.jobs import runner
    from memoryhub.jobs.models import Job

    ran = 0
    for job in Job.objects.filter(space=space, kind="enforce_cap", status=Job.Status.QUEUED):
        runner.execute(job.pk)
        ran += 1
    return ran


def _pct(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(len(ordered) * q))]


def report(rows: list[dict]) -> str:
    lines = ["maxEntries cap, per write (ms) and the worker's catch-up",
             f"{'case':<20} {'entries':>8} {'cap':>7} {'p50':>8} {'p95':>8} {'writes s':>9} {'archived':>9} "
             f"{'jobs':>5} {'catch-up s':>11} {'recallable':>11}"]
    for r in rows:
        lines.append(f"{r['case']:<20} {r['entries']:>8} {r['cap']:>7} {r['p50']:>8.1f} {r['p95']:>8.1f} "
                     f"{r['total_s']:>9.1f} {r['archived_during']:>9} {r['jobs']:>5} {r['catch_up_s']:>11.1f} "
                     f"{r['recallable_after']:>11}")
    return "\n".join(lines)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entries", type=int, default=100_000)
    parser.add_argument("--writes", type=int, default=WRITES)
    args = parser.parse_args()
    django_on_temp_data("memoryhub-bench-cap-")
    print(report(run(args.entries, args.writes)), flush=True)
