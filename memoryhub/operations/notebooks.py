"""The `memory` operation: the agent's MEMORY.md / USER.md notebooks (memoryhub.memories.notebooks.hot holds the rules)."""

from __future__ import annotations

from typing import Annotated

from django.utils.translation import gettext_noop
from pydantic import Field, model_validator

from memoryhub.access import policy
from memoryhub.access.call import Call
from memoryhub.memories.notebooks import hot as nb
from memoryhub.operations import needs
from memoryhub.operations.base import Input, operation
from memoryhub.operations.fields import Workspace, Choice, problem, Text

MAX_OPERATIONS = 50

DESCRIPTION = (
    "Your notebooks, injected at the start of every session: target 'memory' (MEMORY.md: your notes on the "
    "environment, conventions, lessons) or 'user' (USER.md: who the user is, preferences). Entries are short "
    "texts; the limit counts characters of the whole file (MEMORY.md 2,200, USER.md 1,375 by default). "
    "action add | replace | remove; replace and remove name the entry by old_text, which must be the whole "
    "entry or a substring of exactly one entry. operations = [{action, target, content?, old_text?}] runs a "
    "batch all-or-nothing (limits checked on the result). Success: {ok: true, results, usage, entry_count}; "
    "an exact duplicate add is ok with status 'duplicate'. When the change breaks a notebook rule (over the "
    "limit, no or several matches, text that looks like prompt injection) the answer is still 200 with "
    "{ok: false, error, target, entries or matches, usage} and NOTHING changed: consolidate and retry. Malformed "
    "arguments are a 400 bad_request. Edits show from the next session; this one keeps its snapshot. "
    "workspace: the notebooks of that workspace; none = the global pair."
)
CONTENT = "the entry text (`add`, `replace`)"
OLD_TEXT = "the whole entry, or a substring of exactly one (`replace`, `remove`)"


def check_change(action: str, content: str | None, old_text: str | None) -> None:
    """What each action needs: add and replace a content, replace and remove the old_text naming an entry."""
    for name, value, needed in (("content", content, action != "remove"), ("old_text", old_text, action != "add")):
        if needed and value is None:
            raise problem(gettext_noop("{field} is required"), at=name)
        if needed and not value.strip():
            raise problem(gettext_noop("{field} must not be empty"), at=name)


class Change(Input):
    """One change: {action, target, content?, old_text?}."""

    action: Choice(nb.ACTIONS) = Field(description="`add`, `replace` or `remove`")
    target: Choice(nb.TARGETS) = Field(description="`memory` (MEMORY.md) or `user` (USER.md)")
    content: Text() | None = Field(None, description=CONTENT)
    old_text: Text() | None = Field(None, description=OLD_TEXT)

    @model_validator(mode="after")
    def _needs(self):
        check_change(self.action, self.content, self.old_text)
        return self

    def op(self) -> nb.Op:
        return nb.Op(self.action, self.target, self.content or "", self.old_text or "")


class Notebooks(Input):
    action: Choice(nb.ACTIONS) | None = Field(None, description="`add`, `replace` or `remove` (required unless "
                                                                "`operations` is given)")
    target: Choice(nb.TARGETS) | None = Field(None, description="`memory` (MEMORY.md) or `user` (USER.md)")
    content: Text() | None = Field(None, description=CONTENT)
    old_text: Text() | None = Field(None, description=OLD_TEXT)
    operations: Annotated[list[Change], Field(max_length=MAX_OPERATIONS)] = Field(
        [], description="`[{action, target, content?, old_text?}]`, all or nothing")
    workspace: Workspace = Field("", description="the workspace's notebooks; none = the hub's global pair")

    @model_validator(mode="after")
    def _one_way(self):
        if self.operations:
            if self.action is not None:
                raise problem(gettext_noop("give either action or operations, not both"), at="operations")
            return self
        for name in ("action", "target"):
            if getattr(self, name) is None:
                raise problem(gettext_noop("{field} is required"), at=name)
        check_change(self.action, self.content, self.old_text)
        return self

    def changes(self) -> list[nb.Op]:
        if self.operations:
            return [change.op() for change in self.operations]
        return [nb.Op(self.action, self.target, self.content or "", self.old_text or "")]


@operation("memory", Notebooks, permission=needs.notebook_workspace, description=DESCRIPTION)
def memory(call: Call, session_id: str, args: Notebooks, workspace) -> dict:
    ops = args.changes()
    try:
        outcome = nb.apply(workspace, ops, actor=call.actor, session_id=session_id, origin=call.origin)
    except nb.Refused as exc:
        return exc.as_dict(nb.usages(nb.entries_of(workspace)))
    entries = nb.entries_of(workspace)
    return {
        "ok": True,
        "workspace": workspace.slug if workspace else None,
        "results": [{"action": a.action, "target": a.target, "status": a.status, "message": a.message}
                    for a in outcome.applied],
        "message": "; ".join(a.message for a in outcome.applied),
        "usage": nb.usages(entries),
        "entry_count": {t: len(entries[t]) for t in nb.TARGETS},
        "redactions": outcome.redactions,
    }


def pinned(call: Call, session, body: dict) -> list[dict]:
    """The notebooks /context puts first: the session's frozen global pair, then the workspace's (those the token
    may use), as recall.context_block takes them."""
    scopes = [None] + ([w] if (w := policy.workspace_arg(call, body)) else [])
    scopes = [w for w in scopes if policy.may_use_notebooks(call, w)]
    return nb.freeze(session, scopes)
