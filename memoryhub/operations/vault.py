"""The vault's agent operations: file a request (criteria only), see where it stands, read what a person approved."""

from __future__ import annotations

import json
import re
from datetime import datetime, timedelta

from typing import Annotated

from django.db.models import Q
from pydantic import Field

from memoryhub.access import policy
from memoryhub.access.call import Call
from memoryhub.core.redaction import redact
from memoryhub.memories.models import Entry
from memoryhub.operations import needs
from memoryhub.operations.base import Input, operation
from memoryhub.operations.fields import Categories, IsoText, Moment, Space, moment, Text
from memoryhub.vault import grants
from memoryhub.vault.models import AccessRequest

DEFAULT_LIMIT = 50
MAX_LIMIT = 200
BARE_DATE = re.compile(r"^\s*\d{4}-\d{2}-\d{2}\s*$")


def period_end(to: str) -> datetime | None:
    """The exclusive end of `to`: a bare date covers its whole day."""
    end = moment(to)
    if end is None:
        return None
    return end + (timedelta(days=1) if BARE_DATE.match(to) else timedelta(microseconds=1))


def mentions(word: str) -> Q:
    """Title, body or a tag contains the word (tags are JSON text: match the ASCII-escaped spelling too)."""
    return (Q(title__icontains=word) | Q(body__icontains=word) | Q(tags__icontains=word)
            | Q(tags__icontains=json.dumps(word)[1:-1]))


class Request(Input):
    """Ask a person to open vault memories matching these criteria. Every request reaches a person, even one
    matching nothing. matched is always 0: the vault tells agents nothing about what it holds (the person
    deciding sees the matches). Once a person approves, memory_status shows how many entries were opened; read
    them with memory_read."""

    project: Text(1000) = Field("", description="a workspace slug or absolute path")
    category: Categories = Field([], description="one of the categories (or a list of them)")
    from_: Moment = Field(None, alias="from", description="earliest time (a date means its start)")
    to: IsoText = Field("", description="latest time (a date means its whole day)")
    query: Text(500) = Field("", description="keywords; every word must appear")
    limit: Annotated[int, Field(ge=1, le=MAX_LIMIT)] = Field(DEFAULT_LIMIT, description=f"how many entries at most, 1–{MAX_LIMIT}")
    space: Space = Field("", description="one vault space (default: every vault space the token may use)")


def filed_scope(call: Call, session_id: str, args: Request) -> tuple:
    """The session may file another request (policy.may_file_request), and these are the vault spaces it
    covers (policy.vault_spaces, of the project when one is named)."""
    policy.may_file_request(call, session_id)
    workspace = policy.project_workspace(args.project)
    return workspace, policy.vault_spaces(call, args.given(), workspace)


@operation("memory_request", Request, permission=filed_scope)
def memory_request(call: Call, session_id: str, args: Request, scope) -> dict:
    workspace, spaces = scope
    categories = args.category
    start, end = args.from_, period_end(args.to)
    query = redact(args.query).text.strip()  # kept in the criteria and the audit log
    limit = args.limit
    entries = policy.of_visible_origin(call, Entry.objects.live().filter(space__in=spaces))
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
        "project": workspace.slug if workspace else "", "space": args.space, "category": categories,
        "from": start.isoformat() if start else "", "to": args.to, "query": query,
    }.items() if value}
    criteria["limit"] = limit
    req = grants.file_request(call.token, session_id, criteria, spaces, ids)
    return {"request_id": req.id, "matched": grants.MATCHED_FOR_AGENTS}


class Status(Input):
    """This session's vault requests still waiting for a person, and its live grants (no content)."""


@operation("memory_status", Status, permission=needs.own_session, reads=True)
def memory_status(call: Call, session_id: str, args: Status, permitted: None) -> dict:
    pending = policy.own_requests(call, session_id).filter(status=AccessRequest.Status.PENDING)
    return {
        "pending": [{"request_id": r.id, "matched": grants.MATCHED_FOR_AGENTS, "criteria": r.criteria} for r in pending],
        "grants": [{"request_id": g.request_id, "entries": g.entries.live().count()}
                   for g in policy.own_live_grants(call, session_id)],
    }


class Read(Input):
    """Read the vault memories a person approved for one of this session's requests."""

    request_id: Text(40, blank=False) = Field(description="from `memory_request`")


def approved_grant(call: Call, session_id: str, args: Read):
    """The live grant behind a request of this very session (policy.readable_grant); every other case is refused."""
    return policy.readable_grant(call, session_id, args.request_id)


@operation("memory_read", Read, permission=approved_grant)
def memory_read(call: Call, session_id: str, args: Read, grant) -> dict:
    entries = grants.read(grant, call.actor)
    return {"entries": [{"id": str(e.pk), "at": e.at_iso, "category": e.category, "title": e.title, "body": e.body,
                         "tags": e.tags} for e in entries]}
