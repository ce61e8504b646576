"""The hub's default space and workspaces: a project path finds (or makes) its workspace and its native space."""

from __future__ import annotations

import os
from pathlib import Path

from memoryhub.core.redaction import redact
from memoryhub.spaces import space_service
from memoryhub.spaces.models import MemorySpace, Workspace, workspace_slug_for_path

DEFAULT_SPACE_SLUG = "default"


class NotFound(Exception):
    """A workspace or space that does not exist."""


class MayNotCreate(Exception):
    """The caller may use what exists but not make a new workspace or space (a non-local or restricted token)."""


def default_space(*, create: bool = True) -> MemorySpace:
    """The global native space every hub has; created on first use if someone deleted it (by whoever may)."""
    # Most writes land here, so the lookup skips the ORM's query building.
    space = next(iter(MemorySpace.objects.raw("SELECT * FROM spaces_memoryspace WHERE slug = %s", [DEFAULT_SPACE_SLUG])), None)
    if space is None and not create:
        raise MayNotCreate("the hub's default space is gone; a person or an unrestricted local token must make it")
    return space or space_service.create_own_space(DEFAULT_SPACE_SLUG, "Default", "The hub's global native space.")


def resolve_workspace(value: str, *, create: bool = True, actor: str = "hub") -> Workspace:
    """An absolute path finds (or, with `create`, makes) its workspace and its native space; a slug must exist.

    The path and name are kept redacted: a secret in a directory name must not reach the dashboard or job labels."""
    value = value.strip()
    if value.startswith("/"):
        path = os.path.normpath(value)
        slug = workspace_slug_for_path(path)
        workspace = Workspace.objects.filter(slug=slug).first()
        if workspace is None:
            if not create:
                raise MayNotCreate(f"no workspace for {redact(path).text!r}; only an unrestricted local token "
                                   "(or a person) may bind a new path")
            shown = redact(path).text
            workspace, _ = Workspace.objects.get_or_create(slug=slug, defaults={
                "name": Path(shown).name or "/", "path": shown, "created_by": actor})
    else:
        workspace = Workspace.objects.filter(slug=value).first()
        if not workspace:
            raise NotFound(f"unknown workspace {value!r}")
    workspace_space(workspace, create=create)
    return workspace


def workspace_space(workspace: Workspace, *, create: bool = True) -> MemorySpace:
    """The workspace's own native space, its default for writes."""
    space = MemorySpace.objects.filter(workspace=workspace, is_default=True).first()
    if space is None and not create:
        raise MayNotCreate(f"workspace {workspace.slug!r} has no space of its own; only an unrestricted local "
                           "token (or a person) may make one")
    return space or space_service.create_own_space(
        workspace.slug, workspace.name, f"Native memory of {workspace.path or workspace.name}.", workspace)
