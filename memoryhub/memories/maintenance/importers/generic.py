"""The generic turns file, for every agent this hub has no reader for (docs/memory.md, "Bring your history"): JSON
lines, one finished turn each,

    {"session_id": "s1", "user": "what the person said", "assistant": "the answer", "at": "2026-03-01T09:30:00Z"}

with optional `id` (a stable id for the turn: importing again skips it; without one the key comes from the session,
the time and the text), `workspace` (the absolute project directory the turn ran in) and `meta` (an object kept
with the memory as where it came from). `at` is ISO 8601 or epoch seconds or milliseconds; without it the turn is
dated when it is imported. A line with another field, a missing or empty `user`, `assistant` or `session_id`, or a
value of the wrong type is reported by its line number and left out.
"""

from __future__ import annotations

from memoryhub.memories.maintenance.importers import reading
from memoryhub.memories.maintenance.importers.base import Batch, key_of, source_key, turn

REQUIRED = ("session_id", "user", "assistant")
OPTIONAL = ("at", "id", "workspace", "meta")


def looks_like(source: reading.Source) -> bool:
    return reading.mostly(source.head(5), lambda r: set(REQUIRED) <= set(r))


def load(sources: list[reading.Source], batch: Batch, origin: str) -> None:
    for source in sources:
        for n, row in reading.lines(source, batch.errors):
            where = f"{source.name}:{n}"
            problem = _problem(row)
            if problem:
                batch.errors.append(f"{where}: {problem}")
                continue
            session, at = row["session_id"], reading.when(row.get("at"))
            key = source_key("turn", session, row["id"]) if row.get("id") else key_of(
                "generic", session, at and at.isoformat(), row["user"], row["assistant"])
            batch.add(turn(key, row["user"], row["assistant"], at=at, session_id=session[:200], origin=origin,
                           provenance={"source": "generic", **({"meta": row["meta"]} if row.get("meta") else {})}),
                      where=where, workspace=str(row.get("workspace") or ""))


def _problem(row: dict) -> str:
    unknown = sorted(set(row) - set(REQUIRED) - set(OPTIONAL))
    if unknown:
        return (f"unknown field {', '.join(repr(k) for k in unknown)} (a turn has {', '.join(REQUIRED)}, and maybe "
                f"{', '.join(OPTIONAL)})")
    for name in REQUIRED:
        if not isinstance(row.get(name), str) or not row[name].strip():
            return f"{name} must be non-empty text"
    if row.get("at") not in (None, "") and reading.when(row["at"]) is None:
        return f"at {str(row['at'])[:40]!r} is not an ISO 8601 time or epoch seconds"
    if row.get("id") is not None and not isinstance(row["id"], (str, int)):
        return "id must be text or a number"
    if row.get("workspace") not in (None, "") and not (isinstance(row["workspace"], str)
                                                       and row["workspace"].startswith("/")):
        return "workspace must be an absolute directory path"
    if row.get("meta") is not None and not isinstance(row["meta"], dict):
        return "meta must be an object"
    return ""
