"""How an input model's ValidationError is told to the caller: one `bad_request` naming the field at fault,
in a sentence a person can read ("title is 412 characters; the limit is 300").

An unknown argument is named first (a misspelt filter must fail loudly, whatever else is wrong), then the
first other error in the order the model declares its fields. Field names are the caller's own
(`tags[1]`, `operations[0].target`, `channel.chat_id`), as core/jsonin names them.
"""

from __future__ import annotations

import typing
from typing import Any

from django.utils.translation import gettext_noop
from pydantic import BaseModel, ValidationError

from memoryhub.core.errors import ApiError
from memoryhub.core.jsonin import field_name
from memoryhub.core.told import Told, refused

WORDS = {
    "missing": gettext_noop("{field} is required"),
    "string_type": gettext_noop("{field} must be a string"),
    "int_type": gettext_noop("{field} must be an integer"),
    "int_parsing": gettext_noop("{field} must be an integer"),
    "int_from_float": gettext_noop("{field} must be an integer"),
    "bool_type": gettext_noop("{field} must be true or false"),
    "list_type": gettext_noop("{field} must be a list"),
    "tuple_type": gettext_noop("{field} must be a list"),
    "dict_type": gettext_noop("{field} must be an object"),
    "model_type": gettext_noop("{field} must be an object"),
    "model_attributes_type": gettext_noop("{field} must be an object"),
    "string_too_short": gettext_noop("{field} must not be empty"),
    "too_short": gettext_noop("{field} takes at least {min_length} item(s)"),
    "too_long": gettext_noop("{field} takes at most {max_length} items"),
    "literal_error": gettext_noop("{field} must be one of {expected}"),
}


def said(error: ApiError, field_label: Any = None) -> str:
    """An ApiError's message for a person: in their language when its words are a Told (core/told), else as the
    API says it."""
    told = getattr(error, "told", None)
    return told.said(field_label) if told is not None else error.message


def refusal(error: ValidationError, model: type[BaseModel], prefix: tuple = ()) -> ApiError:
    """The one ApiError for `error`; `prefix` is where the model sits in what the caller sent."""
    problems = error.errors(include_url=False)
    first = next((p for p in problems if p["type"] == "extra_forbidden"), problems[0])
    loc = (*prefix, *first["loc"], *([first["ctx"]["at"]] if (first.get("ctx") or {}).get("at") else []))
    name = field_name(loc) or None
    return refused(words(first, name or noun(model), model, first["loc"]), name)


def noun(model: type[BaseModel]) -> str:
    return getattr(model, "noun", "argument") + "s"


def words(problem: dict[str, Any], name: str, model: type[BaseModel], loc: tuple) -> Told:
    kind, ctx = problem["type"], problem.get("ctx") or {}
    if kind == "memoryhub":
        return Told(ctx["words"], {**ctx, "field": name})
    if kind == "extra_forbidden":
        allowed = declared(model, loc[:-1])
        values = {"noun": getattr(model, "noun", "argument"), "quoted": repr(name), "allowed": ", ".join(allowed or [])}
        if allowed is None:
            return Told(gettext_noop("unknown {noun} {quoted}"), values)
        return Told(gettext_noop("unknown {noun} {quoted}; allowed: {allowed}") if allowed
                    else gettext_noop("unknown {noun} {quoted}; allowed: none"), values)
    if kind == "string_too_long":
        return Told(gettext_noop("{field} is {length} characters; the limit is {max_length}"),
                    {"field": name, "length": len(problem["input"]), "max_length": ctx["max_length"]})
    if kind in ("greater_than_equal", "less_than_equal", "greater_than", "less_than"):
        low, high = bounds(model, loc)
        values = {"field": name, "low": low, "high": high}
        if low is not None and high is not None:
            return Told(gettext_noop("{field} must be between {low} and {high}"), values)
        return Told(gettext_noop("{field} must be at least {low}") if low is not None
                    else gettext_noop("{field} must be at most {high}"), values)
    if kind in WORDS:
        return Told(WORDS[kind], {**ctx, "field": name})
    return Told(gettext_noop("{field}: {msg}"), {"field": name, "msg": problem["msg"]})


def _field(model: type[BaseModel], loc: tuple):
    """The pydantic FieldInfo a (top-level, or nested through models and lists) location names, or None."""
    info = None
    for part in loc:
        if isinstance(part, int):
            continue
        if not (isinstance(model, type) and issubclass(model, BaseModel)):
            return None
        info = next((f for n, f in model.model_fields.items() if (f.alias or n) == part), None)
        if info is None:
            return None
        model = _inner_model(info.annotation)
    return info


def _inner_model(annotation) -> Any:
    """The model inside `Model`, `list[Model]` or `Model | None`, if any."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    for arg in typing.get_args(annotation):
        found = _inner_model(arg)
        if found is not None:
            return found
    return None


def declared(model: type[BaseModel], loc: tuple) -> list[str] | None:
    """The names the model at `loc` takes (for "allowed: …"), or None when it cannot be told."""
    if loc:
        info = _field(model, loc)
        model = _inner_model(info.annotation) if info is not None else None
    if model is None:
        return None
    return [f.alias or n for n, f in model.model_fields.items()]


def bounds(model: type[BaseModel], loc: tuple) -> tuple[Any, Any]:
    """The (low, high) limits a numeric field declares."""
    info = _field(model, loc)
    low = high = None
    for rule in (info.metadata if info is not None else []):
        low = getattr(rule, "ge", low)
        high = getattr(rule, "le", high)
    return low, high
