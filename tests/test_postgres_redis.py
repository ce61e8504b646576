"""Scale-out: a job runs end to end through django-q2's Redis broker (and PostgreSQL when DATABASE_URL says so)."""

import json
import os

import pytest

from tests.procs import hub_env, in_django, manage, qcluster

pytestmark = pytest.mark.skipif(not os.environ.get("REDIS_URL"), reason="needs a Redis server (REDIS_URL)")


def test_a_job_runs_through_redis_and_the_worker(tmp_path):
    with hub_env(tmp_path) as env:
        manage(env, "migrate", "--noinput", "-v0")
        with qcluster(env, tmp_path / "qcluster.log"):
            out = in_django(env, """
import json
from django.db import connection
from django_q.brokers import get_broker
from django_q.models import OrmQ
from memoryhub.jobs.runner import enqueue
from tests.jobwatch import wait_for
job = wait_for(enqueue("selftest", params={"steps": 3}), "succeeded")
print(json.dumps({"broker": type(get_broker()).__name__, "orm_queue": OrmQ.objects.count(),
                  "vendor": connection.vendor, "result": job.result}))
""")
    seen = json.loads(out.strip().splitlines()[-1])
    assert seen["broker"] == "Redis" and seen["orm_queue"] == 0 and seen["result"] == {"steps": 3}
    assert seen["vendor"] == ("postgresql" if os.environ.get("DATABASE_URL", "").startswith("postgres") else "sqlite")
