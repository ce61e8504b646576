"""What an importer is given, read one way: a file, every file under a folder, or the members of a zip archive, as
JSON lines with their line numbers or as one JSON document.

Every record is checked by the hub's one JSON parser (core/jsonin: lone surrogates, NUL, non-characters, depth), so a
bad line is reported by its place and skipped while the rest is imported; only input that cannot be read at all is
`Unreadable`, a sentence for the person (never a traceback).
"""

from __future__ import annotations

import gzip
import json
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path, PurePosixPath
from typing import Any

from django.utils.dateparse import parse_datetime

from memoryhub.core import jsonin
from memoryhub.core.errors import ApiError

MAX_FILES = 100_000  # files under one folder or in one archive
MAX_BYTES = 1 << 30  # what one file may unpack to (a zip or gzip bomb stops here, not in memory)
DOCUMENT_DEPTH = 64  # a chat export nests deeper than an API body (conversation, mapping, node, message, content…)
HEAD_BYTES = 1 << 20  # what telling formats apart reads of a file
SKIPPED_DIRS = {".git", "__pycache__", "node_modules"}


class Unreadable(ValueError):
    """The input as a whole cannot be imported; the message says why and, where it can, what would work."""


@dataclass
class Source:
    """One file to read, on disk or inside a zip archive, read only when asked (an export's images are never read);
    `name` is how errors name it (relative to what was given)."""

    name: str
    path: Path | None = None  # on disk (a SQLite file must be)
    archive: Path | None = None  # or the zip it is a member of
    blob: bytes | None = None  # its bytes, once read (or given)
    _prefix: bytes | None = field(default=None, repr=False)
    _parsed: Any = field(default=None, repr=False)
    _parsed_ok: bool = field(default=False, repr=False)

    @property
    def suffix(self) -> str:
        """The file's kind by its name, a gzip layer looked through: "memories.jsonl.gz" is ".jsonl"."""
        return PurePosixPath(self.name.lower().removesuffix(".gz")).suffix

    @property
    def stem(self) -> str:
        return PurePosixPath(self.name).name.split(".")[0]

    def _read(self, limit: int) -> bytes:
        """Up to `limit` bytes (uncompressed, a gzip layer looked through)."""
        try:
            if self.archive is not None:
                with zipfile.ZipFile(self.archive) as archive, archive.open(self.name) as member:
                    return _ungzipped(self, member, limit)
            with self.path.open("rb") as f:
                return _ungzipped(self, f, limit)
        except (OSError, zipfile.BadZipFile, EOFError) as exc:
            raise Unreadable(f"{self.name}: cannot be read ({getattr(exc, 'strerror', None) or exc})") from exc

    def data(self) -> bytes:
        if self.blob is None:
            blob = self._read(MAX_BYTES + 1)
            if len(blob) > MAX_BYTES:
                raise Unreadable(f"{self.name} is more than {MAX_BYTES >> 30} GiB; import a part of it")
            self.blob = blob
        return self.blob

    def prefix(self) -> bytes:
        """The file's first HEAD_BYTES, for telling formats apart without reading it all."""
        if self.blob is not None:
            return self.blob[:HEAD_BYTES]
        if self._prefix is None:
            self._prefix = self._read(HEAD_BYTES)
        return self._prefix

    def text(self) -> str:
        return self.data().decode("utf-8", errors="replace")

    def document(self) -> Any:
        """The file as one JSON value, unchecked (records are checked one by one: see `clean`)."""
        if not self._parsed_ok:
            try:
                self._parsed = json.loads(self.text())
            except (ValueError, RecursionError) as exc:
                where = f" (line {exc.lineno}, column {exc.colno})" if isinstance(exc, json.JSONDecodeError) else ""
                raise Unreadable(f"{self.name} is not valid JSON{where}") from exc
            self._parsed_ok = True
        return self._parsed

    def head(self, n: int = 20) -> list[dict]:
        """The first JSON objects of a JSON-lines file, for telling formats apart (bad lines are passed over)."""
        found = []
        for line in self.prefix().decode("utf-8", errors="replace").splitlines()[:200]:
            try:
                value = json.loads(line)
            except ValueError:
                continue
            if isinstance(value, dict):
                found.append(value)
                if len(found) >= n:
                    break
        return found


def _ungzipped(source: Source, f, limit: int) -> bytes:
    if not source.name.lower().endswith(".gz"):
        return f.read(limit)
    try:
        with gzip.GzipFile(fileobj=f) as unpacked:
            return unpacked.read(limit)
    except (OSError, EOFError) as exc:
        raise Unreadable(f"{source.name} is not a gzip file this hub can read ({exc})") from exc


def sources(path: Path) -> list[Source]:
    """A file, every file under a folder (hidden and tool folders left out), or the members of a zip archive."""
    if not path.exists():
        raise Unreadable(f"{path} does not exist")
    if path.is_dir():
        found = []
        for item in sorted(path.rglob("*")):
            parts = item.relative_to(path).parts
            if item.is_file() and not any(p in SKIPPED_DIRS or p.startswith(".") for p in parts[:-1]):
                found.append(Source(str(PurePosixPath(*parts)), path=item))
                if len(found) > MAX_FILES:
                    raise Unreadable(f"{path} holds more than {MAX_FILES:,} files; import a part of it")
        return found
    if zipfile.is_zipfile(path):
        return _members(path)
    return [Source(path.name, path=path)]


def _members(path: Path) -> list[Source]:
    try:
        with zipfile.ZipFile(path) as archive:
            names = [i.filename for i in archive.infolist() if not i.is_dir() and not i.filename.startswith("__MACOSX/")]
    except (zipfile.BadZipFile, OSError) as exc:
        raise Unreadable(f"{path.name} is not a zip archive this hub can read ({exc})") from exc
    if len(names) > MAX_FILES:
        raise Unreadable(f"{path.name} holds more than {MAX_FILES:,} files")
    return [Source(name, archive=path) for name in sorted(names)]


def lines(source: Source, problems: list[str]) -> Iterator[tuple[int, dict]]:
    """(line number, object) for each JSON-object line; a line that is not one is reported by its number and left
    out, the rest read on."""
    for n, line in enumerate(source.text().splitlines(), 1):
        if not line.strip():
            continue
        try:
            value = jsonin.loads(line, what="the line", max_depth=DOCUMENT_DEPTH)
        except ApiError as exc:
            problems.append(f"{source.name}:{n}: {_said(exc)}")
            continue
        if not isinstance(value, dict):
            problems.append(f"{source.name}:{n}: not a JSON object")
            continue
        yield n, value


def clean(value: Any, where: str, problems: list[str]) -> bool:
    """Whether a record of a JSON document holds only text the hub keeps; else it is reported by `where` (and left
    out by its caller)."""
    try:
        jsonin.check(value, max_depth=DOCUMENT_DEPTH)
    except ApiError as exc:
        problems.append(f"{where}: {_said(exc)}")
        return False
    return True


def _said(exc: ApiError) -> str:
    return f"{exc.message} (at {exc.field})" if exc.field else exc.message


def mostly(records: list, test) -> bool:
    """Whether most of a file's first records pass `test` (one bad line does not hide what a file is)."""
    return bool(records) and 2 * sum(1 for r in records if test(r)) > len(records)


def text_of(value: Any) -> str:
    return value if isinstance(value, str) else ""


def when(value: object) -> datetime | None:
    """ISO 8601 text or epoch seconds/milliseconds; naive times are UTC; anything else is no time."""
    if value in (None, "") or isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        seconds = value / 1000 if value > 1e11 else value
        try:
            return datetime.fromtimestamp(seconds, UTC)
        except (OverflowError, OSError, ValueError):
            return None
    try:
        parsed = parse_datetime(str(value).strip().replace("Z", "+00:00"))
    except ValueError:
        return None
    if parsed and parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=UTC)
    return parsed
