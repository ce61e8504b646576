"""The hook command's settings: MEMORYHUB_* variables first, then `<home>/hook.json` (`memoryhub-hook setup`).

The file may hold the token: an agent started from a desktop launcher (Cursor) does not see the shell's variables.
So it is written 0600 in a 0700 directory, and a token in a file others may read is ignored (and logged), as ssh
ignores such a key. `<home>` is MEMORYHUB_HOOK_HOME, else ~/.memoryhub; it also keeps the spool, the per-session
state and the log.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any

log = logging.getLogger("memoryhub.hook")

FILE_NAME = "hook.json"
DEFAULT_URL = "http://127.0.0.1:8000"
ENV = {"url": "MEMORYHUB_URL", "token": "MEMORYHUB_TOKEN", "space": "MEMORYHUB_SPACE",
       "workspace": "MEMORYHUB_WORKSPACE", "inject_timeout": "MEMORYHUB_HOOK_INJECT_TIMEOUT",
       "archive_timeout": "MEMORYHUB_HOOK_ARCHIVE_TIMEOUT", "drain_seconds": "MEMORYHUB_HOOK_DRAIN_SECONDS"}
# The bounds a hook keeps (seconds waiting on the hub): the agent waits for inject hooks before the model sees the
# prompt, and for archive hooks before the next prompt; what is not sent in time waits in the spool.
INJECT_TIMEOUT = 3.0
ARCHIVE_TIMEOUT = 2.0
DRAIN_SECONDS = 300.0  # how long the background sender keeps trying after an archive hook ran out of time
NO_WORKSPACE = "none"  # MEMORYHUB_WORKSPACE=none: send no workspace (a token that may not bind project paths)


@dataclass
class HookSettings:
    home: Path
    url: str
    token: str
    space: str | None = None
    workspace: str | None = None  # None: the agent's working directory; NO_WORKSPACE: none; else this one
    inject_timeout: float = INJECT_TIMEOUT
    archive_timeout: float = ARCHIVE_TIMEOUT
    drain_seconds: float = DRAIN_SECONDS

    @property
    def spool(self) -> Path:
        """One spool per hub and token, shared by every agent's hooks on this machine."""
        digest = hashlib.sha256(f"{self.url} {self.token}".encode()).hexdigest()[:12]
        return self.home / "spool" / f"{digest}.jsonl"

    @property
    def log_file(self) -> Path:
        return self.home / "hook.log"

    @property
    def state_dir(self) -> Path:
        return self.home / "state"

    def workspace_for(self, cwd: str | None) -> str | None:
        """The hub's `workspace` for an agent working in `cwd`."""
        if self.workspace == NO_WORKSPACE:
            return None
        return self.workspace or (cwd if cwd and os.path.isabs(cwd) else None)


def home(environ: dict[str, str] | None = None) -> Path:
    environ = os.environ if environ is None else environ
    return Path(environ.get("MEMORYHUB_HOOK_HOME") or Path.home() / ".memoryhub").expanduser()


def load(environ: dict[str, str] | None = None) -> HookSettings:
    """Each setting from the environment, else hook.json, else its default."""
    environ = os.environ if environ is None else environ
    where = home(environ)
    saved = read_file(where)
    values: dict[str, Any] = {key: environ.get(var) or saved.get(key) for key, var in ENV.items()}
    return HookSettings(
        home=where, url=(values["url"] or DEFAULT_URL).rstrip("/"), token=values["token"] or "",
        space=values["space"] or None, workspace=values["workspace"] or None,
        inject_timeout=_seconds(values["inject_timeout"], INJECT_TIMEOUT),
        archive_timeout=_seconds(values["archive_timeout"], ARCHIVE_TIMEOUT),
        drain_seconds=_seconds(values["drain_seconds"], DRAIN_SECONDS, high=3600))


def read_file(where: Path) -> dict[str, str]:
    path = where / FILE_NAME
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as exc:
        log.warning("ignoring %s (%s)", path, exc)
        return {}
    if not isinstance(data, dict):
        log.warning("ignoring %s (not a JSON object)", path)
        return {}
    values = {k: str(v) for k, v in data.items() if k in ENV and v not in (None, "")}
    if "token" in values and path.stat().st_mode & (stat.S_IRWXG | stat.S_IRWXO):
        log.warning("ignoring the token in %s: others may read the file (chmod 600 it)", path)
        values.pop("token")
    return values


def save(where: Path, values: dict[str, Any]) -> Path:
    """Merge `values` into hook.json (an empty value removes one), 0600 in a 0700 directory."""
    where.mkdir(mode=0o700, parents=True, exist_ok=True)
    os.chmod(where, 0o700)
    path = where / FILE_NAME
    current = read_file(where)
    for key, value in values.items():
        if key not in ENV:
            continue
        if value in (None, ""):
            current.pop(key, None)
        else:
            current[key] = str(value)
    temp = path.with_name(FILE_NAME + ".tmp")
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(json.dumps(current, indent=2, ensure_ascii=False) + "\n")
    os.replace(temp, path)
    return path


def _seconds(value: Any, default: float, *, high: float = 30.0) -> float:
    try:
        return min(high, max(0.2, float(value))) if value not in (None, "") else default
    except ValueError:
        log.warning("ignoring a bound that is not a number of seconds: %r", value)
        return default
