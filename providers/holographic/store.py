"""The Holographic data file: one JSON document, replaced atomically, guarded by a lock file.

Every change runs read → modify → write under an exclusive `flock`, so two hub processes (or two
adapter instances) sharing one file never lose each other's facts. Neither the file nor its lock is
opened through a symbolic link planted in their place; the new file replaces the old by rename.
"""

from __future__ import annotations

import errno
import fcntl
import json
import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from providers.base import ProviderError

FORMAT = "memoryhub.holographic"
VERSION = 1


def empty() -> dict[str, Any]:
    return {"format": FORMAT, "version": VERSION, "next_id": 1, "facts": {}}


def _open_no_link(path: str, flags: int) -> int:
    """os.open that refuses a symbolic link in the file's place (ELOOP) with a clear error."""
    try:
        return os.open(path, flags | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise ProviderError(f"{path} is a symbolic link; the Holographic store never follows one",
                                permanent=True) from exc
        raise


class FactStore:
    def __init__(self, path: str):
        self.path = path

    @contextmanager
    def _locked(self, mode: int) -> Iterator[None]:
        os.makedirs(os.path.dirname(self.path) or ".", mode=0o700, exist_ok=True)
        with os.fdopen(_open_no_link(self.path + ".lock", os.O_WRONLY | os.O_CREAT | os.O_APPEND), "a") as lock:
            fcntl.flock(lock, mode)
            try:
                yield
            finally:
                fcntl.flock(lock, fcntl.LOCK_UN)

    def _load(self) -> dict[str, Any]:
        try:
            with os.fdopen(_open_no_link(self.path, os.O_RDONLY), encoding="utf-8") as fh:
                data = json.load(fh)
        except FileNotFoundError:
            return empty()
        except (OSError, ValueError) as exc:
            raise ProviderError(f"Holographic data file {self.path} is unreadable: {type(exc).__name__}") from exc
        facts = data.get("facts") if isinstance(data, dict) else None
        if (data.get("format") if isinstance(data, dict) else None) != FORMAT or not isinstance(facts, dict) \
                or not all(isinstance(f, dict) and isinstance(f.get("content"), str) and f.get("id") == k and k.isascii() and k.isdigit()
                           and isinstance(f.get("trust"), (int, float)) for k, f in facts.items()) \
                or not isinstance(data.get("next_id"), int):
            raise ProviderError(f"Holographic data file {self.path} is not in the expected format")
        return data

    def _save(self, data: dict[str, Any]) -> None:
        directory = os.path.dirname(self.path) or "."
        fd, tmp = tempfile.mkstemp(dir=directory, prefix=".holographic-", suffix=".tmp")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                json.dump(data, fh, ensure_ascii=False, indent=1)
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(tmp, self.path)
        except BaseException:
            if os.path.exists(tmp):
                os.unlink(tmp)
            raise
        dir_fd = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)

    def read(self) -> dict[str, Any]:
        with self._locked(fcntl.LOCK_SH):
            return self._load()

    @contextmanager
    def change(self) -> Iterator[dict[str, Any]]:
        """Yield the current data under the exclusive lock; write it back atomically if the block succeeds."""
        with self._locked(fcntl.LOCK_EX):
            data = self._load()
            yield data
            self._save(data)
