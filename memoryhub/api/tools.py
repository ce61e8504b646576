"""The agent's memory tools: their JSON schemas and handlers, one registry (see API.md, Tools)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from django.db import transaction

from memoryhub.api import args as A
from memoryhub.api.access import named_space, read_spaces, write_space
from memoryhub.api.endpoint import Call
from memoryhub.api.errors import ApiError
from memoryhub.memories import remote
from memoryhub.memories.growth import facts
from memoryhub.memories.search import recall
from memoryhub.memories.write import gateway
from memoryhub.memories.models import CATEGORIES, Entry, Fact, Kind, Persona, Topic
from memoryhub.spaces.models import MemorySpace
from memoryhub.spaces.services import provider_for
from memoryhub.core.redaction import redact
from providers.base import ProviderError

SPACE = {"type": "string", "description": "Space slug; default: the token's default space."}
WORKSPACE = {"type": "string", "description": "The agent's working directory (absolute path) or a workspace slug."}


@dataclass
class Tool:
    name: str
    description: str
    parameters: dict[str, Any]
    handler: Callable[[Call, str, dict], dict]

    def schema(self) -> dict[str, Any]:
        return {"type": "function", "function": {"name": self.name, "description": self.description,
                                                 "parameters": self.parameters}}


TOOLS: dict[str, Tool] = {}


def tool(name: str, description: str, properties: dict[str, Any], required: tuple[str, ...] = ()):
    def register(handler):
        TOOLS[name] = Tool(name, description, {"type": "object", "properties": properties,
                                               "required": list(required), "additionalProperties": False}, handler)
        return handler

    return register


def written(result: gateway.Written) -> dict[str, Any]:
    return {"id": result.id, "space": result.space.slug, "redactions": result.redactions}


@tool("memory_save", "Save one memory: a finished step, a pitfall, a decision, a structure change, a lesson.",
      {"category": {"type": "string", "enum": CATEGORIES}, "title": {"type": "string"}, "body": {"type": "string"},
       "tags": {"type": "array", "items": {"type": "string"}}, "related": {"type": "array", "items": {"type": "string"}},
       "at": {"type": "string", "format": "date-time"}, "space": SPACE, "workspace": WORKSPACE},
      ("category", "title", "body"))
def memory_save(call: Call, session_id: str, args: dict) -> dict:
    draft = gateway.Draft(
        kind=Kind.SAVE, category=A.category(args, required=True),
        title=A.text(args, "title", required=True, max_len=300), body=A.text(args, "body", required=True), tags=A.strings(args, "tags"),
        related=A.strings(args, "related", max_items=50), at=A.moment(args, "at"), session_id=session_id,
        origin=call.origin,
    )
    return written(gateway.write(write_space(call, args), draft, actor=call.actor))


@tool("memory_note", "Note something worth remembering, in plain words.",
      {"text": {"type": "string"}, "space": SPACE, "workspace": WORKSPACE}, ("text",))
def memory_note(call: Call, session_id: str, args: dict) -> dict:
    text = A.text(args, "text", required=True)
    draft = gateway.Draft(kind=Kind.NOTE, body=text, session_id=session_id, origin=call.origin)
    return written(gateway.write(write_space(call, args), draft, actor=call.actor))


@tool("memory_search", "Search memory; returns summaries with ids (expand one with memory_recall), never full text.",
      {"query": {"type": "string"}, "scope": {"type": "string", "description": "all | local | an origin name"},
       "limit": {"type": "integer", "minimum": 1, "maximum": 50}, "space": SPACE, "workspace": WORKSPACE},
      ("query",))
def memory_search(call: Call, session_id: str, args: dict) -> dict:
    query = A.text(args, "query", required=True, max_len=2000)
    scope = A.text(args, "scope", max_len=60, default="all") or "all"
    limit = A.integer(args, "limit", default=8, low=1, high=50)
    spaces = read_spaces(call, args)
    origin = recall.origin_filter(call.origin, scope)
    expanded = recall.expand_references(query, spaces, session_id, origin)
    cards = recall.search(spaces, expanded, limit=limit, origin=origin, strict=True)
    recall.note_recall(cards, query, call.actor)
    return {"results": [c.as_dict() for c in cards]}


def visible_entry(call: Call, record_id: str) -> Entry:
    """A native entry this call may read: allowed, active, not vault, origin-visible; else not_found."""
    entry = Entry.objects.live().select_related("space").filter(pk=int(record_id)).first()
    if entry is None or entry.space.is_vault:
        raise ApiError("not_found", f"no memory {record_id!r}", "id")
    named_space(call, entry.space.slug, "id")
    if call.origin != "local" and entry.origin != call.origin:
        raise ApiError("not_found", f"no memory {record_id!r}", "id")
    if not entry.space.active:
        raise ApiError("forbidden", f"space {entry.space.slug!r} is inactive", "id")
    return entry


def remote_space(call: Call, record_id: str) -> tuple[MemorySpace, str]:
    slug, _, remote_id = record_id.partition(":")
    space = MemorySpace.objects.filter(slug=slug).first()
    if space is None or space.is_vault or not remote_id:
        raise ApiError("not_found", f"no memory {record_id!r}", "id")
    named_space(call, slug, "id")
    if not space.active:
        raise ApiError("forbidden", f"space {slug!r} is inactive", "id")
    return space, remote_id


@tool("memory_recall", "Expand a memory by id: its full text (a digest also expands the turns it summarises).",
      {"id": {"type": "string"}}, ("id",))
def memory_recall(call: Call, session_id: str, args: dict) -> dict:
    record_id = A.text(args, "id", required=True, max_len=300)
    if record_id[:1] == "t" and record_id[1:].isdigit():
        return recall_topic(call, record_id)
    if record_id.isdigit():
        entry = visible_entry(call, record_id)
        gateway.record_recall({entry.space: [entry]}, f"id={record_id}", call.actor)
        expanded = [{"id": str(e.pk), "at": e.at_iso, "summary": e.summary}
                    for e in entry.digested.live().order_by("at")]
        return {"id": str(entry.pk), "space": entry.space.slug, "title": entry.title, "body": entry.body,
                "category": entry.category, "at": entry.at_iso, "tags": entry.tags,
                "related": entry.related, "expanded": expanded}
    space, remote_id = remote_space(call, record_id)
    provider = provider_for(space)
    if not provider.capabilities.get:
        raise ApiError("unsupported", f"{provider.label} cannot read a memory back by id", "id")
    try:
        record = remote.get(space, provider, remote_id)
    except ProviderError as exc:
        if exc.permanent:
            raise ApiError("not_found", f"no memory {record_id!r}: {exc.message}", "id") from exc
        raise
    related = [f"{space.slug}:{i}" for i in record.extra.get("also", [])]
    return {"id": record_id, "space": space.slug, "title": record.title, "body": record.text,
            "category": record.category, "at": record.at, "tags": record.tags, "related": related, "expanded": []}


def recall_topic(call: Call, record_id: str) -> dict:
    """A topic card's id expands to the turns it groups (only those this call may see)."""
    topic = Topic.objects.select_related("space").filter(pk=int(record_id[1:])).first()
    if topic is None or topic.space.is_vault:
        raise ApiError("not_found", f"no memory {record_id!r}", "id")
    named_space(call, topic.space.slug, "id")
    if not topic.space.active:
        raise ApiError("forbidden", f"space {topic.space.slug!r} is inactive", "id")
    turns = topic.entries.live().order_by("at", "id")
    if call.origin != "local":
        turns = turns.filter(origin=call.origin)
    turns = list(turns)
    if not turns:
        raise ApiError("not_found", f"no memory {record_id!r}", "id")
    gateway.record_recall({topic.space: turns}, f"id={record_id}", call.actor)
    return {"id": record_id, "space": topic.space.slug, "title": topic.title,
            "body": "\n\n".join(e.body for e in turns), "category": topic.kind, "at": turns[0].at_iso, "tags": [],
            "related": [], "expanded": [{"id": str(e.pk), "at": e.at_iso, "summary": e.summary} for e in turns]}


@tool("memory_forget", "Forget a memory by id, where its space's provider can.", {"id": {"type": "string"}}, ("id",))
def memory_forget(call: Call, session_id: str, args: dict) -> dict:
    record_id = A.text(args, "id", required=True, max_len=300)
    if record_id.isdigit():
        entry = visible_entry(call, record_id)
        gateway.forget(entry, actor=call.actor)
        return {"id": record_id, "status": "forgotten"}
    space, remote_id = remote_space(call, record_id)
    provider = provider_for(space)
    if not provider.capabilities.forget:
        raise ApiError("unsupported", f"{provider.label} cannot forget memories", "id")
    for one in remote.record_ids(space, provider, remote_id):
        provider.forget(one)
    return {"id": record_id, "status": "forgotten"}


def profile_space(call: Call, args: dict) -> MemorySpace:
    space = write_space(call, args)
    if not space.is_native:
        raise ApiError("unsupported", f"space {space.slug!r} is not native and keeps no persona", "space")
    return space


@tool("memory_profile", "Read or set the user's profile; the frame is what the hub derived from memory.",
      {"action": {"type": "string", "enum": ["get", "set"]}, "profile": {"type": "string"}, "space": SPACE,
       "workspace": WORKSPACE}, ("action",))
def memory_profile(call: Call, session_id: str, args: dict) -> dict:
    action = A.choice(args, "action", ("get", "set"), required=True)
    space = profile_space(call, args)
    persona, _ = Persona.objects.get_or_create(space=space)
    if action == "set":
        text = A.text(args, "profile", required=True, allow_empty=True)
        persona.profile = redact(text).text
        persona.save(update_fields=["profile"])
        gateway.log_op(space, "profile", "", "profile set", call.actor)
    return {"profile": persona.profile, "frame": persona.frame}


@tool("memory_facts", "Stable facts about the user: list (all=true includes history), assert or invalidate one.",
      {"action": {"type": "string", "enum": ["list", "assert", "invalidate"]}, "subject": {"type": "string"},
       "predicate": {"type": "string", "description": "e.g. nickname, name, role, language, preference, skill"},
       "value": {"type": "string"}, "all": {"type": "boolean"}, "space": SPACE, "workspace": WORKSPACE},
      ("action",))
def memory_facts(call: Call, session_id: str, args: dict) -> dict:
    action = A.choice(args, "action", ("list", "assert", "invalidate"), required=True)
    subject = A.text(args, "subject", max_len=100) or "user"
    if action == "list":
        spaces = [s for s in read_spaces(call, args) if s.is_native]
        found = Fact.objects.filter(space__in=spaces)
        if not A.boolean(args, "all"):
            found = found.filter(status="active", negative=False)
        if args.get("subject"):
            found = found.filter(subject=subject)
        if args.get("predicate"):
            found = found.filter(predicate=A.text(args, "predicate", max_len=60))
        if call.origin != "local":
            found = found.filter(origin=call.origin)
        return {"facts": [facts.fact_to_dict(f) for f in found.order_by("subject", "predicate", "-created_at")[:500]]}
    space = profile_space(call, args)
    predicate = A.text(args, "predicate", required=True, max_len=60)
    with transaction.atomic():
        touched = change_fact(call, space, action, subject, predicate, args)
    return {"facts": [facts.fact_to_dict(f) for f in touched]}


def change_fact(call: Call, space: MemorySpace, action: str, subject: str, predicate: str, args: dict) -> list:
    """Assert or invalidate one fact (one transaction: the change and its op log entry)."""
    if action == "assert":
        value = redact(A.text(args, "value", required=True, max_len=facts.MAX_VALUE_CHARS)).text
        changes = facts.assert_fact(space, subject, predicate, value, origin=call.origin, method="manual")
        if not (changes.asserted or changes.refreshed):
            raise ApiError("bad_request", f"{predicate}={value!r} is not a fact the hub can keep", "value")
        gateway.log_op(space, "fact", "", f"assert {subject}/{predicate}={value}", call.actor)
        touched = changes.asserted + changes.refreshed + changes.invalidated
    else:
        value = A.text(args, "value", max_len=facts.MAX_VALUE_CHARS) or None
        touched = facts.invalidate_fact(space, subject=subject, predicate=predicate, value=value)
        if not touched:
            raise ApiError("not_found", f"no active fact {subject}/{predicate}" + (f"={value}" if value else ""),
                           "predicate")
        gateway.log_op(space, "fact", "", f"invalidate {subject}/{predicate}" + (f"={value}" if value else ""),
                     call.actor)
    for fact in touched:
        fact.refresh_from_db()
    return touched


def run(call: Call, name: str, session_id: str, arguments: dict) -> dict:
    if name not in TOOLS:
        raise ApiError("not_found", f"no tool {name!r}")
    return TOOLS[name].handler(call, session_id, arguments)


from memoryhub.api import vault_tools  # noqa: E402,F401  (registers memory_request/status/read)
from memoryhub.api import notebook_tools  # noqa: E402,F401
