"""docs/api.md's argument tables, rendered from the declarations: what a person reads is what agents get.

Each operation's section (`### \\`memory_save\\``, or its endpoint's, `### \\`POST /api/v1/turns\\``) holds one
table per input model — the operation's own, then each nested one (a turn's `channel`, a batch) — with a row
per field: its name, JSON type, whether it is required, and its description. `manage.py api_docs` rewrites
them in place; tests/test_api_docs.py fails when the file and the declarations differ.
"""

from __future__ import annotations

import json
import re

from pydantic import BaseModel

from memoryhub.operations import schema
from memoryhub.operations.base import Operation
from memoryhub.operations.registry import OPERATIONS

HEADING = re.compile(r"^### `([^`]+)`\s*$", re.M)
TABLE = re.compile(r"^\| (argument|field) \| type \| required \| meaning \|\n\|[-|]+\|\n(?:\|.*\|\n)*", re.M)


def table(model: type[BaseModel]) -> str:
    spec = schema.parameters(model)
    word = getattr(model, "noun", "argument")
    rows = [f"| {word} | type | required | meaning |", "|---|---|---|---|"]
    for name, field in spec["properties"].items():
        meaning = field.get("description", "")
        if "default" in field and "default" not in meaning:
            meaning += f" (default `{json.dumps(field['default'], ensure_ascii=False)}`)"
        meaning = meaning.replace("|", "\\|")
        rows.append(f"| `{name}` | {field.get('type', 'object')} | "
                    f"{'yes' if name in spec['required'] else 'no'} | {meaning} |")
    return "\n".join(rows) + "\n"


def section_name(operation: Operation) -> str:
    return operation.endpoint or operation.name


def sections(text: str) -> dict[str, tuple[int, int]]:
    """Each `### \\`name\\`` heading's (start, end) offsets of its body."""
    marks = list(HEADING.finditer(text))
    return {m.group(1): (m.end(), marks[i + 1].start() if i + 1 < len(marks) else len(text))
            for i, m in enumerate(marks)}


def expected() -> dict[str, list[str]]:
    """Section name -> the argument tables it must hold, in order."""
    wanted: dict[str, list[str]] = {}
    for operation in OPERATIONS.values():
        tables = [table(m) for m in operation.models() if m.model_fields]
        if tables:
            wanted[section_name(operation)] = tables
    return wanted


class Mismatch(Exception):
    pass


def rewrite(text: str) -> str:
    """docs/api.md with every operation's argument tables rendered from its declaration.

    Raises Mismatch when a section is missing or holds another number of argument tables (a person must
    place a new table; the rewrite only fills them)."""
    found = sections(text)
    by_section = {section_name(op): op for op in OPERATIONS.values()}
    replacements: list[tuple[int, int, str]] = []
    for name, tables in expected().items():
        if name not in found:
            raise Mismatch(f"docs/api.md has no section ### `{name}`")
        start, end = found[name]
        present = list(TABLE.finditer(text, start, end))
        if len(present) != len(tables):
            shown = ", ".join(m.__name__ for m in by_section[name].models() if m.model_fields)
            raise Mismatch(f"### `{name}` holds {len(present)} argument tables; its declaration has {len(tables)} "
                           f"({shown})")
        replacements += [(m.start(), m.end(), new) for m, new in zip(present, tables)]
    for start, end, new in sorted(replacements, reverse=True):
        text = text[:start] + new + text[end:]
    return text


def tables_in(text: str) -> dict[str, list[str]]:
    """What the file holds: section name -> its argument tables (for a test's message)."""
    return {name: [m.group(0) for m in TABLE.finditer(text, start, end)] for name, (start, end) in sections(text).items()}

