"""The provider's settings: arguments first, then MEMORYHUB_* variables, then `<HERMES_HOME>/memoryhub.json`.

`hermes memory setup` asks for the fields of CONFIG_SCHEMA; the token (the one secret) goes to Hermes's `.env` as
MEMORYHUB_TOKEN, the rest is written by `save` to memoryhub.json, which never holds a secret.
"""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

FILE_NAME = "memoryhub.json"
DEFAULT_URL = "http://127.0.0.1:8000"
ENV = {"url": "MEMORYHUB_URL", "token": "MEMORYHUB_TOKEN", "space": "MEMORYHUB_SPACE",
       "workspace": "MEMORYHUB_WORKSPACE", "spool": "MEMORYHUB_SPOOL"}
CONFIG_SCHEMA: list[dict[str, Any]] = [
    {"key": "url", "description": "The hub's address", "required": True, "default": DEFAULT_URL},
    {"key": "token", "description": "An API token (dashboard → API tokens, or `manage.py issue_token`)",
     "secret": True, "required": True, "env_var": ENV["token"]},
    {"key": "space", "description": "The space turns are written to; needed when the token may use several"},
    {"key": "workspace", "description": "The agent's working directory, whose own native space then is the default"},
    {"key": "spool", "description": "File keeping writes until the hub has them (default: in the Hermes home)"},
]
SAVED_KEYS = tuple(f["key"] for f in CONFIG_SCHEMA if not f.get("secret"))


def hermes_home(given: str | Path | None = None) -> Path:
    """The Hermes home as Hermes finds it: the given one, else HERMES_HOME, else ~/.hermes."""
    return Path(given or os.environ.get("HERMES_HOME") or Path.home() / ".hermes").expanduser()


def load(home: Path) -> dict[str, str]:
    """memoryhub.json's non-secret values; {} when there is none (a damaged file is reported, not fatal)."""
    path = home / FILE_NAME
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as exc:
        log.warning("memoryhub: ignoring %s (%s)", path, exc)
        return {}
    if not isinstance(data, dict):
        log.warning("memoryhub: ignoring %s (not a JSON object)", path)
        return {}
    return {k: str(v) for k, v in data.items() if k in SAVED_KEYS and v not in (None, "")}


def save(values: dict[str, Any], home: Path) -> Path:
    """Merge the known non-secret values into memoryhub.json (an empty value removes one); secrets are dropped."""
    path = home / FILE_NAME
    current = load(home)
    for key in SAVED_KEYS:
        if key in values:
            value = values[key]
            if value in (None, ""):
                current.pop(key, None)
            else:
                current[key] = str(value)
    home.mkdir(parents=True, exist_ok=True)
    temp = path.with_name(FILE_NAME + ".tmp")
    temp.write_text(json.dumps(current, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    os.replace(temp, path)
    return path


def resolve(given: dict[str, Any], home: Path) -> dict[str, str | None]:
    """Each setting from the first place that has it: argument, environment, memoryhub.json (token: no file)."""
    saved = load(home)
    values: dict[str, str | None] = {}
    for key, variable in ENV.items():
        values[key] = (given.get(key) or os.environ.get(variable) or saved.get(key)
                       or (DEFAULT_URL if key == "url" else None))
    return values
