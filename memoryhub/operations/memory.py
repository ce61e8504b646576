"""The memory operations: save and note, search and recall by id, forget, the persona profile and facts."""

from __future__ import annotations

from typing import Annotated, Any

from django.db import transaction
from django.utils.translation import gettext_noop
from pydantic import Field, model_validator

from memoryhub.access import policy
from memoryhub.access.call import Call
from memoryhub.agents.calls import api_error
from memoryhub.core import jsonin
from memoryhub.core.errors import ApiError
from memoryhub.core.redaction import redact
from memoryhub.memories import remote
from memoryhub.memories.facts import slots as facts
from memoryhub.memories.models import SEARCH_SKIP, Kind, Persona
from memoryhub.memories.recall import cards as recall
from memoryhub.memories.write import access_counts, gateway, oplog
from memoryhub.operations import graph, needs
from memoryhub.operations.base import Input, operation, validate
from memoryhub.operations.fields import (MAX_TEXT, READ_SPACE, SPACE, WORKSPACE, Category, Moment, SkipTags, Space,
                                         Tags, Workspace, Choice, problem, skip_tags_description, Strings, Text)
from memoryhub.spaces.models import MemorySpace
from memoryhub.spaces.provider_services import provider_for
from providers.base import ProviderError

NOTE_BATCH = 100


def written(result: gateway.Written) -> dict[str, Any]:
    return {"id": result.id, "space": result.space.slug, "redactions": result.redactions}


class Save(Input):
    """Save one memory: a finished step, a pitfall, a decision, a structure change, a lesson."""

    category: Category = Field(description="what kind of memory it is (one of the categories)")
    title: Text(300, blank=False) = Field(description="one line, up to 300 characters")
    body: Text(blank=False) = Field(description="the memory itself")
    tags: Tags = Field([], description="labels to find it by, up to 20")
    related: Strings(50, 100) = Field([], description="ids of related memories, up to 50")
    at: Moment = Field(None, description="when it happened (ISO 8601; default: now)")
    space: Space = Field("", description="where to write (default: the token's default space)")
    workspace: Workspace = Field("", description=WORKSPACE)


@operation("memory_save", Save, permission=needs.write_space)
def memory_save(call: Call, session_id: str, args: Save, space: MemorySpace) -> dict:
    draft = gateway.Draft(
        kind=Kind.SAVE, category=args.category, title=args.title, body=args.body, tags=args.tags,
        related=args.related, at=args.at, session_id=session_id, origin=call.origin,
    )
    return written(gateway.write(space, draft, actor=call.actor))


class Note(Input):
    """Note something worth remembering, in plain words."""

    text: Text(blank=False) = Field(description="what to remember")
    space: Space = Field("", description=SPACE)
    workspace: Workspace = Field("", description=WORKSPACE)


@operation("memory_note", Note, permission=needs.write_space)
def memory_note(call: Call, session_id: str, args: Note, space: MemorySpace) -> dict:
    draft = gateway.Draft(kind=Kind.NOTE, body=args.text, session_id=session_id, origin=call.origin)
    return written(gateway.write(space, draft, actor=call.actor))


class NoteBatch(Input):
    """Note several things at once (up to 100), in plain words; one result per note, in order."""

    notes: Annotated[list[Any], Field(min_length=1, max_length=NOTE_BATCH, json_schema_extra={
        "items": {"type": "string", "maxLength": MAX_TEXT}})] = Field(
        description=f"the notes, 1 to {NOTE_BATCH}; a bad one gets its own error and the others are kept")
    space: Space = Field("", description=SPACE)
    workspace: Workspace = Field("", description=WORKSPACE)


class OneNote(Input):
    notes: Text(blank=False)


@operation("memory_note_batch", NoteBatch, permission=needs.write_space, batch="notes")
def memory_note_batch(call: Call, session_id: str, args: NoteBatch, space: MemorySpace) -> dict:
    """memory_note for a list, written in one transaction: a bad note gets its own error, the others are kept."""
    results: list[dict | None] = [None] * len(args.notes)
    drafts, places = [], []
    for n, note in enumerate(args.notes):
        try:
            jsonin.check({"notes": note}, max_depth=jsonin.MAX_DEPTH - 1)
            text = validate(OneNote, {"notes": note}).notes
        except ApiError as exc:
            results[n] = {"error": {**exc.as_dict(), "message": f"notes[{n}]: {exc.message}"}}
            continue
        drafts.append((space, gateway.Draft(kind=Kind.NOTE, body=text, session_id=session_id, origin=call.origin)))
        places.append(n)
    for n, result in zip(places, gateway.write_many(drafts, actor=call.actor)):
        results[n] = {"error": api_error(result, "memory_note_batch").as_dict()} if isinstance(result, Exception) \
            else written(result)
    return {"results": results}


class Search(Input):
    """Search memory; returns summaries with ids (expand one with memory_recall), never full text."""

    query: Text(2000, blank=False) = Field(description="words to look for, in any language (English, Chinese …)")
    scope: Text(60) = Field("all", description="`all`, `local` or an origin name (a non-local token sees only "
                                               "its own origin whatever it asks)")
    limit: Annotated[int, Field(ge=1, le=50)] = Field(8, description="how many results, 1–50")
    skipTags: SkipTags = Field(SEARCH_SKIP, description=skip_tags_description(SEARCH_SKIP))
    space: Space = Field("", description=READ_SPACE)
    workspace: Workspace = Field("", description=WORKSPACE)


@operation("memory_search", Search, permission=needs.read_spaces, reads=True)
def memory_search(call: Call, session_id: str, args: Search, spaces: list[MemorySpace]) -> dict:
    origin = policy.readable_origin(call, args.scope or "all")
    expanded = recall.expand_references(args.query, spaces, session_id, origin)
    missing: list = []
    cards = recall.search(spaces, args.query, limit=args.limit, origin=origin, strict=True, skip_tags=args.skipTags,
                          errors=missing, home=policy.home_space(call, args.given()), referred=expanded)
    recall.note_recall(cards, args.query, call.actor)
    answer = {"results": [c.as_dict() for c in cards]}
    if missing:  # third-party spaces left out: failed, or late for the read's deadline
        answer["warnings"] = [m.as_dict() for m in missing]
    return answer


class ById(Input):
    id: Text(300, blank=False) = Field(description="an id from a card, a search result or a write")


class Recall(ById):
    """Expand a memory by id: its full text (a digest also expands the turns it summarises)."""


def recallable(call: Call, session_id: str, args: ById):
    """A topic card's turns (policy.visible_topic), else the memory policy.changeable_memory resolves: an
    agent reads by id exactly what it may change."""
    if policy.is_topic_id(args.id):
        return policy.visible_topic(call, args.id)
    return policy.changeable_memory(call, args.id)


@operation("memory_recall", Recall, permission=recallable, reads=True)
def memory_recall(call: Call, session_id: str, args: Recall, target) -> dict:
    record_id = args.id
    if not isinstance(target, policy.Target):
        return recall_topic(call, record_id, *target)
    if target.entry is not None:
        entry = target.entry
        access_counts.record_recall({entry.space: [entry]}, f"id={record_id}", call.actor)
        expanded = [{"id": str(e.pk), "at": e.at_iso, "summary": e.summary}
                    for e in entry.digested.live().order_by("at")]
        return {"id": str(entry.pk), "space": entry.space.slug, "title": entry.title, "body": entry.body,
                "category": entry.category, "at": entry.at_iso, "tags": entry.tags,
                "related": list(dict.fromkeys(entry.related + graph.linked(call, entry))), "expanded": expanded}
    space, remote_id = target.space, target.remote_id
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


def recall_topic(call: Call, record_id: str, topic, turns) -> dict:
    """A topic card's id expands to the turns it groups (only those this call may see)."""
    access_counts.record_recall({topic.space: turns}, f"id={record_id}", call.actor)
    return {"id": record_id, "space": topic.space.slug, "title": topic.title,
            "body": "\n\n".join(e.body for e in turns), "category": topic.kind, "at": turns[0].at_iso, "tags": [],
            "related": [], "expanded": [{"id": str(e.pk), "at": e.at_iso, "summary": e.summary} for e in turns]}


class Forget(ById):
    """Forget a memory by id, where its space's provider can."""


@operation("memory_forget", Forget, permission=needs.changeable_memory)
def memory_forget(call: Call, session_id: str, args: Forget, target: policy.Target) -> dict:
    record_id = args.id
    if target.entry is not None:
        gateway.forget(target.entry, actor=call.actor)
        return {"id": record_id, "status": "forgotten"}
    space, remote_id = target.space, target.remote_id
    provider = provider_for(space)
    if not provider.capabilities.forget:
        raise ApiError("unsupported", f"{provider.label} cannot forget memories", "id")
    try:
        for one in remote.record_ids(space, provider, remote_id):
            provider.forget(one)
    except ProviderError as exc:
        raise remote.not_found_or(exc, record_id) from exc
    return {"id": record_id, "status": "forgotten"}


class Profile(Input):
    """Read or set the user's profile; the frame is what the hub derived from memory."""

    action: Choice(("get", "set")) = Field(description="`get` or `set`")
    profile: Text() | None = Field(None, description="the new profile text (`set`; empty clears it)")
    space: Space = Field("", description="a native space (default: the token's default space)")
    workspace: Workspace = Field("", description=WORKSPACE)

    @model_validator(mode="after")
    def _set_needs_profile(self):
        if self.action == "set" and self.profile is None:
            raise problem(gettext_noop("{field} is required"), at="profile")
        return self


@operation("memory_profile", Profile, permission=needs.growth_space)
def memory_profile(call: Call, session_id: str, args: Profile, space: MemorySpace) -> dict:
    persona, _ = Persona.objects.get_or_create(space=space, origin=policy.persona_origin(call))
    if args.action == "set":
        persona.profile = redact(args.profile).text
        with transaction.atomic():
            persona.save(update_fields=["profile"])
            oplog.log_op(space, "profile", "", "profile set", call.actor)
    return {"profile": persona.profile, "frame": persona.frame}


class Facts(Input):
    """Stable facts about the user: list (all=true includes history), assert or invalidate one."""

    action: Choice(("list", "assert", "invalidate")) = Field(description="`list`, `assert` or `invalidate`")
    subject: Text(100) = Field("", description="whom the fact is about (default `user`)")
    predicate: Text(60) = Field("", description="e.g. `nickname`, `name`, `role`, `language`, `preference`, `skill` "
                                                "(required for `assert` and `invalidate`)")
    value: Text(facts.MAX_VALUE_CHARS) = Field("", description="the value (`assert`; for `invalidate`, only that "
                                                               "value)")
    all: bool = Field(False, description="`list` includes invalidated history")
    space: Space = Field("", description="a native space")
    workspace: Workspace = Field("", description=WORKSPACE)

    @model_validator(mode="after")
    def _changes_name_what(self):
        if self.action != "list" and not self.predicate.strip():
            raise problem(gettext_noop("{field} is required to {action} a fact"), at="predicate", action=self.action)
        if self.action == "assert" and not self.value.strip():
            raise problem(gettext_noop("{field} is required to assert a fact"), at="value")
        return self


def fact_scope(call: Call, session_id: str, args: Facts):
    """A list reads every readable native space's facts (policy.fact_spaces, never a vault); an assert or
    invalidate changes one space's (policy.growth_space)."""
    if args.action == "list":
        return policy.fact_spaces(call, args.given())
    return policy.growth_space(call, args.given())


@operation("memory_facts", Facts, permission=fact_scope)
def memory_facts(call: Call, session_id: str, args: Facts, scope) -> dict:
    action = args.action
    subject = redact(args.subject).text or "user"  # as it was stored
    if action == "list":
        found = policy.visible_facts(call, scope)
        if args.subject:
            found = found.filter(subject=subject)
        if args.predicate:
            found = found.filter(predicate=args.predicate)
        return {"facts": [facts.fact_to_dict(f) for f in facts.listing(found, history=args.all)[:500]]}
    space = scope
    predicate = args.predicate
    with transaction.atomic():
        touched = change_fact(call, space, action, subject, predicate, args)
    return {"facts": [facts.fact_to_dict(f) for f in touched]}


def change_fact(call: Call, space: MemorySpace, action: str, subject: str, predicate: str, args: Facts) -> list:
    """Assert or invalidate one fact (one transaction: the change and its op log entry)."""
    if action == "assert":
        value = redact(args.value).text
        changes = facts.assert_fact(space, subject, predicate, value, origin=call.origin, method="manual")
        if not (changes.asserted or changes.refreshed):
            raise ApiError("bad_request", f"{predicate}={value!r} is not a fact the hub can keep", "value")
        oplog.log_op(space, "fact", "", f"assert {subject}/{predicate}={value}", call.actor)
        touched = changes.asserted + changes.refreshed + changes.invalidated
    else:
        value = args.value or None
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
