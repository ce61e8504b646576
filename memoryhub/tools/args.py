"""Argument readers for JSON bodies: each returns a clean value or raises bad_request naming the field."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.conf import settings
from django.utils import timezone
from django.utils.dateparse import parse_date, parse_datetime

from memoryhub.core.errors import bad
from memoryhub.memories.models import CATEGORIES

MISSING = object()


def text(args: dict, name: str, *, required: bool = False, max_len: int | None = None, default: str = "",
         allow_empty: bool = False) -> str:
    value = args.get(name, MISSING)
    if value is MISSING or value is None:
        if required:
            raise bad(f"{name} is required", name)
        return default
    if not isinstance(value, str):
        raise bad(f"{name} must be a string", name)
    if required and not allow_empty and not value.strip():
        raise bad(f"{name} must not be empty", name)
    limit = max_len or settings.MEMORYHUB["MAX_ENTRY_CHARS"]
    if len(value) > limit:
        raise bad(f"{name} is {len(value)} characters; the limit is {limit}", name)
    return value


def integer(args: dict, name: str, *, default: int, low: int, high: int) -> int:
    value = args.get(name, MISSING)
    if value is MISSING or value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int):
        raise bad(f"{name} must be an integer", name)
    if not low <= value <= high:
        raise bad(f"{name} must be between {low} and {high}", name)
    return value


def boolean(args: dict, name: str, default: bool = False) -> bool:
    value = args.get(name, MISSING)
    if value is MISSING or value is None:
        return default
    if not isinstance(value, bool):
        raise bad(f"{name} must be true or false", name)
    return value


def choice(args: dict, name: str, options, *, required: bool = False, default: str = "") -> str:
    value = text(args, name, required=required, max_len=100, default=default)
    if value and value not in options:
        raise bad(f"{name} must be one of: {', '.join(options)}", name)
    return value


def category(args: dict, name: str = "category", *, required: bool = False, default: str = "general") -> str:
    return choice(args, name, CATEGORIES, required=required, default=default)


def strings(args: dict, name: str, *, max_items: int = 20, max_len: int = 100) -> list[str]:
    value = args.get(name, MISSING)
    if value is MISSING or value is None:
        return []
    if isinstance(value, str):
        value = [v for v in value.split(",")]
    if not isinstance(value, list) or not all(isinstance(v, (str, int)) and not isinstance(v, bool) for v in value):
        raise bad(f"{name} must be a list of strings", name)
    items = [str(v).strip() for v in value if str(v).strip()]
    if len(items) > max_items:
        raise bad(f"{name} takes at most {max_items} items", name)
    for item in items:
        if len(item) > max_len:
            raise bad(f"each of {name} must be at most {max_len} characters", name)
    return list(dict.fromkeys(items))


def skip_tags(args: dict, default: tuple[str, ...], name: str = "skipTags") -> tuple[str, ...]:
    """Tags whose entries a read leaves out: absent means `default`, `[]` leaves nothing out."""
    value = args.get(name, MISSING)
    if value is MISSING or value is None:
        return default
    if not isinstance(value, list):
        raise bad(f"{name} must be a list of tags, e.g. [] or [\"test\", \"archived\"]", name)
    return tuple(strings(args, name, max_items=20, max_len=100))


def moment(args: dict, name: str) -> datetime | None:
    """An ISO 8601 time (a bare date means its midnight); naive times are taken as the hub's zone."""
    value = args.get(name, MISSING)
    if value is MISSING or value is None or value == "":
        return None
    if not isinstance(value, str):
        raise bad(f"{name} must be an ISO 8601 time", name)
    try:
        parsed = parse_datetime(value)
        if parsed is None:
            day = parse_date(value)
            parsed = datetime(day.year, day.month, day.day) if day else None
    except ValueError:
        parsed = None
    if parsed is None:
        raise bad(f"{name} must be an ISO 8601 time, got {value[:40]!r}", name)
    if timezone.is_naive(parsed):
        parsed = timezone.make_aware(parsed)
    return parsed


def obj(value: Any, name: str) -> dict:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise bad(f"{name} must be an object", name)
    return value


def record_id(args: dict, name: str = "id") -> str:
    """A memory id as the hub hands them out: `123`, `t12` or `<space slug>:<provider id>`, ASCII only."""
    value = text(args, name, required=True, max_len=300).strip()
    if not value.isascii() or not value.isprintable():
        raise bad(f"{name} must be a memory id the hub handed out (ASCII)", name)
    return value
