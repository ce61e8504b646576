"""The vault's agent tools: file a request (criteria only), see where it stands, read what a person approved."""

from __future__ import annotations

import json
import re
from datetime import datetime, timedelta

from django.db.models import Q

from memoryhub.access import policy
from memoryhub.access.call import Call
from memoryhub.core.errors import bad
from memoryhub.core.redaction import redact
from memoryhub.memories.models import CATEGORIES, Entry
from memoryhub.tools import args as A
from memoryhub.tools.base import SPACE, tool
from memoryhub.vault import grants
from memoryhub.vault.models import AccessRequest

DEFAULT_LIMIT = 50
MAX_LIMIT = 200
BARE_DATE = re.compile(r"^\s*\d{4}-\d{2}-\d{2}\s*$")


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


@tool("memory_request", "Ask a person to open vault memories matching these criteria. Every request reaches a person, "
      "even one matching nothing. matched is always 0: the vault tells agents nothing about what it holds (the "
      "person deciding sees the matches). Once a person approves, memory_status shows how many entries were "
      "opened; read them with memory_read.",
      {"project": {"type": "string", "description": "A workspace slug or absolute path."},
       "category": {"type": "string", "enum": CATEGORIES},
       "from": {"type": "string", "format": "date-time", "description": "Earliest time (a date means its start)."},
       "to": {"type": "string", "format": "date-time", "description": "Latest time (a date means its whole day)."},
       "query": {"type": "string", "description": "Keywords; every word must appear."},
       "limit": {"type": "integer", "minimum": 1, "maximum": MAX_LIMIT}, "space": SPACE})
def memory_request(call: Call, session_id: str, args: dict) -> dict:
    policy.may_file_request(call, session_id)
    workspace = policy.project_workspace(A.text(args, "project", max_len=1000))
    spaces = policy.vault_spaces(call, args, workspace)
    categories = categories_arg(args)
    start, end = A.moment(args, "from"), period_end(args)
    query = redact(A.text(args, "query", max_len=500)).text.strip()  # kept in the criteria and the audit log
    limit = A.integer(args, "limit", default=DEFAULT_LIMIT, low=1, high=MAX_LIMIT)
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
        "project": workspace.slug if workspace else "", "space": args.get("space") or "", "category": categories,
        "from": start.isoformat() if start else "", "to": args.get("to") or "", "query": query,
    }.items() if value}
    criteria["limit"] = limit
    req = grants.file_request(call.token, session_id, criteria, spaces, ids)
    return {"request_id": req.id, "matched": grants.MATCHED_FOR_AGENTS}


@tool("memory_status", "This session's vault requests still waiting for a person, and its live grants (no content).",
      {})
def memory_status(call: Call, session_id: str, args: dict) -> dict:
    pending = policy.own_requests(call, session_id).filter(status=AccessRequest.Status.PENDING)
    return {
        "pending": [{"request_id": r.id, "matched": grants.MATCHED_FOR_AGENTS, "criteria": r.criteria} for r in pending],
        "grants": [{"request_id": g.request_id, "entries": g.entries.live().count()}
                   for g in policy.own_live_grants(call, session_id)],
    }


@tool("memory_read", "Read the vault memories a person approved for one of this session's requests.",
      {"request_id": {"type": "string"}}, ("request_id",))
def memory_read(call: Call, session_id: str, args: dict) -> dict:
    grant = policy.readable_grant(call, session_id, A.text(args, "request_id", required=True, max_len=40))
    entries = grants.read(grant, call.actor)
    return {"entries": [{"id": str(e.pk), "at": e.at_iso, "category": e.category, "title": e.title, "body": e.body,
                         "tags": e.tags} for e in entries]}
