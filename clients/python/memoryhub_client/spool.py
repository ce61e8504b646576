"""A JSONL spool of writes not yet acknowledged by the hub, so a crash or a down hub loses none of them."""

from __future__ import annotations

import json
import logging
import os
import threading
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)


class Spool:
    """Append-only lines `{"add": job}` and `{"done": id}`; on open, what was added but not done is pending."""

    def __init__(self, path: Path):
        self.path = path
        self._lock = threading.Lock()

    def open(self) -> list[dict[str, Any]]:
        """The jobs left pending by a previous run, oldest first; the file is compacted to just those."""
        pending: dict[str, dict[str, Any]] = {}
        with self._lock:
            if self.path.exists():
                for line in self.path.read_text(encoding="utf-8").splitlines():
                    try:
                        record = json.loads(line)
                    except ValueError:  # a line cut short by a crash
                        log.warning("memoryhub spool %s: skipping a damaged line", self.path)
                        continue
                    if "add" in record:
                        pending[record["add"]["id"]] = record["add"]
                    elif "done" in record:
                        pending.pop(record["done"], None)
            self.path.parent.mkdir(parents=True, exist_ok=True)
            temp = self.path.with_suffix(".tmp")
            temp.write_text("".join(json.dumps({"add": job}, ensure_ascii=False) + "\n" for job in pending.values()),
                            encoding="utf-8")
            os.replace(temp, self.path)
        return list(pending.values())

    def add(self, job: dict[str, Any]) -> None:
        self._append({"add": job})

    def done(self, job_id: str) -> None:
        self._append({"done": job_id})

    def _append(self, record: dict[str, Any]) -> None:
        with self._lock, self.path.open("a", encoding="utf-8") as f:
            f.write(json.dumps(record, ensure_ascii=False) + "\n")
            f.flush()
            os.fsync(f.fileno())
