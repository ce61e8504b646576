"""`make bench`: every benchmark, each printing its figures beside a baseline from the same run."""

import platform

from bench.setup import django_on_temp_data

django_on_temp_data()

from bench import ingest, locomo, scale  # noqa: E402

print(f"machine: {platform.machine()}, {__import__('os').cpu_count()} cores, Python {platform.python_version()}")
print(locomo.report(locomo.run()), flush=True)
print(scale.report(scale.run()), flush=True)
print(ingest.report(ingest.run()), flush=True)
