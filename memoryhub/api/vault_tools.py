"""The vault's agent tools: file a request (criteria only), see where it stands, read what a person approved."""

from __future__ import annotations

import json
import os
import re
from datetime import datetime, timedelta

from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from memoryhub.api import args as A
from memoryhub.api.access import allowed_spaces, named_space
from memoryhub.api.endpoint import Call
from memoryhub.api.errors import ApiError, bad
from memoryhub.api.tools import SPACE, tool
from memoryhub.audit.models import record
from memoryhub.memories.models import CATEGORIES, Entry
from memoryhub.spaces.models import MemorySpace, Workspace, workspace_slug_for_path
from memoryhub.vault.grants import session_over
from memoryhub.vault.models import AccessRequest, Grant

DEFAULT_LIMIT = 50
MAX_LIMIT = 200
BARE_DATE = re.compile(r"^\s*\d{4}-\d{2}-\d{2}\s*$")


def project_arg(args: dict) -> Workspace | None:
    """The workspace a request narrows to, by slug or absolute path; never creates one."""
    value = A.text(args, "project", max_len=1000).strip()
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
        spaces = list(allowed_spaces(call).filter(access="vault", active=True, provider="native"))
    return [s for s in spaces if workspace is None or s.workspace_id == workspace.pk]


def categories_arg(args: dict) -> list[str]:
    names = A.strings(args, "category", max_items=len(CATEGORIES), max_len=20)
    for name in names:
        if name not in CATEGORIES:
            raise bad(f"category must be among: {', '.join(CATEGORIES)}", "category")
    return names


def period_end(args: dict) -> datetime | None:
    """The exclusive end of `to`: a bare date covers its whole day."""
    end = A.moment(args, "to")
    if end is None:
        return None
    return end + (timedelta(days=1) if BARE_DATE.match(args["to"]) else timedelta(microseconds=1))


def mentions(word: str) -> Q:
    """Title, body or a tag contains the word (tags are JSON text: match the ASCII-escaped spelling too)."""
    return (Q(title__icontains=word) | Q(body__icontains=word) | Q(tags__icontains=word)
            | Q(tags__icontains=json.dumps(word)[1:-1]))


@tool("memory_request", "Ask a person to open vault memories matching these criteria. Returns only how many matched; "
      "once a person approves, read them with memory_read.",
      {"project": {"type": "string", "description": "A workspace slug or absolute path."},
       "category": {"type": "string", "enum": CATEGORIES},
       "from": {"type": "string", "format": "date-time", "description": "Earliest time (a date means its start)."},
       "to": {"type": "string", "format": "date-time", "description": "Latest time (a date means its whole day)."},
       "query": {"type": "string", "description": "Keywords; every word must appear."},
       "limit": {"type": "integer", "minimum": 1, "maximum": MAX_LIMIT}, "space": SPACE})
def memory_request(call: Call, session_id: str, args: dict) -> dict:
    workspace = project_arg(args)
    spaces = vault_spaces(call, args, workspace)
    categories = categories_arg(args)
    start, end = A.moment(args, "from"), period_end(args)
    query = A.text(args, "query", max_len=500).strip()
    limit = A.integer(args, "limit", default=DEFAULT_LIMIT, low=1, high=MAX_LIMIT)
    entries = Entry.objects.live().filter(space__in=spaces)
    if call.origin != "local":
        entries = entries.filter(origin=call.origin)
    if categories:
        entries = entries.filter(category__in=categories)
    if start:
        entries = entries.filter(at__gte=start)
    if end:
        entries = entries.filter(at__lt=end)
    for word in query.split():
        entries = entries.filter(mentions(word))
    ids = list(entries.order_by("-at", "-id").values_list("pk", flat=True)[:limit])
    criteria = {key: value for key, value in {
        "project": workspace.slug if workspace else "", "space": args.get("space") or "", "category": categories,
        "from": start.isoformat() if start else "", "to": args.get("to") or "", "query": query,
    }.items() if value}
    criteria["limit"] = limit
    with transaction.atomic():
        req = AccessRequest.objects.create(
            token=call.token, session_id=session_id, criteria=criteria, matched=len(ids),
            status="pending" if ids else "closed", decided_at=None if ids else timezone.now(),
        )
        req.spaces.set(spaces)
        req.entries.set(ids)
        record(call.actor, "vault.request", req.id, session=session_id, criteria=criteria, entries=ids)
    return {"request_id": req.id, "matched": len(ids)}


@tool("memory_status", "This session's vault requests still waiting for a person, and its live grants (no content).",
      {})
def memory_status(call: Call, session_id: str, args: dict) -> dict:
    pending = AccessRequest.objects.filter(token=call.token, session_id=session_id, status="pending")
    grants = Grant.objects.filter(request__token=call.token, session_id=session_id, ended_at__isnull=True,
                                  revoked_at__isnull=True)
    return {
        "pending": [{"request_id": r.id, "matched": r.matched, "criteria": r.criteria} for r in pending],
        "grants": [{"request_id": g.request_id, "entries": g.entries.live().count()} for g in grants],
    }


def readable_grant(call: Call, session_id: str, request_id: str) -> Grant:
    """The live grant behind a request of this very session; every other case is forbidden."""
    req = AccessRequest.objects.filter(pk=request_id).first()
    if req is None:
        raise ApiError("not_found", f"no request {request_id!r}", "request_id")
    if req.token_id != call.token.pk or req.session_id != session_id:
        raise ApiError("forbidden", "this request belongs to another session", "request_id")
    reasons = {"pending": "is still waiting for a person's decision", "denied": "was denied",
               "closed": "is closed (nothing matched, or the session ended first)"}
    if req.status in reasons:
        raise ApiError("forbidden", f"request {req.id} {reasons[req.status]}", "request_id")
    grant = req.grant
    if grant.revoked_at is not None:
        raise ApiError("forbidden", f"the grant of request {req.id} was revoked", "request_id")
    if grant.ended_at is not None or session_over(call.token.pk, session_id):
        raise ApiError("forbidden", f"the grant of request {req.id} ended with its session", "request_id")
    return grant


@tool("memory_read", "Read the vault memories a person approved for one of this session's requests.",
      {"request_id": {"type": "string"}}, ("request_id",))
def memory_read(call: Call, session_id: str, args: dict) -> dict:
    grant = readable_grant(call, session_id, A.text(args, "request_id", required=True, max_len=40))
    entries = list(grant.entries.live().order_by("-at", "-id"))
    Grant.objects.filter(pk=grant.pk).update(last_read_at=timezone.now())
    record(call.actor, "vault.read", grant.request_id, session=session_id, entries=[e.pk for e in entries])
    return {"entries": [{"id": str(e.pk), "at": e.at_iso, "category": e.category, "title": e.title, "body": e.body,
                         "tags": e.tags} for e in entries]}
