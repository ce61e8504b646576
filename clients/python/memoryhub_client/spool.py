"""The on-disk spool of writes the hub has not acknowledged yet, so a crash, a restart or a down hub loses none.

A spool file holds JSON lines `{"add": job}`, `{"done": id}` and `{"held": id, "error": {...}}`; what was added and
not done is pending, in the order it was added. One live provider owns a file at a time (an advisory lock on
`<file>.lock`): a second provider on the same path, as in a gateway running several agents, takes `<file>.2`,
`<file>.3`, … and whoever opens a spool next adopts the files whose owners are gone, merged in submission order.
"""

from __future__ import annotations

import heapq
import json
import logging
import os
import threading
import time
from pathlib import Path
from typing import Any, TextIO

try:
    import fcntl
except ImportError:  # Windows: no advisory locks; one provider per spool path
    fcntl = None

log = logging.getLogger(__name__)
Job = dict[str, Any]
MAX_SIBLINGS = 64


class Spool:
    """The spool at `path` (or the first free sibling of it), owned from `open()` until `close()`."""

    def __init__(self, path: Path):
        self.base = Path(path)
        self.path = self.base
        self._lock = threading.Lock()
        self._owner: TextIO | None = None

    def open(self) -> list[Job]:
        """Take a spool file and adopt abandoned ones; the pending jobs, oldest first (a held one carries "held")."""
        self.base.parent.mkdir(parents=True, exist_ok=True)
        with self._lock:
            self.path, self._owner = self._claim()
            adopted, locks = [self.path], []
            for other in self._siblings():
                lock = None if other == self.path else try_lock(_lock_path(other))
                if lock is not None:  # its owner is gone
                    adopted.append(other)
                    locks.append(lock)
            pending: dict[str, Job] = {}
            for job in heapq.merge(*(_read(p) for p in adopted), key=lambda j: j.get("seq", 0)):
                pending.setdefault(job["id"], job)
            self._rewrite(list(pending.values()))  # first ours holds them all, then the adopted files go
            for other, lock in zip(adopted[1:], locks):
                other.unlink(missing_ok=True)
                lock.close()
        return list(pending.values())

    def add(self, job: Job) -> None:
        self._append({"add": job})

    def done(self, job_id: str) -> None:
        self._append({"done": job_id})

    def held(self, job_id: str, error: dict[str, Any]) -> None:
        self._append({"held": job_id, "error": error})

    def close(self) -> None:
        with self._lock:
            if self._owner is not None:
                self._owner.close()
                self._owner = None

    def _claim(self) -> tuple[Path, TextIO | None]:
        for index in range(1, MAX_SIBLINGS + 1):
            candidate = self.base if index == 1 else self.base.with_name(f"{self.base.name}.{index}")
            lock = try_lock(_lock_path(candidate))
            if lock is not None:
                return candidate, lock
        raise OSError(f"memoryhub spool {self.base}: {MAX_SIBLINGS} providers hold its files")

    def _siblings(self) -> list[Path]:
        found = [self.base] if self.base.exists() else []
        for path in self.base.parent.glob(f"{self.base.name}.*"):
            if path.name.rsplit(".", 1)[-1].isdigit():
                found.append(path)
        return found

    def _rewrite(self, jobs: list[Job]) -> None:
        lines = []
        for job in jobs:
            lines.append(_line({"add": {k: v for k, v in job.items() if k != "held"}}))
            if job.get("held"):
                lines.append(_line({"held": job["id"], "error": job["held"]}))
        temp = self.path.with_name(self.path.name + ".tmp")
        with temp.open("w", encoding="ascii") as f:
            f.write("".join(lines))
            f.flush()
            os.fsync(f.fileno())
        os.replace(temp, self.path)

    def _append(self, record: dict[str, Any]) -> None:
        with self._lock, self.path.open("a", encoding="ascii") as f:
            f.write(_line(record))
            f.flush()
            os.fsync(f.fileno())


def new_seq() -> int:
    """A job's place among the writes of every provider on this machine (merging adopted spools)."""
    return time.time_ns()


def _line(record: dict[str, Any]) -> str:
    """One record as an ASCII line: any text the agent had (lone surrogates included) round-trips."""
    return json.dumps(record, ensure_ascii=True) + "\n"


def _read(path: Path) -> list[Job]:
    pending: dict[str, Job] = {}
    if not path.exists():
        return []
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        try:
            record = json.loads(line)
        except ValueError:  # a line cut short by a crash
            log.warning("memoryhub spool %s: skipping a damaged line", path)
            continue
        if "add" in record:
            pending.setdefault(record["add"]["id"], record["add"])
        elif "done" in record:
            pending.pop(record["done"], None)
        elif "held" in record and record["held"] in pending:
            pending[record["held"]]["held"] = record.get("error") or {}
    return list(pending.values())


def _lock_path(path: Path) -> Path:
    return path.with_name(path.name + ".lock")


def try_lock(path: Path) -> TextIO | None:
    """The lock file, opened and locked, or None when another live provider holds it."""
    handle = path.open("a")
    if fcntl is None:
        return handle
    try:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        handle.close()
        return None
    return handle
