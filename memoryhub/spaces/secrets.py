"""Provider secrets: one JSON file, mode 0600, written atomically, never in the database.

Layout: {"<kind>": {"<field>": "<value>"}}. Templates and exports only ever see mask().
"""

from __future__ import annotations

import json
import os
import stat
import tempfile
from pathlib import Path

from django.conf import settings


def path() -> Path:
    return Path(settings.MEMORYHUB["SECRETS_FILE"])


def ensure_private() -> bool:
    """Fix the file's mode to 0600 if someone loosened it; True when it had to."""
    p = path()
    if p.exists() and stat.S_IMODE(p.stat().st_mode) != 0o600:
        os.chmod(p, 0o600)
        return True
    return False


def load() -> dict[str, dict[str, str]]:
    p = path()
    if not p.exists():
        return {}
    ensure_private()
    try:
        data = json.loads(p.read_text())
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}


def for_kind(kind: str) -> dict[str, str]:
    value = load().get(kind, {})
    return value if isinstance(value, dict) else {}


def save(kind: str, values: dict[str, str]) -> None:
    """Replace the given secrets of one kind; blank values are ignored (blank keeps the saved one)."""
    data = load()
    current = dict(data.get(kind, {}))
    current.update({k: v for k, v in values.items() if v})
    data[kind] = current
    _write(data)


def clear(kind: str, key: str) -> None:
    data = load()
    data.get(kind, {}).pop(key, None)
    _write(data)


def _write(data: dict) -> None:
    p = path()
    p.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=p.parent, prefix=".memory-providers.", suffix=".tmp")
    try:
        os.fchmod(fd, 0o600)
        with os.fdopen(fd, "w") as f:
            json.dump(data, f, indent=2, sort_keys=True)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, p)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def mask(kind: str, keys: set[str]) -> dict[str, str]:
    """What a person may see of the secrets: configured or not set, never the value."""
    saved = for_kind(kind)
    return {k: ("configured" if saved.get(k) else "not set") for k in sorted(keys)}
