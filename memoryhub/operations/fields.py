"""The input rules of agent operations, one field type per rule: each states its cap, its choices and what it
accepts once, and the JSON schema agents see is generated from it (`model_json_schema()`).

A refusal is a `problem()`: `{field}` in its words becomes the name of the field at fault (`tags`, `notes[3]`,
`channel.chat_id`), so the caller reads one sentence naming what to fix (operations/refusals.py).
What JSON schema cannot say — NUL, lone surrogates, depth — stays in core/jsonin, checked before these.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from django.conf import settings
from django.utils import timezone
from django.utils.dateparse import parse_date, parse_datetime
from django.utils.translation import gettext_noop
from pydantic import AfterValidator, BeforeValidator, Field, WithJsonSchema
from pydantic_core import PydanticCustomError

from memoryhub.core.redaction import opaque_id
from memoryhub.memories.models import CATEGORIES

MAX_TEXT = settings.MEMORYHUB["MAX_ENTRY_CHARS"]  # the cap of every text without a smaller one of its own


def problem(words: str, at: str | None = None, **values: Any) -> PydanticCustomError:
    """A refusal in the hub's words; `{field}` becomes the field's name, `at` names a part inside the field, and
    other `{names}` are filled from `values` (what the caller sent goes there, never into `words`)."""
    return PydanticCustomError("memoryhub", words, {"words": words, "at": at, **values})


def Choice(options) -> Any:
    """One of `options` (a tuple or list of strings), as a JSON schema `enum`."""
    return Literal[tuple(options)]


def _not_blank(value: str) -> str:
    if not value.strip():
        raise problem(gettext_noop("{field} must not be empty"))
    return value


def Text(max_length: int = MAX_TEXT, *, blank: bool = True) -> Any:
    """A string of at most `max_length` characters; `blank=False` refuses one that is only whitespace."""
    rules: list[Any] = [str, Field(max_length=max_length)]
    if not blank:
        rules.append(AfterValidator(_not_blank))
    return Annotated[tuple(rules)]


def _record_id(value: str) -> str:
    value = value.strip()
    if not value:
        raise problem(gettext_noop("{field} must not be empty"))
    if not value.isascii() or not value.isprintable():
        raise problem(gettext_noop("{field} must be a memory id the hub handed out (ASCII)"))
    return value


def _session(value: str) -> str:
    return opaque_id(_not_blank(value))  # a session id carrying a secret is kept as a digest: people see it


def _moment(value: Any) -> datetime | None:
    """An ISO 8601 time (a bare date means its midnight); naive times are taken in the hub's zone."""
    if value is None or value == "":
        return None
    if not isinstance(value, str):
        raise problem(gettext_noop("{field} must be an ISO 8601 time"))
    try:
        parsed = parse_datetime(value)
        if parsed is None:
            day = parse_date(value)
            parsed = datetime(day.year, day.month, day.day) if day else None
    except ValueError:
        parsed = None
    if parsed is None:
        raise problem(gettext_noop("{field} must be an ISO 8601 time, got {got}"), got=repr(value[:40]))
    return timezone.make_aware(parsed) if timezone.is_naive(parsed) else parsed


def _iso_text(value: Any) -> Any:
    _moment(value)
    return value


def moment(value: str) -> datetime | None:
    """The time an `IsoText` field holds."""
    return _moment(value)


def Strings(max_items: int = 20, max_length: int = 100) -> Any:
    """A list of short strings, stripped, blanks dropped, each kept once; "a,b" is ["a", "b"], and numbers are
    taken as their digits (tags and ids from loosely typed clients)."""
    return Annotated[list[str], BeforeValidator(short_strings(max_items, max_length)), WithJsonSchema(
        {"type": "array", "items": {"type": "string", "maxLength": max_length}, "maxItems": max_items})]


def short_strings(max_items: int, max_length: int):
    def clean(value: Any) -> list[str]:
        if isinstance(value, str):
            value = value.split(",")
        if not isinstance(value, list) or not all(isinstance(v, (str, int)) and not isinstance(v, bool) for v in value):
            raise problem(gettext_noop("{field} must be a list of strings"))
        items = [str(v).strip() for v in value if str(v).strip()]
        if len(items) > max_items:
            raise problem(gettext_noop("{field} takes at most {max_items} items"), max_items=max_items)
        for item in items:
            if len(item) > max_length:
                raise problem(gettext_noop("each of {field} must be at most {max_length} characters"),
                              max_length=max_length)
        return list(dict.fromkeys(items))

    return clean


def _skip_tags(value: Any) -> tuple[str, ...]:
    if not isinstance(value, list):
        raise problem('{field} must be a list of tags, e.g. [] or ["test", "archived"]')  # skipTags: no form asks
    return tuple(short_strings(20, 100)(value))


def _categories(value: list[str]) -> list[str]:
    for name in value:
        if name not in CATEGORIES:
            raise problem(gettext_noop("{field} must be among: {choices}"), choices=", ".join(CATEGORIES))
    return value


# --- the field types ----------------------------------------------------------------------------
SessionId = Annotated[str, Field(max_length=200), AfterValidator(_session)]
RecordId = Annotated[str, Field(max_length=300), AfterValidator(_record_id)]
Moment = Annotated[datetime | None, BeforeValidator(_moment), WithJsonSchema({"type": "string", "format": "date-time"})]
IsoText = Annotated[str, AfterValidator(_iso_text), WithJsonSchema({"type": "string", "format": "date-time"})]
Category = Choice(CATEGORIES)
Categories = Annotated[Strings(len(CATEGORIES), 20), AfterValidator(_categories),
                       WithJsonSchema({"type": "string", "enum": list(CATEGORIES)})]  # one, or a list of them
Tags = Strings(20, 100)
SkipTags = Annotated[tuple[str, ...], BeforeValidator(_skip_tags), WithJsonSchema(
    {"type": "array", "items": {"type": "string", "maxLength": 100}, "maxItems": 20})]
Space = Annotated[str, Field(max_length=100)]
Workspace = Annotated[str, Field(max_length=1000)]
Config = dict[str, Any]

SPACE = "space slug (default: the token's default space)"
READ_SPACE = "search only this space (default: every active, non-vault space the token may use)"
WORKSPACE = "the agent's working directory (absolute path) or a workspace slug"


def skip_tags_description(default: tuple[str, ...]) -> str:
    shown = ", ".join(f'"{tag}"' for tag in default)
    return (f"leave out memories with any of these tags; default `[{shown}]`, `[]` leaves none out; "
            '`"archived"` means the archive mark, `"test"` the test mark')
