"""`make bench`: every benchmark, each printing its figures beside a baseline from the same run."""

import platform

from bench.setup import django_on_temp_data

django_on_temp_data()

from bench import cap, facts, imports, ingest, locomo, redaction, scale  # noqa: E402


def speed_ms() -> float:
    """The machine's single-core speed at this moment, as a yardstick between runs."""
    import timeit

    return min(timeit.repeat("sum(range(10**6))", number=10, repeat=5)) / 10 * 1000


print(f"machine: {platform.machine()}, {__import__('os').cpu_count()} cores, Python {platform.python_version()}; "
      f"speed now: sum(range(10**6)) takes {speed_ms():.1f} ms (on a shared machine it drifts: compare runs by it)")
print(redaction.report(redaction.run()), flush=True)
print(locomo.report(locomo.run()), flush=True)
print(locomo.report(locomo.run(data=locomo.CHINESE, slug="zh"), title="Chinese conversation (bench/data/locomo_zh.json)"),
      flush=True)
print(facts.report(facts.run()), flush=True)
print(scale.report(scale.run()), flush=True)
print(cap.report(cap.run()), flush=True)
print(ingest.report(ingest.run(reads=True)), flush=True)
print(imports.report(imports.run()), flush=True)
