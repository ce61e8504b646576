"""A tool: its name, the JSON schema of its arguments, and the handler `(call, session_id, args) -> dict`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from memoryhub.access.call import Call

SPACE = {"type": "string", "description": "Space slug; default: the token's default space."}
WORKSPACE = {"type": "string", "description": "The agent's working directory (absolute path) or a workspace slug."}


@dataclass(frozen=True)
class Tool:
    name: str
    description: str
    parameters: dict[str, Any]
    handler: Callable[[Call, str, dict], dict]

    def schema(self) -> dict[str, Any]:
        return {"type": "function", "function": {"name": self.name, "description": self.description,
                                                 "parameters": self.parameters}}


def tool(name: str, description: str, properties: dict[str, Any], required: tuple[str, ...] = ()):
    """Declare a handler as a tool (the decorated name is the Tool); memoryhub.tools.registry lists it."""

    def declare(handler: Callable[[Call, str, dict], dict]) -> Tool:
        return Tool(name, description, {"type": "object", "properties": properties, "required": list(required),
                                        "additionalProperties": False}, handler)

    return declare
