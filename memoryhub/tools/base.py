"""A tool: its name, the JSON schema of its arguments, and the handler `(call, session_id, args) -> dict`.

Both faces call `Tool.run`, which refuses any argument the schema does not declare
(`additionalProperties: false`) before the handler sees it: a misspelt filter must fail loudly, not
widen what a call reaches.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from memoryhub.access.call import Call
from memoryhub.core.errors import bad
from memoryhub.core.jsonin import field_name

SPACE = {"type": "string", "description": "Space slug; default: the token's default space."}
SKIP_TAGS = {"type": "array", "items": {"type": "string"},
             "description": "Leave out entries with any of these tags; default [\"test\"]; [] leaves none out. "
                            "\"archived\" leaves out archived entries."}
WORKSPACE = {"type": "string", "description": "The agent's working directory (absolute path) or a workspace slug."}


@dataclass(frozen=True)
class Tool:
    name: str
    description: str
    parameters: dict[str, Any]
    handler: Callable[[Call, str, dict], dict]

    def run(self, call: Call, session_id: str, args: dict) -> dict:
        refuse_unknown(self.parameters, args)
        return self.handler(call, session_id, args)

    def schema(self) -> dict[str, Any]:
        return {"type": "function", "function": {"name": self.name, "description": self.description,
                                                 "parameters": self.parameters}}


def refuse_unknown(schema: dict[str, Any], value: Any, path: tuple = ()) -> None:
    """bad_request naming the first key the schema does not declare, at any depth of objects and arrays."""
    if isinstance(value, dict) and schema.get("type") == "object":
        declared = schema.get("properties", {})
        if schema.get("additionalProperties") is False:
            for key in value:
                if key not in declared:
                    where = field_name((*path, key))
                    raise bad(f"unknown argument {where!r}; allowed: {', '.join(declared) or 'none'}", where)
        for key, inner in value.items():
            if key in declared:
                refuse_unknown(declared[key], inner, (*path, key))
    elif isinstance(value, list) and schema.get("type") == "array" and isinstance(schema.get("items"), dict):
        for i, inner in enumerate(value):
            refuse_unknown(schema["items"], inner, (*path, i))


def tool(name: str, description: str, properties: dict[str, Any], required: tuple[str, ...] = ()):
    """Declare a handler as a tool (the decorated name is the Tool); memoryhub.tools.registry lists it."""

    def declare(handler: Callable[[Call, str, dict], dict]) -> Tool:
        return Tool(name, description, {"type": "object", "properties": properties, "required": list(required),
                                        "additionalProperties": False}, handler)

    return declare
