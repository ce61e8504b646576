"""Hardening (#21, rule 7): a private data directory and database, and throttled logins."""

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model

ROOT = Path(__file__).resolve().parent.parent


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_a_new_data_directory_and_its_database_are_private(tmp_path):
    """Made by the hub under a permissive umask: the directory 0700, the database and its WAL files 0600."""
    data = tmp_path / "fresh" / "data"
    env = {**os.environ, "MEMORYHUB_DATA_DIR": str(data)}
    env.pop("DJANGO_SETTINGS_MODULE", None)
    script = ("import os; os.umask(0o022); import django; os.environ['DJANGO_SETTINGS_MODULE'] = 'memoryhub.settings';"
              "django.setup(); from django.core.management import call_command; call_command('migrate', verbosity=0);"
              "from django.db import connection; connection.cursor().execute('CREATE TABLE probe (x)')")
    subprocess.run([sys.executable, "-c", script], cwd=ROOT, env=env, check=True, timeout=300, capture_output=True)
    assert mode(data) == 0o700 and mode(data / "state") == 0o700
    database = data / "memoryhub.sqlite3"
    assert database.stat().st_size > 0 and mode(database) == 0o600
    for extra in ("memoryhub.sqlite3-wal", "memoryhub.sqlite3-shm", "state/secret_key"):
        if (data / extra).exists():
            assert mode(data / extra) == 0o600, extra


def test_processes_starting_at_once_on_a_new_data_directory_agree_on_one_secret_key(tmp_path):
    """The web and the worker of `serve` start together: none may crash on the other's key file or read it empty
    (CI saw a writer process die with FileExistsError on state/secret_key)."""
    data = tmp_path / "new" / "data"
    env = {**os.environ, "MEMORYHUB_DATA_DIR": str(data), "DJANGO_SETTINGS_MODULE": "memoryhub.settings"}
    env.pop("SECRET_KEY", None)
    env["START_AT"] = str(__import__("time").time() + 3)  # each waits for the same moment, then reads the settings
    script = ("import hashlib, os, time; import django.conf; time.sleep(max(0, float(os.environ['START_AT']) - time.time()));"
              "from django.conf import settings; print(hashlib.sha256(settings.SECRET_KEY.encode()).hexdigest())")
    starting = [subprocess.Popen([sys.executable, "-c", script], cwd=ROOT, env=env, stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, text=True) for _ in range(12)]
    answers = [p.communicate(timeout=120) for p in starting]
    assert [p.returncode for p in starting] == [0] * 12, [err[-500:] for _, err in answers]
    keys = {out.strip() for out, _ in answers}
    assert len(keys) == 1 and keys != {__import__("hashlib").sha256(b"").hexdigest()}
    assert sorted(p.name for p in (data / "state").iterdir()) == ["secret_key"]  # no file of a process left behind
    assert mode(data / "state" / "secret_key") == 0o600


def test_an_existing_data_directory_keeps_the_mode_a_person_gave_it(tmp_path):
    from memoryhub.core.files import private_dir, private_file

    shared = tmp_path / "shared"
    shared.mkdir(mode=0o750)
    os.chmod(shared, 0o750)
    private_dir(shared)
    assert mode(shared) == 0o750
    assert mode(private_file(shared / "db")) == 0o600


@pytest.fixture
def person(db):
    return get_user_model().objects.create_user("carol", password="right-password", is_staff=True)


def login(client, password, username="carol"):
    return client.post("/login/", {"username": username, "password": password})


def test_logins_are_throttled_after_repeated_wrong_passwords(client, person, settings):
    for _ in range(settings.AXES_FAILURE_LIMIT - 1):
        assert login(client, "guess").status_code == 200  # the form again, "wrong username or password"
    assert login(client, "guess").status_code == 429  # the limit-th failure locks the pair
    locked = login(client, "right-password")
    assert locked.status_code == 429 and "Too many wrong passwords" in locked.content.decode()
    assert "_auth_user_id" not in client.session
    assert login(client, "guess", username="dave").status_code == 200  # another username is not locked


def test_a_right_password_before_the_limit_resets_the_count(client, person, settings):
    for _ in range(settings.AXES_FAILURE_LIMIT - 1):
        login(client, "guess")
    assert login(client, "right-password").status_code == 302
    client.logout()
    for _ in range(settings.AXES_FAILURE_LIMIT - 1):
        login(client, "guess")
    assert login(client, "right-password").status_code == 302


def test_the_lockout_ends_after_the_cool_off(client, person, settings):
    from axes.models import AccessAttempt
    from django.utils import timezone

    for _ in range(settings.AXES_FAILURE_LIMIT):
        login(client, "guess")
    assert login(client, "right-password").status_code == 429
    AccessAttempt.objects.update(attempt_time=timezone.now() - settings.AXES_COOLOFF_TIME * 2)
    assert login(client, "right-password").status_code == 302


def test_a_forged_x_forwarded_for_does_not_buy_fresh_login_attempts(client, person, settings):
    """#32: with no trusted proxy (the default), the header is the caller's own words: each guess from 127.0.0.1
    naming another "client" still counts against 127.0.0.1."""
    for n in range(settings.AXES_FAILURE_LIMIT):
        client.post("/login/", {"username": "carol", "password": "guess"}, HTTP_X_FORWARDED_FOR=f"203.0.113.{n}")
    assert login(client, "right-password").status_code == 429


def test_a_named_proxy_is_believed_about_its_clients(client, person, settings):
    settings.TRUSTED_PROXIES = ["127.0.0.0/8"]
    for n in range(settings.AXES_FAILURE_LIMIT):
        client.post("/login/", {"username": "carol", "password": "guess"}, HTTP_X_FORWARDED_FOR="203.0.113.7")
    assert client.post("/login/", {"username": "carol", "password": "right-password"},
                       HTTP_X_FORWARDED_FOR="203.0.113.8").status_code == 302  # another client behind the proxy
    client.logout()
    assert client.post("/login/", {"username": "carol", "password": "right-password"},
                       HTTP_X_FORWARDED_FOR="198.51.100.1, 203.0.113.7").status_code == 429  # the right-most hop


def test_the_served_hub_ignores_x_forwarded_for_from_a_proxy_nobody_named(hub):
    """Over gunicorn and uvicorn as `make run` serves it: before, uvicorn took the header from any loopback
    connection, so every forged address was a new bucket and the throttle never tripped."""
    import http.cookiejar
    import re
    import urllib.error
    import urllib.parse
    import urllib.request
    import uuid

    jar = http.cookiejar.CookieJar()
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
    page = opener.open(f"{hub.url}/login/", timeout=10).read().decode()
    csrf = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page).group(1)
    username = f"intruder-{uuid.uuid4().hex[:8]}"

    def attempt(n: int) -> int:
        body = urllib.parse.urlencode({"username": username, "password": "guess", "csrfmiddlewaretoken": csrf})
        request = urllib.request.Request(f"{hub.url}/login/", body.encode(),
                                         {"X-Forwarded-For": f"198.51.100.{n}", "Referer": f"{hub.url}/login/"})
        try:
            return opener.open(request, timeout=10).status
        except urllib.error.HTTPError as exc:
            return exc.code

    statuses = [attempt(n) for n in range(6)]
    assert statuses[-1] == 429, statuses
