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


def test_the_rate_limit_holds_across_web_nodes_through_redis(tmp_path):
    """Two web nodes (each its own data dir, so its own machine-local windows) on one database and one Redis."""
    from tests.procs import web_node
    from tests.test_rate_limit import fresh_minute, get_spaces

    with hub_env(tmp_path / "a") as env:
        env["MEMORYHUB_RATE_LIMIT_PER_MINUTE"] = "6"
        if "DATABASE_URL" not in env:  # SQLite: the second node opens the first node's database file
            env["DATABASE_URL"] = f"sqlite:///{tmp_path / 'a' / 'memoryhub.sqlite3'}"
        manage(env, "migrate", "--noinput", "-v0")
        token = manage(env, "issue_token", "--name", "bot").strip().splitlines()[-1]
        other = {**env, "MEMORYHUB_DATA_DIR": str(tmp_path / "b")}
        with web_node(env, tmp_path / "a.log") as a, web_node(other, tmp_path / "b.log") as b:
            fresh_minute()
            statuses = [get_spaces(base, token)[0] for base in (a, b, a, b, a, b)]
            refused = [get_spaces(a, token), get_spaces(b, token)]
    assert statuses == [200] * 6
    assert all(status == 429 and body["error"]["code"] == "rate_limited" and 1 <= int(retry) <= 60
               for status, body, retry in refused)
    # Counted on Redis alone: neither node needed its machine's windows.
    assert not any((tmp_path / node / "state" / "rate-windows").exists() for node in ("a", "b"))
