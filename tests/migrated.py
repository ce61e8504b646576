"""A child hub's database, migrated: on SQLite a copy of one database migrated once per test run.

`manage.py migrate` on a fresh SQLite file takes 10-25 s on a 2-core machine, and about ten tests start hubs of
their own; copying a migrated file takes milliseconds. On PostgreSQL (DATABASE_URL in the child's environment)
each hub's database is migrated as before."""

from __future__ import annotations

import atexit
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
_template: Path | None = None


def migrate(env: dict) -> None:
    """What `manage.py migrate --noinput` would leave in the data dir of `env`."""
    global _template
    if env.get("DATABASE_URL"):
        _manage(env)
        return
    if _template is None:
        folder = Path(tempfile.mkdtemp(prefix="memoryhub-migrated-"))
        atexit.register(shutil.rmtree, folder, ignore_errors=True)
        _manage({**env, "MEMORYHUB_DATA_DIR": str(folder)})
        _template = folder / "memoryhub.sqlite3"
    data = Path(env["MEMORYHUB_DATA_DIR"])
    data.mkdir(parents=True, exist_ok=True)
    source, copy = sqlite3.connect(_template), sqlite3.connect(data / "memoryhub.sqlite3")
    try:
        source.backup(copy)
    finally:
        source.close()
        copy.close()


def _manage(env: dict) -> None:
    subprocess.run([sys.executable, "manage.py", "migrate", "--noinput", "-v0"], cwd=ROOT, env=env, check=True,
                   capture_output=True, text=True, timeout=300)
