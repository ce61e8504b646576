"""Which importer reads which file."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from memoryhub.memories.maintenance.importers import mnemon, notes, sessions, vault
from memoryhub.memories.maintenance.importers.base import Batch

FORMATS: dict[str, tuple[str, Callable[[Path, str], Batch]]] = {
    "sessions": ("Session log (JSONL)", sessions.load_jsonl),
    "sessions_zstd": ("Session log (zstd, multi-frame)", sessions.load_zstd),
    "memory_md": ("MEMORY.md / USER.md (§-delimited)", notes.load_md),
    "mnemon_json": ("Mnemon import file (JSON)", mnemon.load_json),
    "mnemon_db": ("Mnemon database (mnemon.db, read-only)", mnemon.load_db),
    "vault": ("Memory vault memories.jsonl", vault.load_vault),
    "mnemosyne": ("Mnemosyne data directory (entries/ + facts.jsonl)", vault.load_mnemosyne),
}


def detect(path: Path) -> str:
    """A best guess from the name (and, for .jsonl, the first line)."""
    name = path.name.lower()
    if path.is_dir():
        return "mnemosyne"
    if name.endswith(".zst"):
        return "sessions_zstd"
    if name.endswith(".md"):
        return "memory_md"
    if name.endswith((".db", ".sqlite", ".sqlite3")):
        return "mnemon_db"
    if name.endswith(".json"):
        return "mnemon_json"
    with path.open(encoding="utf-8", errors="replace") as f:
        first = f.readline()
    return "vault" if '"body"' in first and '"category"' in first else "sessions"


def load(path: Path, fmt: str = "auto", origin: str = "local") -> Batch:
    fmt = detect(path) if fmt in ("", "auto") else fmt
    if fmt not in FORMATS:
        raise ValueError(f"unknown import format {fmt!r}")
    return FORMATS[fmt][1](path, origin)
