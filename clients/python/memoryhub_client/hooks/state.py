"""What a hook remembers about one agent session between its runs: the turns already handed to the spool, and the
prompts and answers of turns still running (Codex and Cursor name a turn's prompt and its answer in different
hooks).

A hook may run twice for one event, or two hooks at once: the state is read and written under an advisory lock,
so a turn is spooled by one of them only (and the hub's idempotency key would catch it anyway).
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

try:
    import fcntl
except ImportError:  # Windows: no advisory locks; the hub's idempotency keys still keep a turn single
    fcntl = None

log = logging.getLogger("memoryhub.hook")
PROMPTS_KEPT = 50
STALE_DAYS = 30


class SessionState:
    def __init__(self, data: dict[str, Any]):
        self.archived: set[str] = set(data.get("archived") or [])
        self.prompts: dict[str, str] = dict(data.get("prompts") or {})
        self.answers: dict[str, str] = dict(data.get("answers") or {})
        self.log: dict[str, Any] = dict(data.get("log") or {})  # {"path", "offset"}: where to read on from

    def offset(self, path: Any) -> int:
        """Where the agent's log at `path` may be read on from: nothing before it is left to archive."""
        return int(self.log.get("offset") or 0) if path and self.log.get("path") == str(path) else 0

    def read_up_to(self, path: Any, turns: list[Any], end: int) -> None:
        """Remember how far the log is done with: the start of its first turn not archived yet, else `end`."""
        if path:
            waiting = [t.start for t in turns if t.key not in self.archived]
            self.log = {"path": str(path), "offset": min(waiting) if waiting else end}

    def as_dict(self) -> dict[str, Any]:
        keep = list(self.prompts)[-PROMPTS_KEPT:]
        return {"archived": sorted(self.archived), "prompts": {k: self.prompts[k] for k in keep},
                "answers": {k: v for k, v in self.answers.items() if k in keep}, "log": self.log}


@contextmanager
def session_state(state_dir: Path, agent: str, session_id: str) -> Iterator[SessionState]:
    """The session's state, locked for the block and saved after it (also when nothing changed: cheap)."""
    folder = state_dir / agent
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    path = folder / (hashlib.sha256(session_id.encode()).hexdigest()[:24] + ".json")
    with open(path.with_suffix(".lock"), "a") as lock:
        if fcntl is not None:
            fcntl.flock(lock.fileno(), fcntl.LOCK_EX)
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            data = {}
            _prune(folder)
        except (OSError, ValueError) as exc:
            log.warning("starting afresh: the state of a session could not be read (%s)", exc)
            data = {}
        state = SessionState(data if isinstance(data, dict) else {})
        yield state
        temp = path.with_suffix(".tmp")
        temp.write_text(json.dumps(state.as_dict(), ensure_ascii=True), encoding="utf-8")
        os.replace(temp, path)


def _prune(folder: Path) -> None:
    """A new session is a good moment to forget sessions untouched for a month."""
    cutoff = time.time() - STALE_DAYS * 86400
    for path in folder.glob("*.json"):
        try:
            if path.stat().st_mtime < cutoff:
                path.unlink()
                path.with_suffix(".lock").unlink(missing_ok=True)
        except OSError:
            pass
