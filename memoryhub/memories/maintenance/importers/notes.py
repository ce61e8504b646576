"""MEMORY.md / USER.md in the `§`-delimited format: one note per entry."""

from __future__ import annotations

from memoryhub.memories.maintenance.importers import reading
from memoryhub.memories.maintenance.importers.base import Batch, key_of, note
from memoryhub.memories.models import Category

DELIMITER = "\n§\n"


def entries(text: str) -> list[str]:
    """Split on the full delimiter, strip, drop empties, keep the first of duplicates."""
    return list(dict.fromkeys(e.strip() for e in text.split(DELIMITER) if e.strip()))


def load_md(sources: list[reading.Source], batch: Batch, origin: str) -> None:
    for source in sources:
        profile = source.stem.upper().startswith("USER")
        tag = "user-profile" if profile else "memory-md"
        for n, entry in enumerate(entries(source.text()), 1):
            draft = note(key_of("md", tag, entry), entry, category=Category.PREFERENCE if profile else "", tags=[tag],
                         origin=origin)
            if reading.clean(draft.body, f"{source.name}: entry {n}", batch.errors):
                batch.add(draft, where=f"{source.name}: entry {n}")
