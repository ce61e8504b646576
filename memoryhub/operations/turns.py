"""memory_turn: archive finished turns (POST /api/v1/turns, and MCP's memory_turn), one or a batch of them.

One turn is a `Turn`; `{"turns": [...]}` a `Batch`, whose turns are each checked and validated on their own,
so a bad one (a missing field, a NUL, a space it may not write) answers its own error and the others are
written together in one transaction. The bridged chat a turn came from is its `channel` (`Channel`: the input
rules of memories/channels.py's Channel, which keeps what the entry stores).
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Annotated, Any

from django.utils import timezone
from django.utils.translation import gettext_noop
from pydantic import AfterValidator, BeforeValidator, Field, WithJsonSchema, model_validator

from memoryhub.access import policy
from memoryhub.access.call import Call
from memoryhub.agents import sessions
from memoryhub.agents.calls import api_error
from memoryhub.core import jsonin
from memoryhub.core.errors import bad
from memoryhub.memories import channels
from memoryhub.memories.models import Kind
from memoryhub.memories.write import gateway
from memoryhub.operations import schema
from memoryhub.operations.base import Input, Operation, operation, validate
from memoryhub.operations.fields import WORKSPACE, Moment, SessionId, Space, Workspace, Choice, problem, Text
from memoryhub.spaces import space_settings
from memoryhub.spaces.models import MemorySpace

AGENT_CONTEXTS = ("primary", "subagent", "cron", "flush")
BATCH_TURNS = 100
NAME = re.compile(r"^[a-z0-9][a-z0-9_.-]{0,39}$")  # a platform or bridge: lower-case, as it becomes a tag
ID_CHARS, NAME_CHARS = 100, 200


# --- the bridged chat ---------------------------------------------------------------------------
def chat_text(limit: int, *, ident: bool = False):
    """A channel string: stripped, within `limit`, no control characters; an id may be a number and has no spaces."""

    def clean(raw: Any) -> str:
        if isinstance(raw, int) and not isinstance(raw, bool) and ident:
            raw = str(raw)
        if not isinstance(raw, str):
            raise problem(gettext_noop("{field} must be a string"))
        raw = raw.strip()
        if len(raw) > limit:
            raise problem(gettext_noop("{field} is {length} characters; the limit is {max_length}"), length=len(raw),
                          max_length=limit)
        if any(ord(c) < 32 or ord(c) == 127 for c in raw) or (ident and " " in raw):
            raise problem("{field} holds control characters or spaces" if ident  # a turn's ids: no form asks for them
                          else gettext_noop("{field} holds control characters"))
        return raw

    return BeforeValidator(clean)


def _name(value: str) -> str:
    if value and not NAME.match(value):
        raise problem(gettext_noop('{field} must be a short lower-case name (letters, digits, - _ .), e.g. "qq"'))
    return value


ChatId = Annotated[str, chat_text(ID_CHARS, ident=True), WithJsonSchema({"type": "string", "maxLength": ID_CHARS})]
ChatName = Annotated[str, chat_text(NAME_CHARS), WithJsonSchema({"type": "string", "maxLength": NAME_CHARS})]
Name = Annotated[str, chat_text(ID_CHARS), AfterValidator(_name), WithJsonSchema({"type": "string", "maxLength": 40})]


class Channel(Input):
    """The bridged chat a turn came from (a bot carrying a group or private chat); ids may be strings or integers."""

    noun = "field"
    platform: Name = Field(description="where the chat lives, a lower-case name: `qq`, `telegram`, `discord` …")
    chat_type: Annotated[Choice(channels.CHAT_TYPES), chat_text(ID_CHARS)] = Field(
        description="`group` (several people) or `private` (one person)")
    chat_id: ChatId = Field("", description="the group's id (required for a group; up to 100 characters, no spaces)")
    chat_name: ChatName = Field("", description="the group's display name (up to 200 characters)")
    user_id: ChatId = Field("", description="who said it (required for a private chat without `chat_id`)")
    user_name: ChatName = Field("", description="their display name (up to 200 characters)")
    thread_id: ChatId = Field("", description="a thread or topic inside the chat")
    bridge: Name = Field("", description="the bridge's name, lower-case (e.g. `astrbot`)")

    @model_validator(mode="after")
    def _who(self):
        if not self.platform:
            raise problem(gettext_noop('{field} is required, e.g. "qq" or "telegram"'), at="platform")
        if self.chat_type == channels.GROUP and not self.chat_id:
            raise problem(gettext_noop("{field} is required for a group chat"), at="chat_id")
        if self.chat_type == channels.PRIVATE and not (self.chat_id or self.user_id):
            raise problem(gettext_noop("{field} (or chat_id) is required for a private chat"), at="user_id")
        return self

    def chat(self) -> channels.Channel:
        return channels.Channel(**self.model_dump())


# --- one turn, or a batch -----------------------------------------------------------------------
class Turn(Input):
    """Archive one finished turn."""

    noun = "field"
    session_id: SessionId = Field(description="the agent's conversation")
    user: Text(blank=False) = Field(description="what the user said")
    assistant: Text() = Field(description="what the agent answered (may be empty)")
    space: Space = Field("", description="where to write (default: the token's default space)")
    workspace: Workspace = Field("", description=WORKSPACE)
    at: Moment = Field(None, description="when the turn happened (ISO 8601; default: now)")
    idempotency_key: Text(200) = Field("", description=(
        "the same key again answers 200 with the first entry; nothing is written twice. In a vault the key is the "
        "sending token's and session's own: the same key from another agent or session writes a new entry"))
    agent_context: Choice(AGENT_CONTEXTS) = Field("primary", description=(
        "`primary` (default), `subagent`, `cron` or `flush`: only primary turns are archived, sub-agents' too "
        "where the space's `recordSubagents` is on; a turn that is not archived answers 200 with "
        '`"entry": null` and `"skipped"` saying why'))
    channel: Channel | None = Field(None, description="the bridged chat the turn came from (a bot carrying a "
                                                      "group or private chat)")


def _turns(value: Any) -> Any:
    if not isinstance(value, list) or not value:
        raise problem(gettext_noop("{field} must be a non-empty list of turn objects"))
    if len(value) > BATCH_TURNS:
        raise problem(gettext_noop("{field} takes at most {most} turns per request; send the rest in another"),
                      most=BATCH_TURNS)
    return value


class Batch(Input):
    """Archive up to 100 turns in one request, one result per turn in order."""

    noun = "field"
    turns: Annotated[list[Any], BeforeValidator(_turns), WithJsonSchema({
        "type": "array", "minItems": 1, "maxItems": BATCH_TURNS, "items": schema.parameters(Turn)})] = Field(
        description=f"up to {BATCH_TURNS} turns, each with the fields of one turn (its own `idempotency_key`)")
    space: Space = Field("", description="the space of every turn that names none")
    workspace: Workspace = Field("", description="the workspace of every turn that names none")


class Turns(Operation):
    """One turn, or `{"turns": [...]}`: the batch's envelope is read here, its turns one by one by run()."""

    def read(self, arguments: Any) -> Turn | Batch:
        if isinstance(arguments, dict) and "turns" in arguments:
            jsonin.check(arguments, defer=("turns",))
            return validate(Batch, arguments)
        return super().read(arguments)

    def models(self) -> list:
        return [*super().models(), Batch]

    def parameters(self) -> dict[str, Any]:
        """One object for both forms (tool callers take no top-level oneOf): a turn's fields, or `turns`."""
        one, many = schema.parameters(Turn), schema.parameters(Batch)
        return {"type": "object", "properties": {**one["properties"], "turns": many["properties"]["turns"]},
                "required": [], "additionalProperties": False}


def turn_space(call: Call, session_id: str, args: Turn | Batch) -> MemorySpace | None:
    """policy.write_space for one turn; in a batch each turn asks it on its own (its refusal is that turn's)."""
    return None if isinstance(args, Batch) else policy.write_space(call, args.given())


@operation("memory_turn", Turn, permission=turn_space, cls=Turns, tool=False, endpoint="POST /api/v1/turns",
           in_session=False, description=(
               "Archive a finished turn: session_id, user and assistant (and optionally space, workspace, at, "
               "idempotency_key, agent_context, channel); or a batch, turns: [turn, …] (up to 100), answered "
               "one result per turn. The same idempotency_key again writes nothing twice."))
def memory_turn(call: Call, session_id: str, args: Turn | Batch, space: MemorySpace | None):
    if isinstance(args, Batch):
        return {"results": turn_batch(call, args)}, 200
    draft, skipped = turn_draft(call, args, space)
    if skipped:
        return skipped, 200
    return turn_answer(gateway.write(space, draft, actor=call.actor))


def turn_batch(call: Call, batch: Batch) -> list[dict]:
    """Each turn read on its own (a bad one answers its own error), then every good one written at once."""
    defaults = {key: getattr(batch, key) for key in ("space", "workspace") if getattr(batch, key)}
    spaces: dict = {}  # (space, workspace) arguments -> the space they resolved to, once per batch
    results: list[dict | None] = [None] * len(batch.turns)
    drafts, places = [], []
    for n, fields in enumerate(batch.turns):
        try:
            if not isinstance(fields, dict):
                raise bad(f"turns[{n}] must be an object", "turns")
            jsonin.check(fields, max_depth=jsonin.MAX_DEPTH - 2)  # its place in the body takes two levels
            turn = validate(Turn, {**defaults, **fields})
            where = (turn.space, turn.workspace)
            if where not in spaces:
                spaces[where] = policy.write_space(call, turn.given())
            draft, skipped = turn_draft(call, turn, spaces[where])
        except Exception as exc:  # noqa: BLE001 — this turn's own error; the others go on
            results[n] = error_result(exc)
            continue
        if skipped:
            results[n] = {"status": 200, **skipped}
        else:
            drafts.append((spaces[where], draft))
            places.append(n)
    for n, written in zip(places, gateway.write_many(drafts, actor=call.actor)):
        if isinstance(written, Exception):
            results[n] = error_result(written)
        else:
            answer, status = turn_answer(written)
            results[n] = {"status": status, **answer}
    return results


def turn_draft(call: Call, turn: Turn, space: MemorySpace) -> tuple[gateway.Draft | None, dict | None]:
    """(the draft to write, None), or (None, the answer) for a turn its space does not archive."""
    sessions.touch(call.token, turn.session_id)
    if not records(space, turn.agent_context):
        return None, {"entry": None, "facts": {"asserted": [], "invalidated": []}, "redactions": 0,
                      "skipped": f"{turn.agent_context} turns are not archived in {space.slug}"}
    draft = gateway.Draft(kind=Kind.TURN, user=turn.user, assistant=turn.assistant, session_id=turn.session_id,
                          at=turn.at, origin=call.origin, idempotency_key=turn.idempotency_key,
                          writer=str(call.token.pk))
    if turn.channel is not None:
        chat = turn.channel.chat()
        draft = replace(draft, channel=chat.umo, chat=chat.as_dict(), tags=chat.tags)
    return draft, None


def records(space: MemorySpace, agent_context: str) -> bool:
    """Only the primary agent's turns are archived, plus sub-agents' where recordSubagents is on."""
    if agent_context == "primary":
        return True
    return agent_context == "subagent" and space_settings.effective(space)["recordSubagents"]


def entry_summary(result: gateway.Written) -> dict:
    if result.entry is not None:
        e = result.entry
        return {"id": str(e.pk), "space": result.space.slug, "at": e.at_iso, "summary": e.summary,
                "category": e.category}
    return {"id": result.id, "space": result.space.slug, "at": timezone.now().isoformat(), "summary": "",
            "category": "context", "receipt": result.receipt.state if result.receipt else "unknown"}


def turn_answer(result: gateway.Written) -> tuple[dict, int]:
    payload = {"entry": entry_summary(result), "facts": result.facts, "redactions": result.redactions}
    if not policy.shows_derived(result.space):  # a vault's summary and facts stay in it, even for a repeated key
        payload["entry"]["summary"] = ""
        payload["facts"] = {"asserted": [], "invalidated": []}
    if not result.created:
        payload["redactions"] = result.entry.redactions if result.entry else result.redactions
    return payload, (201 if result.created else 200)


def error_result(exc: Exception) -> dict:
    """One item's failure inside a batch answer: its status and the API's error object."""
    error = api_error(exc, "a batch item")
    return {"status": error.status, "error": error.as_dict()}
