"""The access rules of agent calls: spaces a call may read or write, and whether it may see one object.

Token restrictions (a token may be limited to some spaces), the workspace an agent works in,
inactive and vault spaces, origin isolation (a non-local token sees only its own origin), vault
requests bound to their session, notebooks only for local tokens. Each answer raises ApiError
with the field to blame, or returns what the call may use.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from datetime import timedelta

from django.conf import settings
from django.db.models import Q, QuerySet
from django.utils import timezone

from memoryhub.access import people
from memoryhub.access.call import Call
from memoryhub.agents import sessions
from memoryhub.core.errors import ApiError, bad
from memoryhub.core.ids import row_id
from memoryhub.memories import remote
from memoryhub.memories.models import Entry, Fact, Topic
from memoryhub.spaces.models import MemorySpace, Workspace, workspace_slug_for_path
from memoryhub.spaces.workspaces import (DEFAULT_SPACE_SLUG, MayNotCreate, NotFound, default_space,
                                         resolve_workspace, workspace_space)
from memoryhub.vault.models import AccessRequest, Grant
from providers.registry import get_provider_class

VAULT = MemorySpace.Access.VAULT
REQUEST_WINDOW = timedelta(hours=24)  # VAULT_REQUESTS_PER_TOKEN counts the requests of this window


# --- spaces -------------------------------------------------------------------------------
def allowed_spaces(call: Call) -> QuerySet[MemorySpace]:
    """Every space the token may use (all when it names none)."""
    qs = MemorySpace.objects.select_related("workspace")
    return qs.filter(pk__in=call.restricted_to) if call.restricted_to else qs.all()


def may_create(call: Call) -> bool:
    """Rule 4: only an unrestricted local token may make a workspace or a space; any other uses what exists."""
    return call.is_local and not call.restricted_to


def workspace_arg(call: Call, args: dict) -> Workspace | None:
    """The `workspace` argument, resolved once per call (a new absolute path makes its workspace, if this call may)."""
    value = args.get("workspace")
    if value in (None, ""):
        return None
    if not isinstance(value, str) or len(value) > 1000:
        raise bad("workspace must be an absolute path or a workspace slug", "workspace")
    if value not in call.resolved_workspaces:
        try:
            call.resolved_workspaces[value] = resolve_workspace(value, create=may_create(call), actor=call.actor)
        except NotFound as exc:
            raise ApiError("not_found", str(exc), "workspace") from exc
        except MayNotCreate as exc:
            raise ApiError("forbidden", str(exc), "workspace") from exc
    return call.resolved_workspaces[value]


def named_space(call: Call, slug: str, field: str = "space") -> MemorySpace:
    if not isinstance(slug, str):
        raise bad(f"{field} must be a space slug", field)
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
    try:
        candidate = (workspace_space(workspace, create=may_create(call)) if workspace
                     else default_space(create=may_create(call)))
    except MayNotCreate as exc:
        raise ApiError("forbidden", str(exc), "workspace" if workspace else "space") from exc
    if restricted and candidate.pk not in restricted:
        raise bad("this token may use several spaces; name one with space", "space")
    return candidate


def read_spaces(call: Call, args: dict) -> list[MemorySpace]:
    """Spaces a read covers: the named one (must be active), else every active, non-vault space visible."""
    workspace = workspace_arg(call, args)
    if args.get("space") not in (None, ""):
        space = named_space(call, args["space"])
        if not space.active:
            raise ApiError("forbidden", f"space {space.slug!r} is inactive", "space")
        return [] if space.is_vault else [space]
    return _unnamed_read(allowed_spaces(call), workspace)


def _unnamed_read(spaces: QuerySet[MemorySpace], workspace: Workspace | None) -> list[MemorySpace]:
    """A read that names no space: every active, non-vault one of `spaces` (of the workspace's, when given)."""
    qs = spaces.filter(active=True).exclude(access=VAULT)
    if workspace:
        qs = qs.filter(Q(workspace=workspace) | Q(workspace__isnull=True))
    return list(qs)


def home_space(call: Call, args: dict) -> MemorySpace | None:
    """The space whose settings shape a multi-space read: where this call's writes would go, if anywhere."""
    try:
        return write_space(call, args)
    except ApiError:
        return None


def may_create_spaces(call: Call) -> None:
    """Only a local token allowed every space may add one."""
    if call.restricted_to:
        raise ApiError("forbidden", "a token restricted to some spaces cannot create spaces")
    if not call.is_local:
        raise ApiError("forbidden", f"a token of origin {call.origin!r} cannot create spaces")


def project_workspace(value: str) -> Workspace | None:
    """A vault request's `project`, by slug or absolute path; never creates one."""
    value = value.strip()
    if not value:
        return None
    slug = workspace_slug_for_path(os.path.normpath(value)) if value.startswith("/") else value
    workspace = Workspace.objects.filter(slug=slug).first()
    if workspace is None:
        raise ApiError("not_found", f"no project {value!r}", "project")
    return workspace


def vault_spaces(call: Call, args: dict, workspace: Workspace | None) -> list[MemorySpace]:
    """The named vault space, else every active native vault space the token may use (of the project)."""
    if args.get("space") not in (None, ""):
        space = named_space(call, args["space"])
        if not space.is_vault:
            raise bad(f"space {space.slug!r} is not a vault; search it with memory_search", "space")
        if not space.active:
            raise ApiError("forbidden", f"space {space.slug!r} is inactive", "space")
        if not space.is_native:
            raise ApiError("unsupported", f"requests cover native vault spaces; {space.slug!r} is not", "space")
        spaces = [space]
    else:
        spaces = list(allowed_spaces(call).filter(access=VAULT, active=True, provider=MemorySpace.NATIVE))
    return [s for s in spaces if workspace is None or s.workspace_id == workspace.pk]


# --- origins ------------------------------------------------------------------------------
def readable_origin(call: Call, scope: str = "all") -> str | None:
    """The one origin this call may read, or None for every origin.

    A non-local token sees only its own origin; asking for another's is refused by name rather than quietly
    answered with its own (the agent would take an empty answer for "nothing there"). A local token may narrow."""
    if not call.is_local:
        if scope not in ("", "all", call.origin):
            raise ApiError("forbidden", f"a token of origin {call.origin!r} reads only its own origin; "
                                        f"scope {scope!r} is not open to it", "scope")
        return call.origin
    return None if scope in ("", "all") else scope


def of_visible_origin(call: Call, rows: QuerySet) -> QuerySet:
    """Rows (entries, facts) narrowed to what this call's origin may see."""
    return rows if call.is_local else rows.filter(origin=call.origin)


def changeable_origin(call: Call) -> str | None:
    """The one origin whose facts this call may change, or None for every origin (a local token)."""
    return None if call.is_local else call.origin


def persona_origin(call: Call) -> str:
    """Whose persona and profile a call reads and writes: its own origin's, never another's."""
    return call.origin


# --- facts, persona, profile --------------------------------------------------------------
def _not_vault(space: MemorySpace, field: str = "space") -> MemorySpace:
    if space.is_vault:
        raise ApiError("forbidden", f"space {space.slug!r} is a vault: its facts and profile stay in it "
                                    "(read vault memories through memory_request)", field)
    return space


def growth_space(call: Call, args: dict) -> MemorySpace:
    """The one native, non-vault space whose facts or persona a call reads or changes."""
    space = _not_vault(write_space(call, args))
    if not space.is_native:
        raise ApiError("unsupported", f"space {space.slug!r} is not native and keeps no facts or persona", "space")
    return space


def fact_spaces(call: Call, args: dict) -> list[MemorySpace]:
    """Native spaces whose facts a list covers: the named one (never a vault), else every readable one."""
    if args.get("space") not in (None, ""):
        _not_vault(named_space(call, args["space"]))
    return [s for s in read_spaces(call, args) if s.is_native]


def visible_facts(call: Call, spaces: list[MemorySpace]) -> QuerySet[Fact]:
    return of_visible_origin(call, Fact.objects.filter(space__in=spaces))


def preview_spaces(space: MemorySpace, *, named: bool = True) -> list[MemorySpace]:
    """What /context reads for a local, unrestricted token (the dashboard's recall preview) naming this space,
    or (`named=False`) naming none but the space's workspace: nothing of a vault, as for any agent."""
    if named:
        return [] if space.is_vault else [space]
    return _unnamed_read(MemorySpace.objects.select_related("workspace"), space.workspace)


# --- what a write answers -----------------------------------------------------------------
def shows_derived(space: MemorySpace) -> bool:
    """Rule 2: what the hub derives from a vault entry (summary, facts) never goes back in a write's answer."""
    return not space.is_vault


# --- one object ---------------------------------------------------------------------------
def _readable_space(call: Call, space: MemorySpace, record_id: str) -> None:
    """The space behind one memory id: allowed and active. A vault, or a space the token may not use, is as if
    the memory did not exist: the answer names no space (its slug alone may say what it is about). A person
    (PersonCall) reaches what access/people opens to them: staff every space, vaults and switched-off ones too."""
    if call.person is not None:
        if not people.may_open(call.person, space):
            raise ApiError("not_found", f"no memory {record_id!r}", "id")
        return
    if space.is_vault or (call.restricted_to and space.pk not in call.restricted_to):
        raise ApiError("not_found", f"no memory {record_id!r}", "id")
    if not space.active:
        raise ApiError("forbidden", f"space {space.slug!r} is inactive", "id")


def visible_entry(call: Call, record_id: str) -> Entry:
    """A native entry this call may read: allowed, active, not vault, origin-visible; else not_found."""
    entry = Entry.objects.live().select_related("space").filter(pk=row_id(record_id)).first()
    if entry is None or (not call.is_local and entry.origin != call.origin):
        raise ApiError("not_found", f"no memory {record_id!r}", "id")
    _readable_space(call, entry.space, record_id)
    return entry


def is_topic_id(record_id: str) -> bool:
    """`t<digits>`: a topic card's id, as /context shows it."""
    return record_id[:1] == "t" and row_id(record_id[1:]) is not None


def visible_topic(call: Call, record_id: str) -> tuple[Topic, list[Entry]]:
    """A topic card (`t<id>`) and the turns of it this call may see; not_found when it may see none."""
    topic = Topic.objects.select_related("space").filter(pk=row_id(record_id[1:])).first()
    if topic is None or not (call.is_local or topic.origin == call.origin):
        raise ApiError("not_found", f"no memory {record_id!r}", "id")
    _readable_space(call, topic.space, record_id)
    turns = list(of_visible_origin(call, topic.entries.live().order_by("at", "id")))
    if not turns:
        raise ApiError("not_found", f"no memory {record_id!r}", "id")
    return topic, turns


def remote_space(call: Call, record_id: str) -> tuple[MemorySpace, str]:
    """The space and provider id of a third-party memory id (`<space slug>:<provider id>`); a non-local token
    reaches only records its origin wrote through the hub (the engines' ids are guessable: Holographic counts)."""
    slug, _, remote_id = record_id.partition(":")
    space = MemorySpace.objects.filter(slug=slug).first()
    # An empty provider id is what a write to a provider without ids answers (ByteRover): the tool then says
    # what the provider cannot do, instead of "no such memory".
    if space is None or space.is_native or (not remote_id and get_provider_class(space.provider).capabilities.get):
        raise ApiError("not_found", f"no memory {record_id!r}", "id")
    _readable_space(call, space, record_id)
    if not call.is_local and remote.origins(space, [remote_id])[remote_id] != call.origin:
        raise ApiError("not_found", f"no memory {record_id!r}", "id")
    return space, remote_id


# --- one memory to change (memory_link, memory_feedback) ---------------------------------
@dataclass(frozen=True)
class Target:
    """A memory a call may change: its space, and either the native entry or the provider's id."""

    space: MemorySpace
    entry: Entry | None = None
    remote_id: str = ""


def changeable_memory(call: Call, record_id: str, field: str = "id") -> Target:
    """A memory id resolved as memory_recall resolves it, each refusal blamed on `field`.

    A non-local token changes only what its own origin wrote: native entries of its origin, and the
    third-party records the hub wrote for that origin (remote_space asks the hub's record of origins)."""
    try:
        if row_id(record_id) is not None:
            entry = visible_entry(call, record_id)
            return Target(entry.space, entry=entry)
        space, remote_id = remote_space(call, record_id)
    except ApiError as exc:
        exc.field = field if exc.field == "id" else exc.field
        raise
    return Target(space, remote_id=remote_id)


# --- vault requests -----------------------------------------------------------------------
def own_requests(call: Call, session_id: str) -> QuerySet[AccessRequest]:
    return AccessRequest.objects.filter(token=call.token, session_id=session_id)


def may_file_request(call: Call, session_id: str) -> None:
    """Each request asks a person for attention: a session files at most VAULT_REQUESTS_PER_SESSION, a token at
    most VAULT_REQUESTS_PER_TOKEN in a day whatever its sessions (new session ids must not reset the count).

    An ended session files none: its request could never be read (a grant dies with its session)."""
    if sessions.is_over(call.token.pk, session_id):
        raise ApiError("forbidden", "this session has ended: a request filed now could never be read; "
                                    "start a new session")
    limit = settings.MEMORYHUB["VAULT_REQUESTS_PER_SESSION"]
    if own_requests(call, session_id).count() >= limit:
        raise ApiError("rate_limited", f"this session already filed {limit} vault requests; wait for a person's "
                                       "decision (memory_status) or start a new session")
    per_token = settings.MEMORYHUB["VAULT_REQUESTS_PER_TOKEN"]
    since = timezone.now() - REQUEST_WINDOW
    recent = AccessRequest.objects.filter(token=call.token, created_at__gte=since).order_by("created_at")
    filed = recent.count()
    if filed >= per_token:
        frees_a_place = recent.values_list("created_at", flat=True)[filed - per_token] + REQUEST_WINDOW
        wait = max(1, int((frees_a_place - timezone.now()).total_seconds()) + 1)
        raise ApiError("rate_limited", f"this token filed {per_token} vault requests in the last 24 hours; "
                                       "each waits for a person", headers={"Retry-After": str(wait)})


def own_live_grants(call: Call, session_id: str) -> QuerySet[Grant]:
    return Grant.objects.filter(request__token=call.token, session_id=session_id, ended_at__isnull=True,
                                revoked_at__isnull=True)


def readable_grant(call: Call, session_id: str, request_id: str) -> Grant:
    """The live grant behind a request of this very session; every other case is forbidden."""
    req = AccessRequest.objects.filter(pk=request_id).first()
    if req is None:
        raise ApiError("not_found", f"no request {request_id!r}", "request_id")
    if req.token_id != call.token.pk or req.session_id != session_id:
        raise ApiError("forbidden", "this request belongs to another session", "request_id")
    reasons = {AccessRequest.Status.PENDING: "is still waiting for a person's decision",
               AccessRequest.Status.DENIED: "was denied",
               AccessRequest.Status.CLOSED: "is closed (the session ended first)"}
    if req.status in reasons:
        raise ApiError("forbidden", f"request {req.id} {reasons[req.status]}", "request_id")
    grant = req.grant
    if grant.revoked_at is not None:
        raise ApiError("forbidden", f"the grant of request {req.id} was revoked", "request_id")
    if grant.ended_at is not None or sessions.is_over(call.token.pk, session_id):
        raise ApiError("forbidden", f"the grant of request {req.id} ended with its session", "request_id")
    return grant


# --- notebooks ----------------------------------------------------------------------------
def may_use_notebooks(call: Call, workspace: Workspace | None) -> bool:
    """Notebooks are shared by all origins, so only local tokens allowed their mirror space use them."""
    if not call.is_local:
        return False
    if not call.restricted_to:
        return True
    mirror = {"workspace": workspace, "is_default": True} if workspace else {"slug": DEFAULT_SPACE_SLUG}
    return allowed_spaces(call).filter(**mirror).exists()


def notebook_workspace(call: Call, args: dict) -> Workspace | None:
    """The workspace whose notebooks a call may use; raises forbidden when the token may not."""
    workspace = workspace_arg(call, args)
    if not may_use_notebooks(call, workspace):
        raise ApiError("forbidden", "this token may not use these notebooks: they need a local-origin token "
                                    "allowed the workspace's default space", "workspace")
    return workspace
