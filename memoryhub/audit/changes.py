"""What an audit record keeps of a change: the values that differ, and memory text only as a fingerprint.

An audit row can be neither edited nor deleted, so it must not become a second copy of a memory: a
forgotten entry has to be gone, and vault text stays in the vault. Text a person or an agent wrote as
memory (an entry's title and body, a profile) is kept as its length and a digest, enough to see that
it changed and to check a copy against; names, settings, states, ids, facts and counts are kept as
they were.
"""

from __future__ import annotations

import hashlib
from typing import Any


def fingerprint(text: str | None) -> dict | None:
    """The length of a text and the start of its SHA-256: which text it was, not what it said."""
    if text is None:
        return None
    return {"chars": len(text), "sha256": hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]}


def entry_state(entry) -> dict[str, Any]:
    """A native entry as its audit records show it."""
    return {"title": fingerprint(entry.title), "body": fingerprint(entry.body), "category": entry.category,
            "tags": list(entry.tags), "archived": entry.archived}


def differing(before: dict, after: dict) -> tuple[dict, dict]:
    """The keys whose values differ, each side with its own value (a key one side lacks is None there)."""
    keys = [k for k in dict.fromkeys([*before, *after]) if before.get(k) != after.get(k)]
    return {k: before.get(k) for k in keys}, {k: after.get(k) for k in keys}
