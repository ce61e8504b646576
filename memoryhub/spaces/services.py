"""Finding spaces and workspaces, and building a configured provider for a space."""

from __future__ import annotations

import os
from pathlib import Path

from django.conf import settings
from django.db import IntegrityError, transaction

from memoryhub.spaces import secrets
from memoryhub.spaces.models import SLUG_RE, MemorySpace, ProviderService, Workspace, workspace_slug_for_path
from providers.base import Provider
from providers.registry import get_provider_class

DEFAULT_SPACE_SLUG = "default"


class NotFound(Exception):
    """A workspace or space that does not exist."""


def service_config(kind: str) -> dict:
    """Service-level config of a kind: the DB row's fields plus its secrets."""
    service = ProviderService.objects.filter(kind=kind).first()
    return {**(service.config if service else {}), **secrets.for_kind(kind)}


def workspace_dir(space: MemorySpace) -> str:
    """Where workspace-following local providers keep data: the workspace path, else the data dir."""
    if space.workspace and space.workspace.path and os.path.isdir(space.workspace.path):
        return str(Path(space.workspace.path) / ".memoryhub")
    scope = space.workspace.slug if space.workspace else "global"
    return str(settings.DATA_DIR / "providers" / scope)


def provider_for(space: MemorySpace) -> Provider:
    """The space's adapter with service config, secrets and space config merged (space wins)."""
    cls = get_provider_class(space.provider)
    config = {
        **service_config(space.provider),
        **(space.config or {}),
        "_timeout": settings.MEMORYHUB["PROVIDER_TIMEOUT"],
        "_max_bytes": settings.MEMORYHUB["PROVIDER_MAX_BYTES"],
        "_workspace_dir": workspace_dir(space),
    }
    return cls(config, space=space)


def default_space() -> MemorySpace:
    """The global native space every hub has; created on first use if someone deleted it."""
    space = MemorySpace.objects.filter(slug=DEFAULT_SPACE_SLUG).first()
    if space:
        return space
    try:
        with transaction.atomic():
            return MemorySpace.objects.create(
                slug=DEFAULT_SPACE_SLUG, name="Default", provider="native", is_default=True,
                description="The hub's global native space.",
            )
    except IntegrityError:
        return MemorySpace.objects.get(slug=DEFAULT_SPACE_SLUG)


def resolve_workspace(value: str) -> Workspace:
    """An absolute path finds or creates its workspace (and its native space); a slug must exist."""
    value = value.strip()
    if value.startswith("/"):
        path = os.path.normpath(value)
        slug = workspace_slug_for_path(path)
        workspace, _ = Workspace.objects.get_or_create(slug=slug, defaults={"name": Path(path).name or "/", "path": path})
    else:
        workspace = Workspace.objects.filter(slug=value).first()
        if not workspace:
            raise NotFound(f"unknown workspace {value!r}")
    workspace_space(workspace)
    return workspace


def workspace_space(workspace: Workspace) -> MemorySpace:
    """The workspace's own native space, its default for writes."""
    space = MemorySpace.objects.filter(workspace=workspace, is_default=True).first()
    if space:
        return space
    try:
        with transaction.atomic():
            return MemorySpace.objects.create(
                slug=workspace.slug, name=workspace.name, workspace=workspace, provider="native", is_default=True,
                description=f"Native memory of {workspace.path or workspace.name}.",
            )
    except IntegrityError:
        return MemorySpace.objects.get(slug=workspace.slug)


def valid_slug(slug: str) -> bool:
    return bool(SLUG_RE.match(slug))
