"""Files the hub makes for itself (the data directory, the SQLite database) start private: 0700 and 0600.

They hold every memory and the provider secrets; other accounts on the machine must not read them,
whatever the umask. What exists already keeps the mode a person gave it. Imported by settings.py,
so nothing here may import Django.
"""

from __future__ import annotations

import os
from pathlib import Path


def private_dir(path: Path) -> Path:
    """Make the directory (and missing parents) if it is missing; the directory itself is made 0700."""
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            path.mkdir(mode=0o700)
        except FileExistsError:  # another process made it first
            pass
    return path


def private_file(path: Path) -> Path:
    """Create an empty file 0600 if it is missing, so what opens it later (SQLite) never makes it world-readable.

    SQLite gives its -wal and -shm files the mode of the database file."""
    try:
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
    except FileExistsError:
        pass
    return path
