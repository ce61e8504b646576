"""Row ids as agents and forms give them: ASCII digits only, small enough for a 64-bit column.

`str.isdigit()` is true for "²" and "٣" (which `int()` refuses or reads as another number) and for
thousands of digits (which the database refuses): neither may reach a query.
"""

from __future__ import annotations

MAX_DIGITS = 18  # below 2**63


def row_id(value: object) -> int | None:
    """The id an ASCII digit string (or a non-negative int) names, else None."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value if 0 <= value < 10**MAX_DIGITS else None
    if isinstance(value, str) and value.isascii() and value.isdigit() and len(value) <= MAX_DIGITS:
        return int(value)
    return None


def row_ids(values) -> list[int]:
    """The ids among `values`; anything else is left out."""
    return [i for i in (row_id(v) for v in values) if i is not None]
