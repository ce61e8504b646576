"""The memory tools: save and note, search and recall by id, forget, the persona profile and facts."""

from __future__ import annotations

from typing import Any

from django.db import transaction

from memoryhub.access import policy
from memoryhub.access.call import Call
from memoryhub.agents.calls import api_error
from memoryhub.core.errors import ApiError, bad
from memoryhub.core.ids import row_id
from memoryhub.core.redaction import redact
from memoryhub.memories import remote
from memoryhub.memories.facts import slots as facts
from memoryhub.memories.models import CATEGORIES, SEARCH_SKIP, Kind, Persona
from memoryhub.memories.recall import cards as recall
from memoryhub.memories.write import access_counts, gateway, oplog
from memoryhub.spaces.models import MemorySpace
from memoryhub.spaces.provider_services import provider_for
from memoryhub.tools import args as A, graph
from memoryhub.tools.base import SKIP_TAGS, SPACE, WORKSPACE, tool
from providers.base import ProviderError


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
    return written(gateway.write(policy.write_space(call, args), draft, actor=call.actor))


@tool("memory_note", "Note something worth remembering, in plain words.",
      {"text": {"type": "string"}, "space": SPACE, "workspace": WORKSPACE}, ("text",))
def memory_note(call: Call, session_id: str, args: dict) -> dict:
    text = A.text(args, "text", required=True)
    draft = gateway.Draft(kind=Kind.NOTE, body=text, session_id=session_id, origin=call.origin)
    return written(gateway.write(policy.write_space(call, args), draft, actor=call.actor))


NOTE_BATCH = 100


@tool("memory_note_batch", "Note several things at once (up to 100), in plain words; one result per note, in order.",
      {"notes": {"type": "array", "items": {"type": "string"}, "minItems": 1, "maxItems": NOTE_BATCH},
       "space": SPACE, "workspace": WORKSPACE}, ("notes",))
def memory_note_batch(call: Call, session_id: str, args: dict) -> dict:
    """memory_note for a list, written in one transaction: a bad note gets its own error, the others are kept."""
    notes = args.get("notes")
    if not isinstance(notes, list) or not 1 <= len(notes) <= NOTE_BATCH:
        raise bad(f"notes must be a list of 1 to {NOTE_BATCH} strings", "notes")
    space = policy.write_space(call, args)
    results: list[dict | None] = [None] * len(notes)
    drafts, places = [], []
    for n, text in enumerate(notes):
        try:
            text = A.text({"notes": text}, "notes", required=True)
        except ApiError as exc:
            results[n] = {"error": {**exc.as_dict(), "message": f"notes[{n}]: {exc.message}"}}
            continue
        drafts.append((space, gateway.Draft(kind=Kind.NOTE, body=text, session_id=session_id, origin=call.origin)))
        places.append(n)
    for n, result in zip(places, gateway.write_many(drafts, actor=call.actor)):
        results[n] = {"error": api_error(result, "memory_note_batch").as_dict()} if isinstance(result, Exception) \
            else written(result)
    return {"results": results}


@tool("memory_search", "Search memory; returns summaries with ids (expand one with memory_recall), never full text.",
      {"query": {"type": "string"}, "scope": {"type": "string", "description": "all | local | an origin name"},
       "limit": {"type": "integer", "minimum": 1, "maximum": 50}, "skipTags": SKIP_TAGS, "space": SPACE,
       "workspace": WORKSPACE},
      ("query",))
def memory_search(call: Call, session_id: str, args: dict) -> dict:
    query = A.text(args, "query", required=True, max_len=2000)
    scope = A.text(args, "scope", max_len=60, default="all") or "all"
    limit = A.integer(args, "limit", default=8, low=1, high=50)
    skip = A.skip_tags(args, SEARCH_SKIP)
    spaces = policy.read_spaces(call, args)
    origin = policy.readable_origin(call, scope)
    expanded = recall.expand_references(query, spaces, session_id, origin)
    missing: list = []
    cards = recall.search(spaces, query, limit=limit, origin=origin, strict=True, skip_tags=skip, errors=missing,
                          home=policy.home_space(call, args), referred=expanded)
    recall.note_recall(cards, query, call.actor)
    answer = {"results": [c.as_dict() for c in cards]}
    if missing:  # third-party spaces left out: failed, or late for the read's deadline
        answer["warnings"] = [m.as_dict() for m in missing]
    return answer


@tool("memory_recall", "Expand a memory by id: its full text (a digest also expands the turns it summarises).",
      {"id": {"type": "string"}}, ("id",))
def memory_recall(call: Call, session_id: str, args: dict) -> dict:
    record_id = A.text(args, "id", required=True, max_len=300)
    if policy.is_topic_id(record_id):
        return recall_topic(call, record_id)
    if row_id(record_id) is not None:
        entry = policy.visible_entry(call, record_id)
        access_counts.record_recall({entry.space: [entry]}, f"id={record_id}", call.actor)
        expanded = [{"id": str(e.pk), "at": e.at_iso, "summary": e.summary}
                    for e in entry.digested.live().order_by("at")]
        return {"id": str(entry.pk), "space": entry.space.slug, "title": entry.title, "body": entry.body,
                "category": entry.category, "at": entry.at_iso, "tags": entry.tags,
                "related": list(dict.fromkeys(entry.related + graph.linked(call, entry))), "expanded": expanded}
    space, remote_id = policy.remote_space(call, record_id)
    provider = provider_for(space)
    if not provider.capabilities.get:
        raise ApiError("unsupported", f"{provider.label} cannot read a memory back by id", "id")
    try:
        record = remote.get(space, provider, remote_id)
    except ProviderError as exc:
        raise remote.not_found_or(exc, record_id) from exc
    related = [f"{space.slug}:{i}" for i in record.extra.get("also", [])]
    return {"id": record_id, "space": space.slug, "title": record.title, "body": record.text,
            "category": record.category, "at": record.at, "tags": record.tags, "related": related, "expanded": []}


def recall_topic(call: Call, record_id: str) -> dict:
    """A topic card's id expands to the turns it groups (only those this call may see)."""
    topic, turns = policy.visible_topic(call, record_id)
    access_counts.record_recall({topic.space: turns}, f"id={record_id}", call.actor)
    return {"id": record_id, "space": topic.space.slug, "title": topic.title,
            "body": "\n\n".join(e.body for e in turns), "category": topic.kind, "at": turns[0].at_iso, "tags": [],
            "related": [], "expanded": [{"id": str(e.pk), "at": e.at_iso, "summary": e.summary} for e in turns]}


@tool("memory_forget", "Forget a memory by id, where its space's provider can.", {"id": {"type": "string"}}, ("id",))
def memory_forget(call: Call, session_id: str, args: dict) -> dict:
    record_id = A.text(args, "id", required=True, max_len=300)
    if row_id(record_id) is not None:
        entry = policy.visible_entry(call, record_id)
        gateway.forget(entry, actor=call.actor)
        return {"id": record_id, "status": "forgotten"}
    space, remote_id = policy.remote_space(call, record_id)
    provider = provider_for(space)
    if not provider.capabilities.forget:
        raise ApiError("unsupported", f"{provider.label} cannot forget memories", "id")
    try:
        for one in remote.record_ids(space, provider, remote_id):
            provider.forget(one)
    except ProviderError as exc:
        raise remote.not_found_or(exc, record_id) from exc
    return {"id": record_id, "status": "forgotten"}


@tool("memory_profile", "Read or set the user's profile; the frame is what the hub derived from memory.",
      {"action": {"type": "string", "enum": ["get", "set"]}, "profile": {"type": "string"}, "space": SPACE,
       "workspace": WORKSPACE}, ("action",))
def memory_profile(call: Call, session_id: str, args: dict) -> dict:
    action = A.choice(args, "action", ("get", "set"), required=True)
    space = policy.growth_space(call, args)
    persona, _ = Persona.objects.get_or_create(space=space, origin=policy.persona_origin(call))
    if action == "set":
        text = A.text(args, "profile", required=True, allow_empty=True)
        persona.profile = redact(text).text
        with transaction.atomic():
            persona.save(update_fields=["profile"])
            oplog.log_op(space, "profile", "", "profile set", call.actor)
    return {"profile": persona.profile, "frame": persona.frame}


@tool("memory_facts", "Stable facts about the user: list (all=true includes history), assert or invalidate one.",
      {"action": {"type": "string", "enum": ["list", "assert", "invalidate"]}, "subject": {"type": "string"},
       "predicate": {"type": "string", "description": "e.g. nickname, name, role, language, preference, skill"},
       "value": {"type": "string"}, "all": {"type": "boolean"}, "space": SPACE, "workspace": WORKSPACE},
      ("action",))
def memory_facts(call: Call, session_id: str, args: dict) -> dict:
    action = A.choice(args, "action", ("list", "assert", "invalidate"), required=True)
    subject = redact(A.text(args, "subject", max_len=100)).text or "user"  # as it was stored
    if action == "list":
        found = policy.visible_facts(call, policy.fact_spaces(call, args))
        if args.get("subject"):
            found = found.filter(subject=subject)
        if args.get("predicate"):
            found = found.filter(predicate=A.text(args, "predicate", max_len=60))
        return {"facts": [facts.fact_to_dict(f) for f in facts.listing(found, history=A.boolean(args, "all"))[:500]]}
    space = policy.growth_space(call, args)
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
        oplog.log_op(space, "fact", "", f"assert {subject}/{predicate}={value}", call.actor)
        touched = changes.asserted + changes.refreshed + changes.invalidated
    else:
        value = A.text(args, "value", max_len=facts.MAX_VALUE_CHARS) or None
        touched = facts.invalidate_fact(space, subject=subject, predicate=predicate, value=value,
                                        origin=policy.changeable_origin(call))
        if not touched:
            raise ApiError("not_found", f"no active fact {subject}/{predicate}" + (f"={value}" if value else ""),
                           "predicate")
        oplog.log_op(space, "fact", "", f"invalidate {subject}/{predicate}" + (f"={value}" if value else ""),
                       call.actor)
    for fact in touched:
        fact.refresh_from_db()
    return touched
