"""The rate limit off the database: one budget for all web processes of a machine (agents/rates.py)."""

from __future__ import annotations

import json
import multiprocessing
import time
import urllib.error
import urllib.request

import pytest

from memoryhub.agents import rates
from tests.procs import hub_env, manage, migrate, web_node


def fresh_minute(room: float = 20) -> None:
    """Wait, when needed, so the next `room` seconds fall in one clock minute (the windows are clock minutes)."""
    into = time.time() % 60
    if into > 60 - room:
        time.sleep(60 - into + 0.2)


def get_spaces(base: str, token: str) -> tuple[int, dict, str | None]:
    request = urllib.request.Request(f"{base}/api/v1/spaces", headers={"Authorization": f"Bearer {token}"})
    try:
        with urllib.request.urlopen(request, timeout=10) as r:
            return r.status, json.loads(r.read()), r.headers.get("Retry-After")
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read()), exc.headers.get("Retry-After")


def test_two_web_processes_share_one_budget(tmp_path):
    with hub_env(tmp_path) as env:
        env["MEMORYHUB_RATE_LIMIT_PER_MINUTE"] = "6"
        env.pop("DATABASE_URL", None)  # two processes of one machine on its SQLite database
        migrate(env)
        token = manage(env, "issue_token", "--name", "bot").strip().splitlines()[-1]
        with web_node(env, tmp_path / "a.log") as a, web_node(env, tmp_path / "b.log") as b:
            fresh_minute()
            statuses = [get_spaces(base, token)[0] for base in (a, b, a, b, a, b)]
            refused_a, refused_b = get_spaces(a, token), get_spaces(b, token)
    assert statuses == [200] * 6
    for status, body, retry_after in (refused_a, refused_b):
        assert status == 429 and body["error"]["code"] == "rate_limited"
        assert 1 <= int(retry_after) <= 60


def _bump(state_dir: str, key: int, minute: int, times: int, out) -> None:
    from django.conf import settings

    settings.STATE_DIR = type(settings.STATE_DIR)(state_dir)
    windows = rates.MachineWindows()
    out.put([windows.count(key, minute) for _ in range(times)])


def test_processes_counting_at_once_lose_no_call(tmp_path, settings):
    settings.STATE_DIR = tmp_path
    context = multiprocessing.get_context("fork")
    out = context.Queue()
    workers = [context.Process(target=_bump, args=(str(tmp_path), 77, 1000, 300, out)) for _ in range(3)]
    for w in workers:
        w.start()
    seen = sorted(n for _ in workers for n in out.get(timeout=60))
    for w in workers:
        w.join(timeout=30)
    assert seen == list(range(1, 901))  # every count handed out once: no lost update between processes
    assert rates.MachineWindows().count(77, 1000) == 901


def test_a_new_minute_starts_from_one_and_tokens_count_apart(settings, tmp_path):
    settings.STATE_DIR = tmp_path
    windows = rates.MachineWindows()
    assert [windows.count(5, 10) for _ in range(3)] == [1, 2, 3]
    assert windows.count(5 + rates.SLOTS, 10) == 1  # same home slot, another token
    assert windows.count(5, 11) == 1


def test_a_full_probe_counts_in_the_process_and_says_so(settings, tmp_path, caplog):
    settings.STATE_DIR = tmp_path
    windows = rates.MachineWindows()
    for n in range(rates.PROBE):
        assert windows.count(3 + n * rates.SLOTS, 20) == 1
    crowded = 3 + rates.PROBE * rates.SLOTS
    assert [windows.count(crowded, 20) for _ in range(2)] == [1, 2]
    assert "no free slot" in caplog.text
    assert windows.count(crowded, 21) == 1  # next minute the old slots are free again


@pytest.mark.django_db
def test_token_keys_differ_for_different_tokens():
    from memoryhub.agents.models import ApiToken

    first, _ = ApiToken.issue("a")
    second, _ = ApiToken.issue("b")
    assert rates.token_key(first.token_hash) != rates.token_key(second.token_hash)
    assert rates.token_key(first.token_hash) > 0


def test_a_truncated_windows_file_is_extended_again_and_counting_goes_on(settings, tmp_path):
    settings.STATE_DIR = tmp_path
    windows = rates.MachineWindows()
    assert [windows.count(9, 30) for _ in range(3)] == [1, 2, 3]
    path = tmp_path / "rate-windows"
    path.write_bytes(b"")  # truncated under a running hub (a person, a tool): its counts are gone, not its callers
    assert windows.count(9, 30) == 1
    assert path.stat().st_size == rates.SLOTS * rates.SLOT.size
    assert windows.count(9, 30) == 2


def test_a_deleted_windows_file_is_made_again_and_shared_again(settings, tmp_path):
    settings.STATE_DIR = tmp_path
    windows, other = rates.MachineWindows(), rates.MachineWindows()
    assert windows.count(11, 40) == 1
    (tmp_path / "rate-windows").unlink()
    assert other.count(11, 40) == 1  # the other process makes a new file
    time.sleep(1.1)  # a process looks at most once a second whether the path still names its file
    assert windows.count(11, 40) == 2  # and this one counts in it, not alone in the deleted one


def test_truncating_the_windows_file_under_a_web_process_never_kills_it(tmp_path):
    """A memory-mapped file that shrinks under its map answers the next touch with SIGBUS: the web worker died."""
    with hub_env(tmp_path) as env:
        env.pop("DATABASE_URL", None)
        env.pop("REDIS_URL", None)  # the machine's file, not Redis, counts the calls
        migrate(env)
        token = manage(env, "issue_token", "--name", "bot").strip().splitlines()[-1]
        with web_node(env, tmp_path / "web.log") as base:
            assert get_spaces(base, token)[0] == 200
            windows = tmp_path / "state" / "rate-windows"
            windows.write_bytes(b"")
            statuses = [get_spaces(base, token)[0] for _ in range(3)]
            size = windows.stat().st_size
        log = (tmp_path / "web.log").read_text()
    assert statuses == [200] * 3
    assert size == rates.SLOTS * rates.SLOT.size
    assert "SIGBUS" not in log and "Bus error" not in log
