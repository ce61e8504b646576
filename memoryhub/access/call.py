"""One authenticated agent call: who is calling and with what, plus what it resolved once (cached on it)."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

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
    def is_local(self) -> bool:
        """A local token sees every origin; any other sees only its own."""
        return self.origin == LOCAL_ORIGIN

    @cached_property
    def restricted_to(self) -> list[int]:
        """Ids of the spaces the token is limited to; empty when it may use all."""
        through = ApiToken.spaces.through._meta.db_table
        return [pk for (pk,) in sql.rows(f"SELECT memoryspace_id FROM {through} WHERE apitoken_id = %s", [self.token.pk])]
