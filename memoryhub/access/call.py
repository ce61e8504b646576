"""One authenticated call: who is calling and with what, plus what it resolved once (cached on it).

An agent calls with a token (`Call`); a person on the dashboard with their account (`PersonCall`), so the
dashboard's actions run the same operations as agents' (dashboard/forms/rules.RuleForm.perform).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from memoryhub.access.people import Person, Role
from memoryhub.agents.models import LOCAL_ORIGIN, ApiToken
from memoryhub.core import sql


@dataclass
class Call:
    token: ApiToken
    body: dict[str, Any] = field(default_factory=dict)
    resolved_workspaces: dict[str, Any] = field(default_factory=dict, init=False, repr=False)  # argument -> Workspace

    @property
    def origin(self) -> str:
        return self.token.origin

    @property
    def actor(self) -> str:
        return self.token.actor

    @property
    def person(self) -> Person | None:
        """The person calling, or None for an agent's token."""
        return None

    @property
    def is_local(self) -> bool:
        """A local token sees every origin; any other sees only its own."""
        return self.origin == LOCAL_ORIGIN

    @cached_property
    def restricted_to(self) -> list[int]:
        """Ids of the spaces the token is limited to; empty when it may use all."""
        through = ApiToken.spaces.through._meta.db_table
        return [pk for (pk,) in sql.rows(f"SELECT memoryspace_id FROM {through} WHERE apitoken_id = %s", [self.token.pk])]


@dataclass
class PersonCall(Call):
    """A signed-in person as the caller of an operation: a local, unrestricted caller (every origin, every space)
    whose name is the actor of the op log, and for whom access/policy asks access/people which spaces they open
    (staff: every one, vaults and switched-off spaces too, as the dashboard shows them). A role that may do
    nothing gets no caller: non-staff accounts are refused before any view runs (dashboard/access.person_may)."""

    token: None = None
    who: Person | None = None

    def __post_init__(self) -> None:
        if self.who is None or self.who.role == Role.ANONYMOUS:
            raise ValueError("only a signed-in person calls operations from the dashboard")

    @property
    def person(self) -> Person:
        return self.who

    @property
    def origin(self) -> str:
        return LOCAL_ORIGIN  # a person's own notes, facts and links are the hub owner's: local

    @property
    def actor(self) -> str:
        return self.who.actor

    @property
    def restricted_to(self) -> list[int]:
        return []
