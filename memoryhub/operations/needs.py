"""What an operation needs, as its declaration names it: each is an access/policy check, called with
(call, session_id, args) before run(), answering what the call may work on (or raising the refusal).

Operations whose need depends on their arguments (a fact list reads, an assert writes) name a function of
their own module built from these same policy checks.
"""

from __future__ import annotations

from memoryhub.access import policy
from memoryhub.access.call import Call
from memoryhub.operations.base import Input


def write_space(call: Call, session_id: str, args: Input):
    """The one space a write goes to (named, the token's only one, else the workspace's)."""
    return policy.write_space(call, args.given())


def read_spaces(call: Call, session_id: str, args: Input):
    """Every space a read covers (the named active one, else each active, non-vault space the token may use)."""
    return policy.read_spaces(call, args.given())


def growth_space(call: Call, session_id: str, args: Input):
    """The native, non-vault space whose persona or facts a call reads or changes."""
    return policy.growth_space(call, args.given())


def changeable_memory(call: Call, session_id: str, args: Input):
    """The memory `id` names, resolved as memory_recall resolves it, that this call may change."""
    return policy.changeable_memory(call, args.id)


def notebook_workspace(call: Call, session_id: str, args: Input):
    """The workspace whose notebooks the call may use (local-origin tokens allowed its mirror space)."""
    return policy.notebook_workspace(call, args.given())


def own_session(call: Call, session_id: str, args: Input) -> None:
    """Any token, on what its own session filed: the operation reads through policy.own_requests/own_live_grants."""
    return None
