"""`make bench`: every benchmark, each printing its figures beside a baseline from the same run."""

from bench.setup import django_on_temp_data

django_on_temp_data()

from bench import locomo  # noqa: E402

print(locomo.report(locomo.run()))
