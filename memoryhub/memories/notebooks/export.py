"""MEMORY.md: a human-readable, newest-first export of a workspace's memories, kept next to its code.

A change to what the file shows (heard from the write gateway) only schedules a regeneration: a
per-workspace cache flag makes a burst of changes enqueue one `memory_md` job, which clears the
flag first, so a change landing mid-render queues the next one. Vault spaces are left out unless
the workspace's `export_vault` is on.

Agents name workspace paths, so the hub writes only where a person switched `export_memory_md`
on, and only at that very path: the directory must be what it says (no symlink on the way, its
real path is the path itself) and the file is created and renamed relative to the directory it
opened (O_NOFOLLOW, dir_fd), so a link planted between the check and the write cannot redirect it.
"""

from __future__ import annotations

import errno
import logging
import os
import secrets
from pathlib import Path

from django.core.cache import cache
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext_noop

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


class NotWritten(runner.JobFailed):
    """Why the hub did not write a workspace's MEMORY.md (export off, no such directory, a symlink), in words the
    job's page gives in the reader's language."""


# What the file system answered, as a reason a person can act on (the OS's own words otherwise).
BECAUSE = {
    errno.ENOENT: gettext_noop("%(path)s does not exist on this machine"),
    errno.ENOTDIR: gettext_noop("%(path)s is not a directory"),
    errno.EACCES: gettext_noop("the hub may not write to %(path)s (permission denied)"),
    errno.EPERM: gettext_noop("the hub may not write to %(path)s (permission denied)"),
    errno.ENOSPC: gettext_noop("the disk holding %(path)s is full"),
    errno.EROFS: gettext_noop("%(path)s is on a read-only file system"),
}


def unwritable(path: str, exc: OSError, otherwise: str) -> NotWritten:
    if exc.errno in BECAUSE:
        return NotWritten(BECAUSE[exc.errno], path=path)
    return NotWritten(otherwise, path=path, reason=exc.strerror or str(exc))


def write_file(workspace: Workspace) -> Path:
    """Replace <workspace>/MEMORY.md atomically, only where a person switched export on; raises NotWritten."""
    if not workspace.export_memory_md:
        raise NotWritten(gettext_noop("MEMORY.md export is off for this workspace (a person switches it on in the "
                                      "dashboard)"))
    path = workspace.path
    if not path or not os.path.isabs(path) or os.path.normpath(path) != path or os.path.realpath(path) != path:
        raise NotWritten(gettext_noop("%(path)s is not a plain absolute directory path (a symlink on the way is "
                                      "refused)"), path=repr(path))
    try:
        directory = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
    except OSError as exc:
        raise unwritable(path, exc, gettext_noop("cannot open %(path)s: %(reason)s")) from exc
    tmp = f".{FILENAME}.{secrets.token_hex(6)}.tmp"
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644, dir_fd=directory)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                handle.write(render(workspace))
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(tmp, FILENAME, src_dir_fd=directory, dst_dir_fd=directory)  # replaces a link, never follows it
        except BaseException:
            os.unlink(tmp, dir_fd=directory)
            raise
    except OSError as exc:
        raise unwritable(f"{path}/{FILENAME}", exc, gettext_noop("cannot write %(path)s: %(reason)s")) from exc
    finally:
        os.close(directory)
    return Path(path) / FILENAME


def pending_key(workspace_id: int) -> str:
    return f"memory-md:{workspace_id}"


def regenerate(workspace_id: int) -> str:
    """Clear the flag, then rewrite the file; returns where it went, or why it was not written."""
    cache.delete(pending_key(workspace_id))
    workspace = Workspace.objects.filter(pk=workspace_id).first()
    if workspace is None:
        return "the workspace is gone"
    try:
        return str(write_file(workspace))
    except NotWritten as exc:
        return str(exc)


def regenerate_job(job) -> dict:
    """The job body: where the file went; a file the hub was asked to write and could not fails the job with the
    reason (an export switched off or a workspace gone since it was queued has nothing to do, and says so)."""
    cache.delete(pending_key(job.params["workspace"]))
    workspace = Workspace.objects.filter(pk=job.params["workspace"]).first()
    if workspace is None:
        return {"skipped": "the workspace is gone"}
    if not workspace.export_memory_md:
        return {"skipped": "MEMORY.md export is off for this workspace"}
    return {"path": str(write_file(workspace))}  # NotWritten fails the job with its reason


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
    if workspace is None or not workspace.export_memory_md or (space.is_vault and not workspace.export_vault):
        return
    transaction.on_commit(lambda: enqueue(workspace))
