"""The hub's default space and workspaces: a project path finds (or makes) its workspace and its native space."""

from __future__ import annotations

import os
from pathlib import Path

from django.utils.translation import gettext_noop

from memoryhub.core.redaction import redact
from memoryhub.spaces import space_service
from memoryhub.spaces.models import MemorySpace, Workspace, workspace_slug_for_path

DEFAULT_SPACE_SLUG = "default"
# The words the hub gives the spaces it makes itself, stored in English; own_words() lets a page show them in
# the reader's language while nobody has changed them.
DEFAULT_NAME = gettext_noop("Default")
DEFAULT_DESCRIPTION = gettext_noop("The hub's global native space.")
WORKSPACE_DESCRIPTION = gettext_noop("Native memory of %(path)s.")


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
    return space or space_service.create_own_space(DEFAULT_SPACE_SLUG, DEFAULT_NAME, DEFAULT_DESCRIPTION)


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
        workspace.slug, workspace.name, WORKSPACE_DESCRIPTION % {"path": workspace.path or workspace.name}, workspace)


def own_words(space: MemorySpace) -> dict[str, tuple[str, dict]]:
    """Which of the space's name and description are still the words the hub gave it: {part: (msgid, args)}."""
    words: dict[str, tuple[str, dict]] = {}
    if space.slug == DEFAULT_SPACE_SLUG and space.workspace_id is None:
        if space.name == DEFAULT_NAME:
            words["name"] = (DEFAULT_NAME, {})
        if space.description == DEFAULT_DESCRIPTION:
            words["description"] = (DEFAULT_DESCRIPTION, {})
    elif space.is_default and space.workspace is not None:
        args = {"path": space.workspace.path or space.workspace.name}
        if space.description == WORKSPACE_DESCRIPTION % args:
            words["description"] = (WORKSPACE_DESCRIPTION, args)
    return words
