"""Online backup and restore of an embedded hub: the SQLite database, the secrets file and the secret key.

The database is copied with SQLite's online backup API, so a backup taken while agents write
is a consistent snapshot. PostgreSQL deployments use pg_dump instead (see README).
"""

from __future__ import annotations

import io
import json
import os
import sqlite3
import tarfile
import tempfile
from datetime import datetime, timezone
from pathlib import Path

from django.conf import settings
from django.db import connection

from memoryhub.core.files import private_dir, private_file

DB_MEMBER = "memoryhub.sqlite3"
STATE_FILES = {"secrets": "state/memory-providers.json", "secret_key": "state/secret_key"}
MANIFEST = "manifest.json"


class BackupError(Exception):
    """Something a person has to fix before a backup or restore can go ahead."""


def database_path() -> Path:
    if connection.vendor != "sqlite":
        raise BackupError(f"the database is {connection.vendor}: back it up with pg_dump (see README)")
    return Path(settings.DATABASES["default"]["NAME"])


def state_paths() -> dict[str, Path]:
    return {"secrets": Path(settings.MEMORYHUB["SECRETS_FILE"]), "secret_key": settings.STATE_DIR / "secret_key"}


def _private_file(path: Path, data: bytes) -> None:
    """Write atomically with mode 0600: these files hold secrets."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    with os.fdopen(fd, "wb") as f:
        os.fchmod(f.fileno(), 0o600)
        f.write(data)
    os.replace(tmp, path)


def _add(archive: tarfile.TarFile, name: str, data: bytes) -> None:
    info = tarfile.TarInfo(name)
    info.size, info.mode, info.mtime = len(data), 0o600, int(datetime.now().timestamp())
    archive.addfile(info, io.BytesIO(data))


def backup(to_dir: Path) -> Path:
    """Write `memoryhub-backup-<UTC time>.tar.gz` (mode 0600) into `to_dir` and return its path."""
    db = database_path()
    private_dir(to_dir)
    stamp = datetime.now(timezone.utc).strftime("%Y%m%d-%H%M%S")
    target = to_dir / f"memoryhub-backup-{stamp}.tar.gz"
    with tempfile.TemporaryDirectory() as tmp:
        snapshot = Path(tmp) / DB_MEMBER
        src, dst = sqlite3.connect(db, timeout=20), sqlite3.connect(snapshot)
        try:
            src.backup(dst)
        finally:
            src.close()
            dst.close()
        included = {k: p for k, p in state_paths().items() if p.exists()}
        manifest = {"format": 1, "created_at": datetime.now(timezone.utc).isoformat(), "database": DB_MEMBER,
                    "state": {k: STATE_FILES[k] for k in included}}
        fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "wb") as raw, tarfile.open(fileobj=raw, mode="w:gz") as archive:
            _add(archive, MANIFEST, json.dumps(manifest, indent=2).encode())
            _add(archive, DB_MEMBER, snapshot.read_bytes())
            for key, path in included.items():
                _add(archive, STATE_FILES[key], path.read_bytes())
    return target


def _read(archive: tarfile.TarFile, name: str) -> bytes:
    member = archive.getmember(name)
    if not member.isfile():
        raise BackupError(f"{name} in the archive is not a plain file")
    return archive.extractfile(member).read()


def restore(archive_path: Path, *, force: bool = False) -> dict[str, str]:
    """Put an archive's database and state files in place; refuses to overwrite unless `force`."""
    db = database_path()
    try:
        archive = tarfile.open(archive_path, mode="r:gz")
    except (OSError, tarfile.TarError) as exc:
        raise BackupError(f"{archive_path} is not a memoryhub backup: {exc}") from exc
    with archive:
        try:
            manifest = json.loads(_read(archive, MANIFEST))
            database = _read(archive, DB_MEMBER)
        except (KeyError, ValueError) as exc:
            raise BackupError(f"{archive_path} is not a memoryhub backup: {exc}") from exc
        state = {k: _read(archive, STATE_FILES[k]) for k in manifest.get("state", {}) if k in STATE_FILES}
    if db.exists() and db.stat().st_size and not force:
        raise BackupError(f"{db} exists; stop the hub and pass --force to replace it")
    with tempfile.TemporaryDirectory() as tmp:
        snapshot = Path(tmp) / DB_MEMBER
        snapshot.write_bytes(database)
        src = sqlite3.connect(snapshot)
        try:
            if src.execute("PRAGMA integrity_check").fetchone()[0] != "ok":
                raise BackupError("the archived database fails SQLite's integrity check")
            private_file(private_dir(db.parent) / db.name)
            dst = sqlite3.connect(db, timeout=20)
            try:
                src.backup(dst)  # through SQLite, so an existing WAL cannot resurrect old pages
            finally:
                dst.close()
        finally:
            src.close()
    paths = state_paths()
    for key, data in state.items():
        _private_file(paths[key], data)
    return {"database": str(db), **{k: str(paths[k]) for k in state}}
