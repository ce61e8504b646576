"""An operation: one thing an agent can do, declared once — its input model, the permission it needs, one run().

    @operation("memory_note", Note, permission=needs.write_space)
    def memory_note(call, session_id, args: Note, space) -> dict: ...

Every face calls it the same way (`registry.run`): the arguments are checked for what JSON schema cannot say
(core/jsonin: NUL, lone surrogates, depth), then validated by the input model (`extra="forbid"`, strict
types, the caps and choices of operations/fields.py), then the permission — an access/policy check — answers
what the call may work on (the space it writes to, the spaces it reads, the memory it names), and run()
gets that answer. No operation can skip its check, and no face parses an argument its own way.
"""

from __future__ import annotations

import inspect
import types
import typing
from dataclasses import dataclass
from functools import cache
from typing import Any, Callable, ClassVar

from pydantic import BaseModel, ConfigDict, ValidationError, model_validator

from memoryhub.access.call import Call
from memoryhub.core import jsonin
from memoryhub.core.errors import bad
from memoryhub.operations import schema
from memoryhub.operations.refusals import refusal

Answer = dict | tuple[dict, int]  # a result, or a result and its HTTP status (201 for a new turn)


class Input(BaseModel):
    """The arguments of one operation. A null for an optional argument is as if it were absent, and so is an
    empty string for one that is not text (a choice, a number, a time): agents' tool callers send both for
    "not given". Every other value must have the declared type."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)
    noun: ClassVar[str] = "argument"  # how refusals name what the caller sent: argument (tools) or field (bodies)

    @model_validator(mode="before")
    @classmethod
    def _absent(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            return data
        declared, untexted = names(cls), optional_untexted(cls)
        return {k: v for k, v in data.items() if not ((v is None and k in declared) or (v == "" and k in untexted))}

    def given(self) -> dict[str, Any]:
        """The arguments as the access policy reads them (by their public names)."""
        return self.model_dump(by_alias=True)


@cache
def names(model: type[Input]) -> frozenset[str]:
    """What the caller may send (an unknown name is refused, whatever its value)."""
    return frozenset(f.alias or n for n, f in model.model_fields.items())


@cache
def optional_untexted(model: type[Input]) -> frozenset[str]:
    """The optional arguments that cannot hold text, for which an empty string means "not given"."""
    return frozenset(f.alias or n for n, f in model.model_fields.items()
                     if not f.is_required() and not holds_text(f.annotation))


def holds_text(annotation: Any) -> bool:
    """str, or an Annotated or optional str."""
    if annotation is str:
        return True
    if typing.get_origin(annotation) is typing.Annotated:
        return holds_text(typing.get_args(annotation)[0])
    return typing.get_origin(annotation) in (typing.Union, types.UnionType) and any(
        holds_text(arg) for arg in typing.get_args(annotation))


def validate(model: type[BaseModel], arguments: Any, prefix: tuple = ()) -> Any:
    """`arguments` as `model`, or the one bad_request naming the field at fault."""
    if not isinstance(arguments, dict):
        where = jsonin.field_name(prefix) or None
        raise bad(f"{where or 'the arguments'} must be a JSON object", where)
    try:
        return model.model_validate(arguments)
    except ValidationError as exc:
        raise refusal(exc, model, prefix) from None


@dataclass(frozen=True)
class Operation:
    name: str
    input: type[Input]
    permission: Callable[..., Any]  # (call, session_id, args) -> what run() may work on; raises ApiError
    run: Callable[..., Answer]  # (call, session_id, args, permitted) -> the answer
    description: str
    tool: bool = True  # listed by GET /api/v1/tools and called at POST /api/v1/tools/{name}
    mcp: bool = True  # offered as an MCP tool
    endpoint: str = ""  # its own HTTP endpoint, e.g. "POST /api/v1/turns" (its arguments are that body)
    in_session: bool = True  # the call's agent session is seen first; False: the arguments name their own
    batch: str = ""  # a list argument whose items are checked and answered one by one (a bad one, alone)
    reads: bool = False  # only reads (its bookkeeping never waits for the write lock): asgi.py keeps it a thread

    def read(self, arguments: Any) -> Input:
        if isinstance(arguments, dict):
            jsonin.check(arguments, defer=(self.batch,) if self.batch else ())
        return validate(self.input, arguments)

    def answer(self, call: Call, session_id: str, arguments: Any) -> tuple[dict, int]:
        args = self.read(arguments)
        permitted = self.permission(call, session_id, args)
        result = self.run(call, session_id, args, permitted)
        return result if isinstance(result, tuple) else (result, 200)

    def parameters(self) -> dict[str, Any]:
        return schema.parameters(self.input)

    def models(self) -> list[type[BaseModel]]:
        """Every model the input is declared with (its own, then the nested ones), as docs/api.md tabulates them."""
        return [self.input, *schema.nested(self.input)]

    def schema(self) -> dict[str, Any]:
        """The OpenAI function form GET /api/v1/tools lists."""
        return {"type": "function", "function": {"name": self.name, "description": self.description,
                                                 "parameters": self.parameters()}}


def operation(name: str, model: type[Input], *, permission: Callable[..., Any], description: str = "",
              cls: type[Operation] = Operation, **options: Any) -> Callable[[Callable[..., Answer]], Operation]:
    """Declare `run` as the operation `name` (the decorated name is the Operation); registry.py lists it.
    The description is the model's docstring unless given."""

    def declare(run: Callable[..., Answer]) -> Operation:
        said = description or inspect.cleandoc(model.__doc__ or "")
        return cls(name, model, permission, run, " ".join(said.split()), **options)

    return declare
