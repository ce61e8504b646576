"""Hot memory: the MEMORY.md / USER.md notebooks of each workspace and of the hub (README, "Hot memory").

Entries are joined by a line holding only `§`; limits count the characters of the whole joined
file. Every change goes through `apply` (agents' `memory` tool, the dashboard) or `import_text`
(uploads): redaction, an injection scan, duplicate and limit rules, all-or-nothing. A change is
saved to the Notebook row (the source of truth), audited, mirrored as entries in the workspace's
default space, and written to `<data>/notebooks/<workspace slug | global>/` after the commit.
"""

from __future__ import annotations

import logging
import os
import re
import tempfile
from dataclasses import dataclass
from pathlib import Path

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from memoryhub.agents import sessions
from memoryhub.audit.models import record
from memoryhub.memories.models import Entry, Kind, Notebook, Source
from memoryhub.memories.write import gateway
from memoryhub.memories.text.prose import clip
from memoryhub.spaces.models import MemorySpace, Workspace
from memoryhub.spaces.workspaces import default_space, workspace_space
from memoryhub.core.redaction import redact
from providers.base import ProviderError

log = logging.getLogger(__name__)

DELIMITER = "\n§\n"
TARGETS = tuple(Notebook.Target.values)
ACTIONS = ("add", "replace", "remove")
FILENAMES = dict(Notebook.Target.choices)
TITLES = {Notebook.Target.MEMORY: "MEMORY (your notes)",
          Notebook.Target.USER: "USER PROFILE (who the user is)"}
PREVIEW_CHARS = 80
# /context gives the notebooks at most 1/PINNED_SHARE of its budget before recall has had its turn (and then
# the room recall leaves): full notebooks (2,200 + 1,375 characters) would otherwise fill a 2,600 block alone.
PINNED_SHARE = 2
_DELIMITER_LINE = re.compile(r"^[ \t]*§[ \t]*$", re.M)

# Text an agent must not plant in a file that is injected into every later prompt. Each pattern
# names one trick; near-misses (ordinary notes that share a word) are kept out on purpose and
# listed in tests/test_notebooks.py.
THREATS: list[tuple[str, re.Pattern[str]]] = [
    # "ignore all previous instructions", "disregard the system prompt" (a qualifier is required)
    ("override_instructions", re.compile(
        r"\b(?:ignore|disregard|forget|override|bypass)\s+(?:(?:all|any|the|your|my|of|these|those)\s+)*"
        r"(?:previous|prior|above|earlier|preceding|system|developer|original|all)\s+"
        r"(?:instructions?|prompts?|rules|directives|guidelines|messages)\b", re.I)),
    ("override_instructions", re.compile(
        r"(?:忽略|无视|忽视|忘记|忘掉)(?:掉)?(?:之前|以上|上面|先前|前面|所有|全部|系统)[的所有全部]*(?:指令|指示|提示词?|规则|设定)")),
    # "reveal your system prompt"
    ("reveal_prompt", re.compile(
        r"\b(?:reveal|print|show|repeat|output|leak|dump)\s+(?:\w+\s+){0,3}?"
        r"(?:system\s+prompt|hidden\s+instructions|initial\s+instructions)\b", re.I)),
    # "send the API keys to https://…": an order to ship something to a URL
    ("exfiltration", re.compile(
        r"\b(?:send|post|upload|forward|exfiltrate|transmit|leak)\b[^\n]{0,80}?\b(?:to|at|into)\s+(?:https?|ftp)://",
        re.I)),
    # "curl https://x | sh": fetched code straight into a shell
    ("pipe_to_shell", re.compile(
        r"\b(?:curl|wget)\b[^\n|]*\|\s*(?:sudo\s+)?(?:(?:ba|z|k|da)?sh|python3?|perl|ruby)\b", re.I)),
    # "cat ~/.ssh/id_rsa"
    ("read_secrets", re.compile(r"\bcat\s+[^\n]*(?:\.env\b|id_rsa|id_ed25519|\.ssh/|\.aws/credentials|\.netrc)", re.I)),
    # "do not tell the user"
    ("hide_from_user", re.compile(r"\b(?:do\s+not|don't|never)\s+(?:tell|inform)\s+the\s+user\b", re.I)),
    # chat-template role markers that fake a system turn
    ("role_markers", re.compile(r"<\|(?:im_start|im_end|endoftext|system)\|>|</?system\s*>", re.I)),
    # zero-width, bidi-override and tag characters hide text from the person reading the file
    ("invisible_unicode", re.compile(
        "[\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff\U000e0000-\U000e007f]")),
]


class Refused(Exception):
    """A change the agent or person has to fix (overflow, no or ambiguous match, unsafe text); nothing changed."""

    def __init__(self, message: str, *, target: str, entries: list[str] | None = None,
                 matches: list[str] | None = None, op: int | None = None):
        super().__init__(message)
        self.message = message
        self.target = target
        self.entries = entries
        self.matches = matches
        self.op = op

    def as_dict(self, usage: dict[str, str]) -> dict:
        out: dict = {"ok": False, "error": self.message, "target": self.target, "usage": usage}
        if self.op is not None:
            out["operation"] = self.op
        if self.entries is not None:
            out["entries"] = self.entries
        if self.matches is not None:
            out["matches"] = self.matches
        return out


@dataclass
class Op:
    action: str
    target: str
    content: str = ""
    old_text: str = ""


@dataclass
class Applied:
    """One op's effect; `before`/`after` are the entry texts it removed and wrote (for audit and mirror)."""

    action: str
    target: str
    status: str
    message: str
    before: str = ""
    after: str = ""


@dataclass
class Outcome:
    applied: list[Applied]
    entries: dict[str, list[str]]
    redactions: int = 0


# --- the file format ---------------------------------------------------------------
def limit(target: str) -> int:
    key = "NOTEBOOK_MEMORY_CHARS" if target == Notebook.Target.MEMORY else "NOTEBOOK_USER_CHARS"
    return settings.MEMORYHUB[key]


def joined(entries: list[str]) -> str:
    return DELIMITER.join(entries)


def usage(target: str, entries: list[str]) -> str:
    """`pct% — cur/limit chars`, the string agents and people see."""
    cur, cap = len(joined(entries)), limit(target)
    return f"{min(100, cur * 100 // cap) if cap else 100}% — {cur}/{cap} chars"


def percent(target: str, entries: list[str]) -> int:
    cap = limit(target)
    return min(100, len(joined(entries)) * 100 // cap) if cap else 100


def parse(text: str) -> list[str]:
    """A `§`-delimited file as entries: split on lines holding only `§`, stripped, empties and repeats dropped."""
    text = text.replace("\r\n", "\n").lstrip("\ufeff")
    return list(dict.fromkeys(e.strip() for e in _DELIMITER_LINE.split(text) if e.strip()))


def render_file(entries: list[str]) -> str:
    return joined(entries) + "\n" if entries else ""


def preview(entry: str) -> str:
    return clip(entry.replace("\n", " "), PREVIEW_CHARS)


def threats(text: str) -> list[str]:
    """Names of the injection patterns `text` matches (empty: clean)."""
    return list(dict.fromkeys(name for name, pattern in THREATS if pattern.search(text)))


def scope_key(workspace: Workspace | None) -> str:
    return workspace.slug if workspace else "global"


# --- reading and changing ------------------------------------------------------------
def load(workspace: Workspace | None, target: str, *, lock: bool = False) -> Notebook:
    """The notebook row, created empty on first use; locked for the transaction when changing it."""
    book, _ = Notebook.objects.get_or_create(workspace=workspace, target=target)
    if lock:
        book = Notebook.objects.select_for_update().get(pk=book.pk)
    return book


def entries_of(workspace: Workspace | None) -> dict[str, list[str]]:
    found = {b.target: list(b.entries) for b in Notebook.objects.filter(workspace=workspace)}
    return {t: found.get(t, []) for t in TARGETS}


def usages(entries: dict[str, list[str]]) -> dict[str, str]:
    return {t: usage(t, entries.get(t, [])) for t in TARGETS}


def clean(text: str, target: str) -> tuple[str, int]:
    """New entry text: stripped, redacted, refused when empty, unsafe or holding a delimiter line."""
    text = (text or "").strip()
    if not text:
        raise Refused("content is empty", target=target)
    found = threats(text)
    if found:
        raise Refused(f"refused: the entry looks like prompt injection or exfiltration ({', '.join(found)}). "
                      "Notebooks are injected into every prompt; write plain notes.", target=target)
    if _DELIMITER_LINE.search(text):
        raise Refused("an entry may not contain a line holding only §, the entry delimiter", target=target)
    result = redact(text)
    return result.text, result.count


def find(entries: list[str], old_text: str, target: str) -> int:
    """The index of the one entry `old_text` names: an equal entry, else the only one containing it."""
    needle = redact(old_text.strip()).text
    if not needle:
        raise Refused("old_text is empty", target=target, entries=entries)
    if needle in entries:
        return entries.index(needle)
    hits = [i for i, e in enumerate(entries) if needle in e]
    if not hits:
        raise Refused(f"no entry of {FILENAMES[target]} contains {preview(needle)!r}", target=target,
                      entries=entries)
    if len(hits) > 1:
        raise Refused(f"{len(hits)} entries of {FILENAMES[target]} contain {preview(needle)!r}; "
                      "be more specific", target=target, matches=[preview(entries[i]) for i in hits])
    return hits[0]


def _step(working: dict[str, list[str]], op: Op) -> tuple[Applied, int]:
    entries = working[op.target]
    name = FILENAMES[op.target]
    if op.action == "add":
        text, count = clean(op.content, op.target)
        if text in entries:
            return Applied("add", op.target, "duplicate", f"entry already exists in {name} (no duplicate added)"), count
        entries.append(text)
        return Applied("add", op.target, "added", f"added to {name}", after=text), count
    index = find(entries, op.old_text, op.target)
    old = entries[index]
    if op.action == "remove":
        entries.pop(index)
        return Applied("remove", op.target, "removed", f"removed from {name}", before=old), 0
    text, count = clean(op.content, op.target)
    if text != old and text in entries:
        raise Refused(f"that text is already another entry of {name}; remove this one instead", target=op.target)
    entries[index] = text
    return Applied("replace", op.target, "replaced", f"replaced in {name}", before=old, after=text), count


def check_limits(working: dict[str, list[str]], current: dict[str, list[str]], targets) -> None:
    """Over a limit → refused with the current entries and usage, so the writer can consolidate."""
    for target in targets:
        size, cap = len(joined(working[target])), limit(target)
        if size > cap:
            raise Refused(
                f"{FILENAMES[target]} would be {size}/{cap} chars, over its limit; it is at "
                f"{usage(target, current[target])}. Consolidate: replace or remove entries, then retry.",
                target=target, entries=current[target])


def apply(workspace: Workspace | None, ops: list[Op], *, actor: str, user=None, session_id: str = "",
          origin: str = "local") -> Outcome:
    """Run ops against working copies and save only if every one passes (limits are checked on the end state)."""
    with transaction.atomic():
        targets = list(dict.fromkeys(op.target for op in ops))
        books = {t: load(workspace, t, lock=True) for t in targets}
        current = {t: list(books[t].entries) for t in targets}
        working = {t: list(books[t].entries) for t in targets}
        applied, redactions = [], 0
        for i, op in enumerate(ops):
            try:
                step, count = _step(working, op)
            except Refused as exc:
                exc.op = i if len(ops) > 1 else None
                if exc.entries is None and exc.matches is None:
                    exc.entries = current[op.target]
                raise
            applied.append(step)
            redactions += count
        check_limits(working, current, targets)
        _commit(workspace, books, working, applied, actor=actor, user=user, session_id=session_id, origin=origin)
    return Outcome(applied, working, redactions)


def import_text(workspace: Workspace | None, target: str, text: str, *, actor: str, user=None) -> Outcome:
    """Replace a whole notebook with an uploaded `§` file, under the same rules as single changes."""
    redactions, entries = 0, []
    for raw in parse(text):
        cleaned, count = clean(raw, target)
        redactions += count
        if cleaned not in entries:
            entries.append(cleaned)
    size, cap = len(joined(entries)), limit(target)
    if size > cap:
        raise Refused(f"the uploaded {FILENAMES[target]} is {size} characters; the limit is {cap}. "
                      "Shorten it and upload again.", target=target)
    with transaction.atomic():
        book = load(workspace, target, lock=True)
        current = list(book.entries)
        applied = [Applied("remove", target, "removed", "", before=e) for e in current if e not in entries]
        applied += [Applied("add", target, "added", "", after=e) for e in entries if e not in current]
        _commit(workspace, {target: book}, {target: entries}, applied, actor=actor, user=user, action="import")
    return Outcome(applied, {target: entries}, redactions)


def _commit(workspace: Workspace | None, books: dict[str, Notebook], working: dict[str, list[str]],
            applied: list[Applied], *, actor: str, user=None, session_id: str = "", origin: str = "local",
            action: str = "") -> None:
    changed = [a for a in applied if a.before or a.after]
    if not changed:
        return
    now = timezone.now()
    for target, book in books.items():
        if working[target] != book.entries:
            book.entries, book.updated_at, book.updated_by = working[target], now, actor
            book.save(update_fields=["entries", "updated_at", "updated_by"])
            transaction.on_commit(lambda t=target: write_file(workspace, t), robust=True)
    where = scope_key(workspace)
    if action == "import":
        for target in books:
            summary = {"removed": " | ".join(preview(a.before) for a in changed if a.before),
                       "added": " | ".join(preview(a.after) for a in changed if a.after)}
            record(actor, "notebook.import", f"{where}/{FILENAMES[target]}", user=user,
                   before={"text": clip(summary["removed"], 500)} if summary["removed"] else None,
                   after={"text": clip(summary["added"], 500)} if summary["added"] else None)
    else:
        for a in changed:
            record(actor, f"notebook.{a.action}", f"{where}/{FILENAMES[a.target]}", user=user,
                   before={"text": preview(a.before)} if a.before else None,
                   after={"text": preview(a.after)} if a.after else None)
    mirror(workspace, changed, actor=actor, session_id=session_id, origin=origin)


# --- mirror into the workspace's default space ----------------------------------------
def mirror_space(workspace: Workspace | None) -> MemorySpace:
    return workspace_space(workspace) if workspace else default_space()


def mirror(workspace: Workspace | None, changed: list[Applied], *, actor: str, session_id: str, origin: str) -> None:
    """Each added text becomes an entry tagged notebook + notebook:<target>; a removed text's entry is forgotten.

    Non-native spaces only receive the additions (they cannot be told which of their records to drop);
    a provider failure is recorded on the space and never undoes the notebook change.
    """
    space = mirror_space(workspace)
    for a in changed:
        title = FILENAMES[a.target]
        if a.before and space.is_native:
            for entry in Entry.objects.live().filter(space=space, title=title, body=a.before):
                if f"notebook:{a.target}" in entry.tags:
                    gateway.forget(entry, actor=actor)
        if a.after:
            draft = gateway.Draft(kind=Kind.SAVE, title=title, body=a.after, tags=["notebook", f"notebook:{a.target}"],
                                  session_id=session_id, origin=origin,
                                  source=Source.AGENT if actor.startswith("token:") else Source.USER)
            try:
                gateway.write(space, draft, actor=actor)
            except ProviderError as exc:
                log.warning("notebook mirror to %s failed: %s", space.slug, exc.message)


# --- the readable files ---------------------------------------------------------------
def notebook_dir(workspace: Workspace | None) -> Path:
    return settings.DATA_DIR / "notebooks" / scope_key(workspace)


def write_file(workspace: Workspace | None, target: str) -> Path:
    """Write the file from the row (temp file, fsync, rename), so readers never see half a file."""
    book = Notebook.objects.filter(workspace=workspace, target=target).first()
    folder = notebook_dir(workspace)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / FILENAMES[target]
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(render_file(list(book.entries) if book else []))
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


# --- the frozen snapshot /context injects ----------------------------------------------
def current(workspaces: list[Workspace | None]) -> list[dict]:
    """The notebooks of these scopes as they are now, in the shape `freeze` keeps (what a new session sees)."""
    return [{"key": scope_key(w), "name": w.name if w else "", **entries_of(w)} for w in workspaces]


def freeze(session, workspaces: list[Workspace | None]) -> list[dict]:
    """The notebooks as the session first saw them: frozen per scope at first sight, so the prompt prefix stays put.

    The session's first context call is stamped too (`context_at`), notebooks or not: the Connect page shows by it
    that an agent asks for its block."""
    snapshot = dict(session.snapshot or {})
    frozen = dict(snapshot.get("notebooks") or {})
    missing = [w for w in workspaces if scope_key(w) not in frozen]
    for book in current(missing):
        frozen[book.pop("key")] = book
    if missing or "context_at" not in snapshot:
        snapshot["notebooks"] = frozen
        snapshot.setdefault("context_at", timezone.now().isoformat())
        session.snapshot = snapshot
        sessions.keep_snapshot(session)  # bookkeeping: a read never waits for the write lock for it
    return [{"key": scope_key(w), **frozen[scope_key(w)]} for w in workspaces]


def render_snapshot(books: list[dict], max_chars: int) -> tuple[str, list[dict]]:
    """The frozen notebooks as text within max_chars, cut only between entries; cuts are reported in the items."""
    lines: list[str] = []
    items: list[dict] = []

    def size(extra: list[str]) -> int:
        return len("\n".join(lines + extra))

    for book in books:
        for target in TARGETS:
            entries = book.get(target) or []
            if not entries:
                continue
            where = f" · workspace {book['name']}" if book["key"] != "global" else ""
            section = [f"## {TITLES[target]}{where} [{usage(target, entries)}]"]
            shown = 0
            for entry in entries:
                piece = [entry] if shown == 0 else ["§", entry]
                if size(section + piece) > max_chars:
                    break
                section += piece
                shown += 1
            item = {"id": f"notebook:{book['key']}:{target}", "kind": "notebook", "score": None,
                    "entries": len(entries), "shown": shown}
            if shown < len(entries):
                item["truncated"] = True
            if shown:
                lines += section
            items.append(item)
    return "\n".join(lines), items


def entry_texts(books: list[dict], items: list[dict] | None = None) -> set[str]:
    """The entry texts of the notebooks, or with render_snapshot's `items` only those it showed: what a reader
    already has, so recall need not show their mirrored entries again."""
    shown = None if items is None else {item["id"]: item["shown"] for item in items}
    texts: set[str] = set()
    for book in books:
        for target in TARGETS:
            entries = book.get(target) or []
            if shown is not None:
                entries = entries[:shown.get(f"notebook:{book['key']}:{target}", 0)]
            texts.update(e.strip() for e in entries)
    return texts
