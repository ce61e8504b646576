"""memory_context: the budgeted block to inject before a turn (POST /api/v1/context, MCP's memory_context, and
the MCP prompt and resource that offer the same block to pin)."""

from __future__ import annotations

from pydantic import Field

from memoryhub.access import policy
from memoryhub.access.call import Call
from memoryhub.agents import sessions
from memoryhub.memories.models import AUTOMATIC_SKIP
from memoryhub.memories.recall import cards as recall
from memoryhub.operations import needs, notebooks
from memoryhub.operations.base import Input, operation
from memoryhub.operations.fields import WORKSPACE, SessionId, SkipTags, Space, Workspace, skip_tags_description, Text
from memoryhub.spaces.models import MemorySpace


MESSAGE_CHARS = 1_048_576  # a user's message, pasted files and all (the body's own cap); search reads a bounded part


class Context(Input):
    """What to inject before a turn: the pinned notebooks, who the user is, and recall cards for the query,
    within a budget of characters."""

    noun = "field"
    session_id: SessionId = Field(description="the agent's conversation")
    query: Text(MESSAGE_CHARS) = Field("", description=(
        "the user's message or what the agent is about to do, of any length within the body's 1 MiB: one longer "
        "than 4,000 characters is searched by its lines that read as prose, from its beginning and its end"))
    space: Space = Field("", description="read only this space")
    workspace: Workspace = Field("", description=WORKSPACE)
    max_chars: int | None = Field(None, ge=0, le=100_000, description=(
        "the budget (default: the space's `maxInjectChars`, 2600); `chars` never exceeds it"))
    skipTags: SkipTags = Field(AUTOMATIC_SKIP, description=skip_tags_description(AUTOMATIC_SKIP))
    notebooks: bool = Field(True, description=(
        "`false` leaves the pinned notebooks out, for a client that injects its own (the Hermes provider) or "
        "already injected them this session (the agent hooks, at session start); the block then has the whole "
        "budget"))


@operation("memory_context", Context, permission=needs.read_spaces, tool=False, endpoint="POST /api/v1/context",
           in_session=False, description=(
               "What to inject before a turn: the pinned notebooks, who the user is and recall cards for the "
               "query, within max_chars (default 2600). Returns {text, chars, items}; expand a card's id with "
               "memory_recall."), reads=True)
def memory_context(call: Call, session_id: str, args: Context, spaces: list[MemorySpace]) -> dict:
    session = sessions.see(call.token, args.session_id)
    missing: list = []
    ctx, cards = recall.context_block(notebooks.pinned(call, session, args.given()), spaces, args.query,
                                      origin=policy.readable_origin(call), session_id=args.session_id,
                                      max_chars=args.max_chars, home=policy.home_space(call, args.given()),
                                      skip_tags=args.skipTags, missing=missing, notebooks=args.notebooks)
    recall.note_recall(cards, args.query, call.actor)
    answer = {"text": ctx.text, "chars": ctx.chars, "items": ctx.items}
    if missing:  # third-party spaces left out: failed, or late for the read's deadline
        answer["warnings"] = [m.as_dict() for m in missing]
    return answer
