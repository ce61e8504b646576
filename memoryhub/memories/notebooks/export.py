"""MEMORY.md: a human-readable, newest-first export of a workspace's memories, kept next to its code.

A change to what the file shows (heard from the write gateway) only schedules a regeneration: a
per-workspace cache flag makes a burst of changes enqueue one `memory_md` job, which clears the
flag first, so a change landing mid-render queues the next one. Vault spaces are left out unless
the workspace's `export_vault` is on.
"""

from __future__ import annotations

import logging
import os
import tempfile
from pathlib import Path

from django.core.cache import cache
from django.db import transaction
from django.utils import timezone

from memoryhub.jobs import runner
from memoryhub.memories.models import Entry, Kind
from memoryhub.spaces.models import MemorySpace, Workspace

log = logging.getLogger(__name__)
FILENAME = "MEMORY.md"
PENDING_SECONDS = 300
SHOWN = {"remember", "update", "forget", "retag", "restore"}  # the operations that change what the file shows


def entries_for(workspace: Workspace):
    """What the file shows: live explicit memories (turn transcripts stay in the hub)."""
    spaces = MemorySpace.objects.filter(workspace=workspace, provider="native")
    if not workspace.export_vault:
        spaces = spaces.exclude(access="vault")
    return Entry.objects.live().filter(space__in=spaces).exclude(kind=Kind.TURN).order_by("-at", "-id")


def block(entry: Entry) -> str:
    at = timezone.localtime(entry.at).strftime("%Y-%m-%d %H:%M")
    lines = [f"## {at} · [{entry.category}] {entry.title or entry.summary or '(untitled)'}", ""]
    if entry.tags:
        lines.append("- tags: " + " ".join(f"#{tag.replace(' ', '-')}" for tag in entry.tags))
    if entry.related:
        lines.append("- related: " + ", ".join(entry.related))
    if entry.session_id:
        lines.append(f"- session: {entry.session_id}")
    lines.append(f"- id: {entry.pk}")
    return "\n".join(lines + ["", entry.body.strip(), ""])


def render(workspace: Workspace) -> str:
    head = f"# MEMORY · {workspace.name}\n\n<!-- Written by memoryhub; edits here are overwritten. -->\n"
    return "\n".join([head, *(block(e) for e in entries_for(workspace).iterator())])


def write_file(workspace: Workspace) -> Path | None:
    """Replace <workspace>/MEMORY.md atomically when the workspace has a writable directory."""
    if not workspace.path or not os.path.isdir(workspace.path) or not os.access(workspace.path, os.W_OK):
        return None
    target = Path(workspace.path) / FILENAME
    fd, tmp = tempfile.mkstemp(dir=workspace.path, prefix=f".{FILENAME}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(render(workspace))
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, 0o644)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return target


def pending_key(workspace_id: int) -> str:
    return f"memory-md:{workspace_id}"


def regenerate(workspace_id: int) -> str:
    """Clear the flag, then rewrite the file; returns where it went ("" when the workspace has no directory)."""
    cache.delete(pending_key(workspace_id))
    workspace = Workspace.objects.filter(pk=workspace_id).first()
    target = write_file(workspace) if workspace else None
    return str(target or "")


def regenerate_job(job) -> dict:
    return {"path": regenerate(job.params["workspace"])}


def enqueue(workspace: Workspace) -> None:
    if not cache.add(pending_key(workspace.pk), 1, PENDING_SECONDS):
        return
    try:
        runner.enqueue("memory_md", params={"workspace": workspace.pk}, label=f"MEMORY.md · {workspace.name}")
    except Exception:  # a broken broker must never fail the agent's committed write
        cache.delete(pending_key(workspace.pk))
        log.exception("could not schedule MEMORY.md for workspace %s", workspace.pk)


def on_entries_changed(sender, space: MemorySpace, operation: str, **kwargs) -> None:
    if operation in SHOWN:
        schedule(space)


def schedule(space: MemorySpace) -> None:
    """After the change commits, queue one regeneration of the space's workspace file (if it shows this space)."""
    workspace = space.workspace
    if workspace is None or (space.is_vault and not workspace.export_vault):
        return
    transaction.on_commit(lambda: enqueue(workspace))
