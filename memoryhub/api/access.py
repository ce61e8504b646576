"""Which spaces a call may read or write: token restrictions, workspace, active and vault rules."""

from __future__ import annotations

from django.db.models import Q

from memoryhub.api.endpoint import Call
from memoryhub.api.errors import ApiError
from memoryhub.spaces.models import MemorySpace, Workspace
from memoryhub.spaces.services import NotFound, default_space, resolve_workspace, workspace_space


def allowed_spaces(call: Call):
    """Every space the token may use (all when it names none)."""
    qs = MemorySpace.objects.select_related("workspace")
    return qs.filter(pk__in=call.restricted_to) if call.restricted_to else qs.all()


def workspace_arg(call: Call, args: dict) -> Workspace | None:
    value = args.get("workspace")
    if value in (None, ""):
        return None
    if not isinstance(value, str) or len(value) > 1000:
        raise ApiError("bad_request", "workspace must be an absolute path or a workspace slug", "workspace")
    try:
        return resolve_workspace(value)
    except NotFound as exc:
        raise ApiError("not_found", str(exc), "workspace") from exc


def named_space(call: Call, slug: str, field: str = "space") -> MemorySpace:
    if not isinstance(slug, str):
        raise ApiError("bad_request", f"{field} must be a space slug", field)
    space = MemorySpace.objects.select_related("workspace").filter(slug=slug).first()
    if space is None:
        raise ApiError("not_found", f"no space {slug!r}", field)
    if call.restricted_to and space.pk not in call.restricted_to:
        raise ApiError("forbidden", f"this token may not use space {slug!r}", field)
    return space


def write_space(call: Call, args: dict) -> MemorySpace:
    """Where a write goes: the named space, else the token's only space, else the workspace default."""
    workspace = workspace_arg(call, args)
    if args.get("space") not in (None, ""):
        return named_space(call, args["space"])
    restricted = call.restricted_to
    if len(restricted) == 1:
        return allowed_spaces(call).get()
    candidate = workspace_space(workspace) if workspace else default_space()
    if restricted and candidate.pk not in restricted:
        raise ApiError("bad_request", "this token may use several spaces; name one with space", "space")
    return candidate


def read_spaces(call: Call, args: dict) -> list[MemorySpace]:
    """Spaces a read covers: the named one (must be active), else every active, non-vault space visible."""
    workspace = workspace_arg(call, args)
    if args.get("space") not in (None, ""):
        space = named_space(call, args["space"])
        if not space.active:
            raise ApiError("forbidden", f"space {space.slug!r} is inactive", "space")
        return [] if space.is_vault else [space]
    qs = allowed_spaces(call).filter(active=True).exclude(access="vault")
    if workspace:
        qs = qs.filter(Q(workspace=workspace) | Q(workspace__isnull=True))
    return list(qs)


def home_space(call: Call, args: dict) -> MemorySpace | None:
    """The space whose settings shape a multi-space read: where this call's writes would go, if anywhere."""
    try:
        return write_space(call, args)
    except ApiError:
        return None
