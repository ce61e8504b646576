"""Faults: providers that hang, fail or babble, a worker killed mid-job, and concurrent writers on one file."""

import json
import threading

import pytest

from memoryhub.memories.models import Entry, RemoteWrite
from memoryhub.spaces.models import MemorySpace
from memoryhub.spaces.provider_services import save_service
from providers.registry import get_provider_class
from tests.procs import hub_env, in_django, load, migrate, on_postgres, qcluster
from tests.providers.fakes.hindsight import FakeHindsight
from tests.providers.fakes.honcho import HonchoFake
from tests.providers.fakes.mem0 import Mem0Fake
from tests.providers.fakes.openviking import FakeOpenViking
from tests.providers.fakes.retaindb import RetainDBFake
from tests.providers.fakes.supermemory import SupermemoryFake

TIMEOUT = 0.5  # the fakes' "slow" answers after 3 s: only a client that gives up at its timeout answers 504

# kind: (fake server, its config: service fields go to the service, the rest to the space)
FAKES = {
    "mem0": (Mem0Fake, lambda f: {"apiKey": f.api_key, "mode": "self-hosted", "userId": "alice"}),
    "honcho": (HonchoFake, lambda f: {"apiKey": f.api_key, "workspace": "hub", "userId": "alice",
                                      "agentId": "assistant"}),
    "retaindb": (RetainDBFake, lambda f: {"apiKey": f.api_key, "project": "hub", "userId": "alice"}),
    "supermemory": (SupermemoryFake, lambda f: {"apiKey": f.api_key, "containerTag": "hub"}),
    "openviking": (FakeOpenViking, lambda f: {"apiKey": "key-alice", "account": "acme", "discoveryUser": "alice"}),
    "hindsight": (FakeHindsight, lambda f: {"apiKey": "hs-secret", "bankId": "demo"}),
}
FAULT_CODES = {"slow": (504, "provider_timeout"), "error500": (502, "provider_error"),
               "disconnect": (502, "provider_error"), "malformed": (502, "provider_error"),
               "huge": (502, "provider_error")}


@pytest.fixture(params=sorted(FAKES))
def remote(request, api, settings):
    """A space named `remote` on a live fake provider server, configured as a person would."""
    settings.MEMORYHUB = {**settings.MEMORYHUB, "PROVIDER_TIMEOUT": TIMEOUT, "PROVIDER_MAX_BYTES": 64 * 1024}
    kind = request.param
    server_cls, config_of = FAKES[kind]
    server = server_cls()
    config = {"endpoint": server.url, **config_of(server)}
    service_keys = {f.key for f in get_provider_class(kind).service_fields}
    save_service(kind, {k: v for k, v in config.items() if k in service_keys})
    made = api.post("spaces", {"slug": "remote", "name": "Remote", "provider": kind,
                               "config": {k: v for k, v in config.items() if k not in service_keys}})
    assert made.status_code == 201, made.json()
    yield server
    server.set_fault(None)
    server.stop()


@pytest.mark.parametrize("fault", sorted(FAULT_CODES))
def test_a_failing_provider_write_is_a_clear_bounded_error_kept_locally_and_native_memory_still_works(api, remote, fault):
    api.tool("memory_note", text="the native space keeps working")
    remote.set_fault(fault)
    response = api.tool("memory_save", category="fact", title="t", body="to the remote", space="remote")
    status, code = FAULT_CODES[fault]
    assert (response.status_code, response.json().get("error", {}).get("code")) == (status, code), response.json()
    assert "Traceback" not in response.content.decode()
    assert "127.0.0.1" not in response.content.decode()  # the provider's address is for people, not agents
    kept = RemoteWrite.objects.get(space__slug="remote")
    assert kept.body == "to the remote" and kept.state in ("failed", "unknown") and kept.error
    assert MemorySpace.objects.get(slug="remote").last_error
    turn = api.turn("after the provider failed, turns still land natively")
    assert turn.status_code == 201
    assert Entry.objects.live().count() == 2


@pytest.mark.parametrize("fault", sorted(FAULT_CODES))
def test_one_failing_provider_never_breaks_reads_across_spaces(api, remote, fault):
    api.turn("we chose PostgreSQL for the warehouse")
    remote.set_fault(fault)
    found = api.tool("memory_search", query="postgresql warehouse")
    assert found.status_code == 200
    spaces = {r["space"] for r in found.json()["result"]["results"]}
    assert spaces and "remote" not in spaces
    code = FAULT_CODES[fault][1]  # a slow provider is left out at its timeout, a broken one for its error
    assert [(w["space"], w["code"]) for w in found.json()["result"]["warnings"]] == [("remote", code)]
    context = api.post("context", {"session_id": "s1", "query": "postgresql warehouse"})
    assert context.status_code == 200 and "PostgreSQL" in context.json()["text"]
    assert [(w["space"], w["code"]) for w in context.json()["warnings"]] == [("remote", code)]


@pytest.mark.parametrize("fault", ["slow", "error500"])
def test_an_explicit_search_of_a_failing_provider_is_a_clear_error(api, remote, fault):
    remote.set_fault(fault)
    found = api.tool("memory_search", query="anything", space="remote")
    status, code = FAULT_CODES[fault]
    assert (found.status_code, found.json()["error"]["code"]) == (status, code)


def test_a_provider_that_recovers_serves_again(api, remote):
    remote.set_fault("error500")
    assert api.tool("memory_save", category="fact", title="t", body="x", space="remote").status_code == 502
    remote.set_fault(None)
    assert api.tool("memory_save", category="fact", title="t", body="after recovery", space="remote").status_code == 200


@pytest.mark.django_db
def test_a_job_whose_worker_was_killed_fails_when_a_worker_spawns_and_its_retry_runs():
    """The short version of the qcluster run below: a job left running by a process killed with SIGKILL (its
    heartbeat still fresh) fails as soon as django-q2 announces a new worker (post_spawn), and a retry runs."""
    import os
    import signal
    import socket
    import subprocess
    import sys

    from django.utils import timezone
    from django_q.signals import post_spawn

    from memoryhub.jobs import runner
    from memoryhub.jobs.models import Job

    victim = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
    job = Job.objects.create(kind="selftest", params={"steps": 2}, status="running", started_at=timezone.now(),
                             heartbeat_at=timezone.now(), worker=f"{socket.gethostname()}:{victim.pid}")
    os.kill(victim.pid, signal.SIGKILL)
    victim.wait(30)
    post_spawn.send(sender="django_q", proc_name="Process-1:2")
    job.refresh_from_db()
    assert job.status == "failed" and "worker stopped" in job.error
    again = runner.retry(job)
    again.refresh_from_db()
    assert again.status == "succeeded" and again.result == {"steps": 2}


@load
def test_a_worker_killed_mid_job_is_marked_failed_and_the_retry_succeeds(tmp_path):
    """SIGKILL the worker process running a job: its replacement fails the orphan, and a retry runs."""
    with hub_env(tmp_path) as env:
        migrate(env)
        with qcluster(env, tmp_path / "qcluster.log"):
            out = in_django(env, """
import json, os, signal
from memoryhub.jobs import runner
from tests.jobwatch import wait_for
job = wait_for(runner.enqueue("selftest", params={"steps": 12, "pause": 0.5}), "running", progress=10)
os.kill(int(job.worker.rsplit(":", 1)[1]), signal.SIGKILL)
dead = wait_for(job, "failed")
again = wait_for(runner.retry(dead), "succeeded")
print(json.dumps({"error": dead.error, "retry": again.status, "steps": again.result["steps"]}))
""", timeout=180)
    seen = json.loads(out.strip().splitlines()[-1])
    assert "worker stopped" in seen["error"] and seen["retry"] == "succeeded" and seen["steps"] == 12


@pytest.mark.skipif(on_postgres(), reason="SQLite's file locking; PostgreSQL has row locks")
def test_concurrent_writers_on_one_sqlite_file_all_land(tmp_path):
    """Two processes × four threads write 80 turns through the API at once: busy waits retry, nothing is lost."""
    with hub_env(tmp_path) as env:
        migrate(env)
        writer = """
import json, threading
from django.test import Client
from memoryhub.agents.models import ApiToken
_, raw = ApiToken.issue(name="writer-{n}")
statuses = []
def run(t):
    client = Client()
    for i in range(10):
        r = client.post("/api/v1/turns", json.dumps({{"session_id": "w{n}-" + str(t), "user": f"writer {n} thread {{t}} turn {{i}}", "assistant": "ok"}}),
                        content_type="application/json", HTTP_HOST="localhost", HTTP_AUTHORIZATION="Bearer " + raw)
        statuses.append(r.status_code)
threads = [threading.Thread(target=run, args=(t,)) for t in range(4)]
[t.start() for t in threads]
[t.join() for t in threads]
print(json.dumps(statuses))
"""
        results: list = []
        procs = [threading.Thread(target=lambda n=n: results.append(in_django(env, writer.format(n=n), timeout=240)))
                 for n in range(2)]
        for p in procs:
            p.start()
        for p in procs:
            p.join()
        statuses = [s for out in results for s in json.loads(out.strip().splitlines()[-1])]
        count = in_django(env, "from memoryhub.memories.models import Entry\nprint(Entry.objects.filter(kind='turn').count())")
    assert statuses == [201] * 80
    assert int(count.strip().splitlines()[-1]) == 80


@pytest.mark.skipif(on_postgres(), reason="SQLite's file locking; PostgreSQL has row locks")
@pytest.mark.django_db(transaction=True)
def test_a_write_queues_behind_another_process_holding_the_writer_lock():
    """Writers of every process take turns on the lock file beside the database, not in SQLite's busy handler."""
    import subprocess
    import sys

    from django.db import connection

    from memoryhub.memories.write import gateway

    space = MemorySpace.objects.create(slug="queue", name="queue")
    holder = subprocess.Popen(
        [sys.executable, "-c", "import fcntl, os, sys\n"
         f"fd = os.open({str(connection.settings_dict['NAME']) + '.writer-lock'!r}, os.O_RDWR | os.O_CREAT)\n"
         "fcntl.flock(fd, fcntl.LOCK_EX)\nprint('held', flush=True)\nsys.stdin.readline()\n"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        writer = threading.Thread(target=lambda: gateway.write(space, gateway.Draft(title="queued", body="queued write")))
        writer.start()
        writer.join(timeout=1.0)
        assert writer.is_alive()  # waiting for the other process, not writing beside it
        assert not Entry.objects.filter(space=space).exists()
    finally:
        holder.communicate("\n", timeout=30)
    writer.join(timeout=30)
    assert Entry.objects.filter(space=space, title="queued").count() == 1


@pytest.fixture
def tarpit_space(api, settings):
    """A Mem0 space whose server accepts connections and never answers; a long provider timeout, a short
    read deadline, so only the deadline can bound a read."""
    from tests.providers.fakes.tarpit import Tarpit

    settings.MEMORYHUB = {**settings.MEMORYHUB, "PROVIDER_TIMEOUT": 30, "REMOTE_READ_DEADLINE": 0.5}
    tarpit = Tarpit()
    save_service("mem0", {"endpoint": tarpit.url, "apiKey": "k", "mode": "self-hosted"})
    assert api.post("spaces", {"slug": "hanging", "name": "Hanging", "provider": "mem0",
                               "config": {"userId": "alice"}}).status_code == 201
    yield tarpit
    tarpit.stop()


def test_a_provider_that_never_answers_never_empties_the_block(api, tarpit_space):
    """#33: before, /context asked remote spaces one after another, each up to the provider timeout (30 s here);
    now they are asked at once under the read deadline, and the native hits come back with the late space named."""
    api.turn("we chose PostgreSQL for the warehouse")
    answer = api.post("context", {"session_id": "s1", "query": "postgresql warehouse"})
    data = answer.json()  # left out at the read's deadline (0.5 s), not at the provider timeout (30 s)
    assert answer.status_code == 200 and "PostgreSQL" in data["text"] and tarpit_space.accepted
    assert data["warnings"] == [{"space": "hanging", "code": "provider_timeout",
                                 "message": "Mem0 did not answer within this read's 0.5 s deadline"}]
    found = api.tool("memory_search", query="postgresql warehouse")
    assert found.status_code == 200
    result = found.json()["result"]
    assert {r["space"] for r in result["results"]} == {"default"}
    assert result["warnings"] == data["warnings"]
    assert MemorySpace.objects.get(slug="hanging").last_error == ""  # slow is not broken: nothing recorded


def test_the_recall_preview_names_the_space_it_had_to_do_without(client, staff, api, tarpit_space, settings):
    settings.MEMORYHUB = {**settings.MEMORYHUB, "PROVIDER_TIMEOUT": 0.5}
    page = client.get("/spaces/hanging/recall/", {"q": "postgresql warehouse"}).content.decode()
    assert 'id="recall-missing-hanging"' in page and "did not answer in time" in page


def test_a_read_of_the_hanging_space_alone_is_a_clear_timeout(api, tarpit_space, settings):
    settings.MEMORYHUB = {**settings.MEMORYHUB, "PROVIDER_TIMEOUT": 0.5}
    found = api.tool("memory_search", query="anything", space="hanging")
    assert (found.status_code, found.json()["error"]["code"]) == (504, "provider_timeout")
    assert "127.0.0.1" not in found.content.decode()  # no internal address reaches the agent
