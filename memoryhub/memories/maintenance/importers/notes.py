"""MEMORY.md / USER.md in the `§`-delimited format: one note per entry."""

from __future__ import annotations

from pathlib import Path

from memoryhub.memories.maintenance.importers.base import Batch, key_of, note
from memoryhub.memories.models import Category

DELIMITER = "\n§\n"


def entries(text: str) -> list[str]:
    """Split on the full delimiter, strip, drop empties, keep the first of duplicates."""
    return list(dict.fromkeys(e.strip() for e in text.split(DELIMITER) if e.strip()))


def load_md(path: Path, origin: str = "local") -> Batch:
    profile = path.name.upper().startswith("USER")
    tag = "user-profile" if profile else "memory-md"
    return Batch(items=[
        note(key_of("md", tag, entry), entry, category=Category.PREFERENCE if profile else "", tags=[tag],
             origin=origin)
        for entry in entries(path.read_text(encoding="utf-8", errors="replace"))
    ])
