"""Which importer reads which file: every format once, with how to recognise it by its content.

A path may be a file, a folder (a Claude Code project, `~/.codex/sessions`, a `sessions/` folder of logs, a
Mnemosyne data directory) or a zip archive (a ChatGPT, Claude.ai or OpenMemory export). Each file is recognised by
what is in it, not only by its name, so a ChatGPT `conversations.json` is read as one whatever it is called; files in
no format this hub reads are counted as left out, and a path with none at all is refused with a sentence.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from django.utils.translation import gettext_noop

from memoryhub.memories.maintenance.importers import (
    chats, claude_code, codex, engines, generic, hub_export, mnemon, notes, reading, sessions, vault,
)
from memoryhub.memories.maintenance.importers.base import Batch, Progress

Reader = Callable[[list[reading.Source], Batch, str], None]
UNKNOWN = gettext_noop("files in no format this hub reads")
MEDIA = {".png", ".jpg", ".jpeg", ".gif", ".webp", ".heic", ".svg", ".mp3", ".wav", ".m4a", ".ogg", ".mp4", ".webm",
         ".pdf", ".html", ".htm", ".dat"}  # what chat exports carry besides the conversations


def _restore(sources: list[reading.Source], batch: Batch, origin: str) -> None:
    if len(sources) != 1:
        raise reading.Unreadable("import one memoryhub export file at a time")
    batch.restore = hub_export.read(sources[0], batch.errors)


def _zstd(source: reading.Source) -> bool:
    return source.suffix == ".zst"


def _markdown(source: reading.Source) -> bool:
    return source.suffix == ".md"


@dataclass(frozen=True)
class Format:
    label: str  # a msgid: the dashboard shows it translated
    read: Reader
    sniff: Callable[[reading.Source], bool]
    agent: bool = False  # transcripts that name their project directory: "each project into its workspace" applies


# In the order they are tried: the most particular shapes first.
FORMATS: dict[str, Format] = {
    "memoryhub": Format(gettext_noop("memoryhub open export (JSON lines)"), _restore, hub_export.is_export),
    "claude_code": Format(gettext_noop("Claude Code transcripts (~/.claude/projects)"), claude_code.load,
                          claude_code.looks_like, agent=True),
    "codex": Format(gettext_noop("Codex CLI sessions (~/.codex/sessions)"), codex.load, codex.looks_like, agent=True),
    "chatgpt": Format(gettext_noop("ChatGPT export (conversations.json or the export's zip)"), chats.load_chatgpt,
                      chats.looks_like_chatgpt),
    "claude_ai": Format(gettext_noop("Claude.ai export (conversations.json or the export's zip)"), chats.load_claude,
                        chats.looks_like_claude),
    "turns": Format(gettext_noop("Turns, one JSON line each: session_id, user, assistant, at"), generic.load,
                    generic.looks_like, agent=True),
    "mem0": Format(gettext_noop("Mem0 memories (get_all or export JSON)"), engines.load_mem0,
                   engines.looks_like_mem0),
    "openmemory": Format(gettext_noop("OpenMemory export (zip or memories.json)"), engines.load_openmemory,
                         engines.looks_like_openmemory),
    "letta": Format(gettext_noop("Letta archival memory (passages JSON)"), engines.load_letta,
                    engines.looks_like_letta),
    "vault": Format(gettext_noop("Memory vault memories.jsonl"), vault.load_vault, vault.looks_like),
    "sessions": Format(gettext_noop("Session log (JSONL of role and content)"), sessions.load_jsonl,
                       sessions.looks_like),
    "sessions_zstd": Format(gettext_noop("Session log (zstd, multi-frame)"), sessions.load_zstd, _zstd),
    "memory_md": Format(gettext_noop("MEMORY.md / USER.md (§-delimited)"), notes.load_md, _markdown),
    "mnemon_json": Format(gettext_noop("Mnemon import file (JSON)"), mnemon.load_json, mnemon.looks_like),
    "mnemon_db": Format(gettext_noop("Mnemon database (mnemon.db, read-only)"), mnemon.load_db, mnemon.looks_like_db),
    "mnemosyne": Format(gettext_noop("Mnemosyne data directory (entries/ + facts.jsonl)"), vault.load_mnemosyne,
                        lambda source: False),
}


def detect_source(source: reading.Source) -> str:
    """The format of one file, or "" when it is in none this hub reads (media files are not even opened)."""
    if source.suffix in MEDIA:
        return ""
    if codex.is_history(source):
        codex.refuse_history([source], Batch(), "")
    for key, fmt in FORMATS.items():
        if fmt.sniff(source):
            return key
    return ""


def detect(path: Path) -> str:
    """The format of a path (a folder or archive: of its first file in a known format)."""
    found = reading.sources(path)
    if vault.is_mnemosyne(found):
        return "mnemosyne"
    return next((key for key in map(detect_source, found) if key), "")


def load(path: Path, fmt: str = "auto", origin: str = "local", progress: Progress | None = None) -> Batch:
    """Everything under `path` as one batch; `fmt` forces a format (for a folder: its files in that format)."""
    report = progress or (lambda pct, msg, **args: None)
    fmt = "" if fmt in ("", "auto") else fmt
    if fmt and fmt not in FORMATS:
        raise reading.Unreadable(f"unknown import format {fmt!r} (this hub reads {', '.join(FORMATS)})")
    found = reading.sources(path)
    batch = Batch()
    if fmt == "mnemosyne" or (not fmt and vault.is_mnemosyne(found)):
        vault.load_mnemosyne(found, batch, origin)
        return batch
    groups: dict[str, list[reading.Source]] = {}
    unknown = []
    for n, source in enumerate(found, 1):
        if len(found) > 1:
            report(1 + 3 * n // len(found), gettext_noop("looking at %(done)d of %(total)d files"), done=n,
                   total=len(found))
        key = fmt if fmt and len(found) == 1 else _recognised(source, fmt, batch, single=len(found) == 1)
        if key:
            groups.setdefault(key, []).append(source)
        else:
            unknown.append(source.name)
    if not groups:
        shown = ", ".join(unknown[:3]) + (" …" if len(unknown) > 3 else "")
        wanted = f"in the format {fmt}" if fmt else "in a format this hub reads"
        raise reading.Unreadable(f"nothing to import in {path.name or path}: no file {wanted}"
                                 + (f" (looked at {shown})" if shown else " (it is empty)"))
    batch.skip(UNKNOWN, len(unknown))
    for key, group in groups.items():
        report(4, gettext_noop("reading %(total)d files"), total=len(group))
        try:
            FORMATS[key].read(group, batch, origin)
        except reading.Unreadable as exc:
            raise reading.Unreadable(f"{exc}{_hint(group[0], key) if fmt else ''}") from exc
    return batch


def _hint(source: reading.Source, forced: str) -> str:
    """Where a forced format was the wrong one, the one the file looks like."""
    try:
        guess = detect_source(source)
    except reading.Unreadable:
        return ""
    return f"; it looks like {FORMATS[guess].label} (format {guess})" if guess and guess != forced else ""


def _recognised(source: reading.Source, fmt: str, batch: Batch, *, single: bool) -> str:
    """The format to read one file of a folder in: its own, or the forced one if it is in that; a file that cannot
    be read at all is reported and left out (a single file given alone is refused)."""
    try:
        key = detect_source(source)
    except reading.Unreadable as exc:
        if single:
            raise
        batch.errors.append(str(exc))
        return ""
    if not key and single and source.suffix in (".json", ".jsonl"):
        raise reading.Unreadable(_unrecognised(source))
    return key if not fmt or key == fmt else ""


def _unrecognised(source: reading.Source) -> str:
    shape = "JSON lines" if source.suffix == ".jsonl" else "JSON"
    return (f"{source.name} is {shape} in no format this hub reads. For turns from any agent, write one JSON line "
            'per turn: {"session_id", "user", "assistant", "at"} (docs/memory.md, "Bring your history")')


def agent_formats() -> list[str]:
    return [key for key, fmt in FORMATS.items() if fmt.agent]


def choices() -> list[tuple[str, str]]:
    """(key, label msgid) of every format, for a form's select."""
    return [(key, fmt.label) for key, fmt in FORMATS.items()]
