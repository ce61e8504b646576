"""Provider services: a kind's saved config and secrets, and a configured adapter for a space.

A local provider (Holographic, ByteRover) keeps its data on this machine, one store per space: in the hub's
data directory (`<data dir>/providers/<kind>/<slug>-<digest>`), or under the folder a person gave the
service (its root field), or in the directory a space names itself (its directory field). Binding a
workspace writes nothing into it. Two spaces share a store only when their own directory fields name one
directory; a vault never shares. A path reached through a symbolic link is refused.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass, replace
from datetime import datetime

from django.conf import settings
from django.utils import timezone

from memoryhub.spaces import secrets
from memoryhub.spaces.models import MemorySpace, ProviderService
from providers.base import Provider, ProviderError, ServiceDisabled, SpaceConfigError, SpaceError
from providers.registry import get_provider_class


def service_config(kind: str) -> dict:
    """Service-level config of a kind: the DB row's fields plus its secrets."""
    service = ProviderService.objects.filter(kind=kind).first()
    return {**(service.config if service else {}), **secrets.for_kind(kind)}


def store_name(slug: str, pk: int, created_at: datetime) -> str:
    """The folder of one space's store: its slug for people, a digest of its row for uniqueness (a slug freed by
    a deleted space, or an id a restored database hands out again, never reaches the old space's data)."""
    digest = hashlib.sha256(f"{pk}:{created_at.isoformat()}".encode()).hexdigest()[:10]
    return f"{slug}-{digest}"


@dataclass(frozen=True)
class Store:
    """Where one space's records live underneath: a local provider's directory, or the fields a remote engine
    finds them by; and the other spaces of its kind that reach the same records."""

    where: str  # the directory, or "userId=alice, endpoint=…" (secrets left out)
    key: tuple  # what spaces sharing the store have in common
    own_field: bool = False  # a local store the space's own directory field named (else a folder the hub made)
    shared_with: tuple[str, ...] = ()

    @property
    def local(self) -> bool:
        return self.key[0] == "dir"


def store_of(space: MemorySpace) -> Store | None:
    """The space's store and the other spaces that share it (None for the native store); the dashboard shows it."""
    if space.is_native:
        return None
    cls = get_provider_class(space.provider)
    service = service_config(space.provider)
    store = _store(cls, space, service)
    others = MemorySpace.objects.filter(provider=space.provider).exclude(pk=space.pk).order_by("slug")
    return replace(store, shared_with=tuple(o.slug for o in others if _store(cls, o, service).key == store.key))


def _store(cls: type[Provider], space: MemorySpace, service: dict) -> Store:
    config = {**service, **(space.config or {})}
    if cls.locality != "local":
        fields = {f.key: f for f in (*cls.service_fields, *cls.space_fields)}
        values, shown = [], []
        for name in cls.identity_fields:
            field = fields.get(name)
            value = str(config.get(name) or (field.default if field else "") or "").strip()
            if field is not None and field.secret:
                value = hashlib.sha256(value.encode()).hexdigest() if value else ""
            elif value:
                shown.append(f"{name}={value}")
            values.append(value)
        return Store(", ".join(shown), (space.provider, *values))
    own = str((space.config or {}).get(cls.store_dir_field) or "").strip() if cls.store_dir_field else ""
    if own:
        path = os.path.abspath(os.path.expanduser(own))
    else:
        root = str(service.get(cls.store_root_field) or "").strip() if cls.store_root_field else ""
        root = cls.store_root(root) if root else str(settings.DATA_DIR / "providers" / space.provider)
        path = os.path.join(root, store_name(space.slug, space.pk, space.created_at))
    return Store(path, ("dir", space.provider, os.path.normpath(path)), own_field=bool(own))


def _checked_store(space: MemorySpace) -> Store:
    """The space's store, refused when a vault would share it or a symbolic link is on a local store's way."""
    store = store_of(space)
    if store.shared_with:
        vaults = [space.slug] if space.is_vault else []
        vaults += list(MemorySpace.objects.filter(slug__in=store.shared_with, access=MemorySpace.Access.VAULT)
                       .values_list("slug", flat=True))
        if vaults:  # the agent may read this message: it names no other space (the space page lists them)
            raise SpaceConfigError(f"{space.slug} would share its store with another space, and a vault never "
                                   "shares its store: give each its own (the space's page shows which)")
    if store.local:
        if os.path.realpath(store.where) != os.path.normpath(store.where):
            raise SpaceConfigError(f"the store of {space.slug} ({store.where}) is reached through a symbolic link; "
                                   "give the directory's real path")
        if not store.own_field:
            os.makedirs(store.where, mode=0o700, exist_ok=True)
    return store


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
    }
    if not space.is_native:
        store = _checked_store(space)
        if store.local:
            config["_store_dir"] = store.where
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
