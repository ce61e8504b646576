"""JSON from outside (agent API bodies, MCP messages, pack files): one parser with the hub's limits.

`json.loads` accepts what the hub cannot keep or should not: lone surrogates ("\\ud800": SQLite
raises UnicodeEncodeError on them), NUL, Unicode non-characters, and nesting deep enough to
exhaust the stack later. Everything read here is checked once, so no face parses JSON its own way.
An agent operation checks its own arguments (memoryhub/operations/base.py), so a batch can refuse one
item for bad text and still write the others: its face parses with `loads(..., checked=False)`.
Its refusals carry their words (core/told), so a dashboard form that checks what a person typed here says them
in the person's language while agents read the same English.
"""

from __future__ import annotations

import json
import re
from typing import Any

from django.utils.translation import gettext_noop

from memoryhub.core.told import Told, refused

MAX_DEPTH = 32

# NUL, surrogates (only lone ones survive decoding), U+FDD0..U+FDEF and the last two code points of every plane.
_NONCHARACTERS = "".join(f"\\U{plane:04x}fffe\\U{plane:04x}ffff" for plane in range(17))
BAD_CHARACTER = re.compile(f"[\\x00\\ud800-\\udfff\\ufdd0-\\ufdef{_NONCHARACTERS}]")


def field_name(path: tuple, skip: tuple = ()) -> str:
    """`arguments.tags[2]` → `tags[2]` when `skip` is ("arguments",): errors name what the caller wrote."""
    if skip and path[: len(skip)] == skip:
        path = path[len(skip):]
    name = ""
    for part in path:
        key = str(part) or '""'  # an empty key is still named
        name += f"[{part}]" if isinstance(part, int) else (f".{key}" if name else key)
    return name


def check(value: Any, *, skip: tuple = (), max_depth: int = MAX_DEPTH, defer: tuple[str, ...] = ()) -> None:
    """Raise bad_request naming the field of the first string with a character the hub refuses, or of
    nesting deeper than `max_depth`. Iterative, so a hostile depth cannot overflow the stack here.

    `defer` names top-level lists whose items the caller checks one by one (a batch's turns)."""
    stack: list[tuple[Any, tuple]] = [(value, ())]
    while stack:
        item, path = stack.pop()
        if len(path) == 1 and path[0] in defer and isinstance(item, list):
            continue
        if len(path) > max_depth:
            raise refused(Told(gettext_noop("nested deeper than {depth} levels"), {"depth": max_depth}),
                          field_name(path, skip) or None)
        if isinstance(item, str):
            found = BAD_CHARACTER.search(item)
            if found:
                raise refused(Told(gettext_noop("contains U+{code}, which is not allowed in text (NUL, a lone "
                                                "surrogate or a non-character)"), {"code": f"{ord(found.group()):04X}"}),
                              field_name(path, skip) or None)
        elif isinstance(item, dict):
            for key, inner in item.items():
                if BAD_CHARACTER.search(key):  # named with JSON escapes: the name itself cannot be shown
                    raise refused(Told(gettext_noop("a field name contains NUL, a lone surrogate or a non-character")),
                                  field_name((*path, json.dumps(key)[1:-1]), skip))
                stack.append((inner, (*path, key)))
        elif isinstance(item, list):
            stack.extend((inner, (*path, i)) for i, inner in enumerate(item))


def loads(raw: bytes | str, *, what: str = "body", skip: tuple = (), max_depth: int = MAX_DEPTH,
          checked: bool = True) -> Any:
    """Parse and check; any failure is bad_request (never RecursionError, UnicodeDecodeError or a huge int).

    `checked=False` leaves the text and depth checks to the caller (an operation checks its arguments)."""
    try:
        data = json.loads(raw)
    except (ValueError, RecursionError) as exc:
        raise refused(Told(gettext_noop("{what} is not valid JSON"), {"what": what})) from exc
    if checked:
        check(data, skip=skip, max_depth=max_depth)
    return data
