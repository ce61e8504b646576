"""The one way a space is created, changed or removed (the API, the dashboard and pack imports use it).

Each change is checked against the space's provider (its kind exists, the config holds only the
space fields it declares, required ones filled) and leaves an audit record. Refusals are ApiError
naming the field, so the API answers them as they are and a form shows them beside the field.
Deleting a native space deletes its data; memoryhub.memories unindexes it on `pre_delete`.
"""

from __future__ import annotations

import logging

from django.db import IntegrityError, transaction
from django.utils.translation import gettext as _

from memoryhub.audit.changes import differing
from memoryhub.audit.models import record
from memoryhub.core.errors import ApiError, bad
from memoryhub.core.redaction import redact
from memoryhub.spaces.models import SLUG_RE, MemorySpace, Workspace
from memoryhub.spaces.provider_services import unsaved_space_provider
from providers.base import ProviderError, SpaceConfigError
from providers.registry import PROVIDERS, get_provider_class

log = logging.getLogger(__name__)
EDITABLE = ("name", "access", "active", "workspace", "description", "config")


def valid_slug(slug: str) -> bool:
    return bool(SLUG_RE.match(slug))


def check_slug(slug: str) -> None:
    if not valid_slug(slug):
        raise bad("slug must be lower-case letters, digits, - or _, starting with a letter or digit", "slug")


def check_provider(kind: str) -> None:
    if kind not in PROVIDERS:
        raise bad(f"provider must be one of: {', '.join(PROVIDERS)}", "provider")


def check_access(access: str) -> None:
    if access not in MemorySpace.Access.values:
        raise bad(f"access must be one of: {', '.join(MemorySpace.Access.values)}", "access")


def check_config(kind: str, config: dict) -> None:
    """Only the provider's declared space fields, as plain values, with every required one filled."""
    fields = {f.key: f for f in get_provider_class(kind).space_fields}
    for key, value in config.items():
        if key not in fields:
            raise bad(f"{key!r} is not a space field of {kind} (fields: {', '.join(fields) or 'none'})", "config")
        if not isinstance(value, (str, int, float, bool)):
            raise bad(f"config {key!r} must be a string, number or boolean", "config")
    missing = [k for k, f in fields.items() if f.required and config.get(k) in (None, "")]
    if missing:
        raise bad(f"config needs {', '.join(missing)} for {kind}", "config")
    problems = get_provider_class(kind).space_problems(config)
    if problems:
        key = next(iter(problems))
        raise bad("; ".join(f"config {k} {why}" for k, why in problems.items()), f"config.{key}")


def check_with_service(kind: str, config: dict) -> None:
    """Ask the provider whether the space's settings work with its saved service (OpenViking: can the key reach
    this user?); a refusal of the space's own setting is a 400 naming it. A service that cannot be asked right
    now (down, a refused key) does not stop the space: its reads and writes will say so, and the service's own
    test is on the providers page."""
    if kind == MemorySpace.NATIVE:
        return
    provider = unsaved_space_provider(kind, config)
    try:
        provider.validate_space()
    except SpaceConfigError as exc:
        raise bad(f"config {exc.key}: {exc.message}" if exc.key else exc.message,
                  f"config.{exc.key}" if exc.key else "config") from exc
    except ProviderError as exc:
        log.info("could not check the %s space settings with the service: %s", kind, exc.message)
    finally:
        provider.close()


def create_space(*, slug: str, name: str, actor: str, user=None, provider: str = MemorySpace.NATIVE,
                 access: str = MemorySpace.Access.OPEN, active: bool = True, description: str = "",
                 config: dict | None = None, workspace: Workspace | None = None, selection: dict | None = None,
                 settings: dict | None = None, is_default: bool = False) -> MemorySpace:
    """A new space a person or an agent asked for; `conflict` when the slug is taken. `is_default` makes it its
    workspace's own space (a pack of one restored into a workspace made for it)."""
    config = config or {}
    name, description = redact(name).text, redact(description).text
    check_slug(slug)
    check_provider(provider)
    check_access(access)
    check_config(provider, config)
    check_with_service(provider, config)
    with transaction.atomic():
        if MemorySpace.objects.filter(slug=slug).exists():
            raise ApiError("conflict", f"space {slug!r} exists", "slug")
        return _create(actor, user, slug=slug, name=name, provider=provider, access=access, active=active,
                       description=description, config=config, workspace=workspace, selection=selection or {},
                       settings=settings or {}, is_default=is_default)


def create_own_space(slug: str, name: str, description: str, workspace: Workspace | None = None) -> MemorySpace:
    """A native space the hub makes on first use (the global default, a workspace's own); a race finds the winner's.

    Its slug is the hub's own (a workspace's is derived from its path), so it is not held to SLUG_RE."""
    try:
        with transaction.atomic():
            return _create("hub", None, slug=slug, name=name, description=description, workspace=workspace,
                           provider=MemorySpace.NATIVE, is_default=True)
    except IntegrityError:
        return MemorySpace.objects.get(slug=slug)


def audit_state(space: MemorySpace) -> dict:
    """A space as its audit records show it (its config holds no secrets: those are the service's)."""
    return {"name": space.name, "provider": space.provider, "access": space.access, "active": space.active,
            "workspace": space.workspace.slug if space.workspace else None, "description": space.description,
            "config": space.config}


def _create(actor: str, user, **fields) -> MemorySpace:
    space = MemorySpace.objects.create(**fields)
    record(actor, "space.create", space.slug, user=user, after=audit_state(space))
    return space


def update_space(space: MemorySpace, *, actor: str, user=None, **changes) -> MemorySpace:
    """Change what a person may change about a space (never its slug or provider)."""
    unknown = set(changes) - set(EDITABLE)
    if unknown:
        raise TypeError(f"a space's {', '.join(sorted(unknown))} cannot be changed")
    if "access" in changes:
        check_access(changes["access"])
    if "config" in changes:
        check_config(space.provider, changes["config"])
        if changes["config"] != (space.config or {}):
            check_with_service(space.provider, changes["config"])
    for text in ("name", "description"):
        if isinstance(changes.get(text), str):
            changes[text] = redact(changes[text]).text
    before = audit_state(space)
    for name, value in changes.items():
        setattr(space, name, value)
    with transaction.atomic():
        space.save()
        before, after = differing(before, audit_state(space))
        record(actor, "space.edit", space.slug, user=user, before=before, after=after)
    return space


def set_active(space: MemorySpace, active: bool, *, actor: str, user=None) -> None:
    """An inactive space takes no automatic reads or writes."""
    with transaction.atomic():
        MemorySpace.objects.filter(pk=space.pk).update(active=active)
        before, space.active = space.active, active
        record(actor, "space.activate" if active else "space.deactivate", space.slug, user=user,
               before={"active": before}, after={"active": active})


def deletion_blocker(space: MemorySpace) -> str:
    """Why a space may not be deleted, or "": the hub always keeps one native space to write to."""
    if space.is_native and space.is_default and not MemorySpace.objects.filter(provider=MemorySpace.NATIVE).exclude(
            pk=space.pk).exists():
        return _("This is the last native space; agents would have nowhere to write. Create another native "
                 "space first.")
    return ""


def delete_space(space: MemorySpace, *, actor: str, user=None, **detail) -> None:
    """Delete a native space with its data, or disconnect a third-party one (its data stays with the provider).

    `detail` (what was lost, say) goes into the audit record."""
    blocker = deletion_blocker(space)
    if blocker:
        raise ApiError("conflict", blocker)
    slug, before = space.slug, audit_state(space)
    with transaction.atomic():
        space.delete()
        record(actor, "space.delete" if space.is_native else "space.disconnect", slug, user=user,
               before={**before, **detail})
