"""Backup and restore of the embedded hub: consistent while writers write, secrets included, no silent overwrite."""

import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from tests.procs import ROOT, hub_env, in_django, manage, migrate, on_postgres

pytestmark = pytest.mark.skipif(on_postgres(), reason="SQLite backups; PostgreSQL uses pg_dump")

WRITER = """
import time
from memoryhub.memories.write import gateway
from memoryhub.spaces.workspaces import default_space
space, n, end = default_space(), 0, time.monotonic() + 4
while time.monotonic() < end:
    draft = gateway.Draft(kind="turn", user=f"turn number {n} about backups", assistant="ok", session_id="w")
    gateway.write(space, draft)
    n += 1
print(n)
"""
CHECK = """
from django.db import connection
from memoryhub.memories.search import fulltext as search
from memoryhub.memories.models import Entry
from memoryhub.spaces import secrets
with connection.cursor() as cur:
    cur.execute("PRAGMA integrity_check")
    print(cur.fetchone()[0])
live = Entry.objects.filter(kind="turn").count()
hits = search.query(list(Entry.objects.values_list("space_id", flat=True).distinct()), "backups", limit=100000)
print(live, len(hits), secrets.for_kind("mem0").get("apiKey", ""))
"""


def test_a_backup_taken_while_writing_restores_into_a_fresh_hub(tmp_path):
    with hub_env(tmp_path / "live") as env:
        migrate(env)
        in_django(env, "from memoryhub.spaces.provider_services import save_service\n"
                       "save_service('mem0', {'endpoint': 'http://127.0.0.1:9', 'apiKey': 'sk-backup-test-1234'})")
        written = []
        writer = threading.Thread(target=lambda: written.append(int(in_django(env, WRITER).split()[-1])))
        writer.start()
        archive = None
        try:
            time.sleep(2)
            archive = Path(manage(env, "backup", "--to", str(tmp_path / "backups")).strip().splitlines()[-1])
        finally:
            writer.join()
        assert archive.exists() and oct(archive.stat().st_mode & 0o777) == "0o600"
        key = (tmp_path / "live" / "state" / "secret_key").read_text()
    with hub_env(tmp_path / "restored") as fresh:
        out = manage(fresh, "restore", str(archive))
        assert "restored database" in out
        integrity, live, indexed, api_key = in_django(fresh, CHECK).split()
    assert integrity == "ok" and 0 < int(live) <= written[0]
    assert int(indexed) == int(live), "the search index is consistent with the entries"
    assert api_key == "sk-backup-test-1234"
    assert (tmp_path / "restored" / "state" / "secret_key").read_text() == key


def test_restore_refuses_to_overwrite_without_force(tmp_path):
    with hub_env(tmp_path) as env:
        migrate(env)
        archive = manage(env, "backup", "--to", str(tmp_path / "b")).strip().splitlines()[-1]
        in_django(env, "from memoryhub.agents.models import ApiToken\nApiToken.issue(name='after-backup')")
        refused = subprocess.run([sys.executable, "manage.py", "restore", archive], cwd=ROOT, env=env,
                                 capture_output=True, text=True)
        assert refused.returncode != 0 and "--force" in refused.stderr
        manage(env, "restore", archive, "--force")
        count = in_django(env, "from memoryhub.agents.models import ApiToken\nprint(ApiToken.objects.count())")
    assert count.split()[-1] == "0"


def test_restore_refuses_what_is_not_a_backup(tmp_path):
    bogus = tmp_path / "bogus.tar.gz"
    bogus.write_bytes(b"not an archive")
    with hub_env(tmp_path) as env:
        done = subprocess.run([sys.executable, "manage.py", "restore", str(bogus), "--force"], cwd=ROOT, env=env,
                              capture_output=True, text=True)
    assert done.returncode != 0 and "not a memoryhub backup" in done.stderr
