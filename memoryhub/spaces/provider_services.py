"""Provider services: a kind's saved config and secrets, and a configured adapter for a space."""

from __future__ import annotations

import os
from pathlib import Path

from django.conf import settings
from django.utils import timezone

from memoryhub.spaces import secrets
from memoryhub.spaces.models import MemorySpace, ProviderService
from providers.base import Provider, ProviderError, ServiceDisabled, SpaceError
from providers.registry import get_provider_class


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


def provider_for(space: MemorySpace, *, even_if_disabled: bool = False) -> Provider:
    """The space's adapter with service config, secrets and space config merged (space wins); a disabled service
    raises ServiceDisabled unless `even_if_disabled` (a Test connection, which may prove it works again)."""
    cls = get_provider_class(space.provider)
    if not space.is_native and not even_if_disabled:
        service = ProviderService.objects.filter(kind=space.provider).first()
        if service is not None and not service.enabled:
            raise ServiceDisabled(f"{cls.label} is disabled after an error ({service.last_error or 'no detail'}); "
                                  "fix its settings on the provider page and test the connection")
    config = {
        **service_config(space.provider),
        **(space.config or {}),
        "_timeout": settings.MEMORYHUB["PROVIDER_TIMEOUT"],
        "_max_bytes": settings.MEMORYHUB["PROVIDER_MAX_BYTES"],
        "_workspace_dir": workspace_dir(space),
    }
    return cls(config, space=space)


def unsaved_space_provider(kind: str, space_config: dict) -> Provider:
    """An adapter for space settings not saved yet (a space being created or edited), on the saved service."""
    return _service_provider(kind, {**service_config(kind), **space_config})


def _service_provider(kind: str, config: dict) -> Provider:
    cls = get_provider_class(kind)
    return cls({**config, "_timeout": settings.MEMORYHUB["PROVIDER_TIMEOUT"],
                "_max_bytes": settings.MEMORYHUB["PROVIDER_MAX_BYTES"]})


def save_service(kind: str, values: dict[str, str]) -> ProviderService:
    """Save a kind's service config: plain fields on the row, secrets in the secrets file (blank keeps).

    Adapters that can check a config before it is used (OpenViking's discovery) get to refuse it;
    then nothing is saved and the old config stays.
    """
    cls = get_provider_class(kind)
    fields = {f.key: f for f in cls.service_fields}
    plain = {k: v for k, v in values.items() if k in fields and not fields[k].secret}
    new_secrets = {k: v for k, v in values.items() if k in fields and fields[k].secret and v}
    _service_provider(kind, {**secrets.for_kind(kind), **new_secrets, **plain}).validate_config()
    secrets.save(kind, new_secrets)
    service, _ = ProviderService.objects.update_or_create(
        kind=kind, defaults={"config": plain, "enabled": True, "last_error": ""})
    return service


def record_space_error(space: MemorySpace, exc: ProviderError) -> None:
    """A provider call for a space failed: note it on the space, and on the service row unless it was the space's
    own (service_wide)."""
    if isinstance(exc, ServiceDisabled):
        return  # nothing was asked: the service's own error is already on record
    MemorySpace.objects.filter(pk=space.pk).update(last_error=exc.message[:2000])
    if service_wide(exc):
        record_service_error(space.provider, exc)


def service_wide(exc: ProviderError) -> bool:
    """Whether an error is the service's (a refused key, an unreachable or failing server) rather than one space's.

    A space's own setting (SpaceConfigError: a bad searchMode, a user the key cannot reach, a missing bank) or an
    id that is not one of its records (SpaceError) belongs to that space alone."""
    return not isinstance(exc, (SpaceError, ServiceDisabled))


def record_service_error(kind: str, exc: ProviderError) -> None:
    """Errors land on the service row; a permanent one (refused credentials) switches it off until a person fixes
    it or a Test connection of the saved settings passes. Errors of one space never reach here (service_wide)."""
    if not service_wide(exc):
        return
    updates = {"last_error": exc.message[:2000], "last_checked": timezone.now()}
    if exc.permanent:
        updates["enabled"] = False
    ProviderService.objects.filter(kind=kind).update(**updates)
