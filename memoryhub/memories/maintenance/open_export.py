"""The open export: a space (or every native space) as JSON lines anyone can read, or as readable Markdown.

JSON lines (docs/memory.md, "Open export" says every field): the first line names the format and its version,
`{"format": "memoryhub.export", "version": 1, ...}`; then for each space a `space` record, its `topic`s, `entry`s,
`fact`s and `link`s, each one object on its own line, pointing at each other by the ids of this hub. Importing the
file (importers/hub_export.py) restores exactly what was exported, so it round-trips without loss.

What never goes in: provider configuration and secrets (they are not the space's memory), tokens, forgotten entries
(a person removed them). Text was redacted when it was written; it is redacted again on the way out, so even a hub
older than a redaction rule exports no secret it recognises today. A vault space goes in only when the caller says a
person confirmed it (`include_vault`): the file sits outside the hub, where the vault's "agents never read" cannot
follow it.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from datetime import datetime

from django.utils import timezone

from memoryhub.core.redaction import redact, redact_value
from memoryhub.memories.models import Edge, Entry, Fact, Kind, Topic
from memoryhub.spaces.models import MemorySpace

FORMAT = "memoryhub.export"
VERSION = 1
READABLE_VERSIONS = (1,)
MARKDOWN_HEAD = f"<!-- {FORMAT} markdown v{VERSION}"
SETTINGS_KEPT = ("autoConsolidate", "consolidateMinAgeDays", "consolidateDigestAgeDays", "mergeSimilarity",
                 "maxInjectChars", "maxRecall", "inject")
ENTRY_FIELDS = ("id", "kind", "at", "category", "title", "body", "summary", "tags", "entities", "related",
                "session_id", "source", "origin", "channel", "chat", "importance", "hits", "last_accessed_at",
                "archived", "is_test", "digest_id", "merged_into_id", "topic_id", "idempotency_key", "provenance",
                "created_at")
TOPIC_FIELDS = ("id", "origin", "session_id", "title", "kind", "started_at", "ended_at", "turn_count", "entities",
                "keywords")
FACT_FIELDS = ("id", "subject", "predicate", "value", "negative", "status", "origin", "source_entry_id", "method",
               "confidence", "created_at", "refreshed_at", "invalidated_at", "invalidated_by_id")
LINK_FIELDS = ("source_id", "target_id", "edge_type", "weight", "metadata", "created_at")
TEXT_FIELDS = {"entry": ("title", "body", "summary", "channel"), "topic": ("title",), "fact": ("subject", "value")}
RENAMED = {"digest_id": "digest", "merged_into_id": "merged_into", "topic_id": "topic",
           "source_entry_id": "source_entry", "invalidated_by_id": "invalidated_by",
           "source_id": "source", "target_id": "target"}


class VaultNotConfirmed(Exception):
    """A vault space was asked for without a person's confirmation."""


def exportable(spaces: Iterable[MemorySpace], *, include_vault: bool) -> list[MemorySpace]:
    """The native spaces to write; a vault space without `include_vault` is refused, not silently left out, when it
    was asked for by name (a list of one), and left out of "all"."""
    spaces = [s for s in spaces if s.is_native]
    vaults = [s.slug for s in spaces if s.is_vault]
    if vaults and not include_vault and len(spaces) == 1:
        raise VaultNotConfirmed(f"{vaults[0]} is a vault space: its memories leave the hub only after a person "
                                "confirms it")
    return [s for s in spaces if include_vault or not s.is_vault]


def all_spaces() -> list[MemorySpace]:
    return list(MemorySpace.objects.filter(provider=MemorySpace.NATIVE).select_related("workspace").order_by("slug"))


def jsonl(spaces: list[MemorySpace]) -> Iterator[str]:
    """The export as lines (each ends with a newline), streamed space by space."""
    yield _line({"format": FORMAT, "version": VERSION, "exported_at": timezone.now().isoformat(),
                 "spaces": [s.slug for s in spaces],
                 "counts": {s.slug: Entry.objects.live().filter(space=s).count() for s in spaces}})
    for space in spaces:
        yield _line(space_record(space))
        for record in records(space):
            yield _line(record)


def space_record(space: MemorySpace) -> dict:
    workspace = space.workspace
    return {"type": "space", "slug": space.slug, "name": redact(space.name).text,
            "description": redact(space.description).text, "access": space.access,
            "settings": {k: v for k, v in (space.settings or {}).items() if k in SETTINGS_KEPT},
            "workspace": {"slug": workspace.slug, "name": redact(workspace.name).text,
                          "path": redact(workspace.path).text} if workspace else None}


def records(space: MemorySpace) -> Iterator[dict]:
    """Topics, live entries, facts and links of one space, as export records."""
    live = Entry.objects.live().filter(space=space)
    for row in Topic.objects.filter(space=space).order_by("id").values(*TOPIC_FIELDS).iterator(chunk_size=2000):
        yield _record("topic", space, row)
    for row in live.order_by("id").values(*ENTRY_FIELDS).iterator(chunk_size=2000):
        yield _record("entry", space, row)
    for row in Fact.objects.filter(space=space).order_by("id").values(*FACT_FIELDS).iterator(chunk_size=2000):
        yield _record("fact", space, row)
    edges = Edge.objects.filter(source__space=space, source__deleted_at__isnull=True,
                                target__deleted_at__isnull=True).order_by("id")
    for row in edges.values(*LINK_FIELDS).iterator(chunk_size=2000):
        yield _record("link", space, row)


def _record(kind: str, space: MemorySpace, row: dict) -> dict:
    out = {"type": kind, "space": space.slug}
    for key, value in row.items():
        if isinstance(value, datetime):
            value = value.isoformat()
        elif key in TEXT_FIELDS.get(kind, ()) and isinstance(value, str):
            value = redact(value).text
        elif key in ("tags", "chat", "provenance", "metadata", "related"):
            value = redact_value(value)
        out[RENAMED.get(key, key)] = value
    return out


def _line(record: dict) -> str:
    return json.dumps(record, ensure_ascii=False, sort_keys=True) + "\n"


# --- Markdown --------------------------------------------------------------------------------------------------

def markdown(spaces: list[MemorySpace]) -> Iterator[str]:
    """The same memories to read: each space's current facts, then its memories oldest first, a conversation's
    turns under their topic."""
    yield f"{MARKDOWN_HEAD} · exported {timezone.now().isoformat()} -->\n"
    for space in spaces:
        yield from _space_markdown(space)


def _space_markdown(space: MemorySpace) -> Iterator[str]:
    yield f"\n# {_one_line(redact(space.name).text)} (`{space.slug}`)\n"
    if space.description:
        yield f"\n{redact(space.description).text}\n"
    facts = Fact.objects.filter(space=space, status=Fact.Status.ACTIVE, negative=False).order_by("subject",
                                                                                                  "predicate", "id")
    if facts.exists():
        yield "\n## Facts\n\n"
        for fact in facts.iterator():
            yield f"- {fact.subject} · {fact.predicate}: {_one_line(redact(fact.value).text)}\n"
    yield "\n## Memories\n"
    topics = dict(Topic.objects.filter(space=space).values_list("id", "title"))
    current = None
    for entry in Entry.objects.live().filter(space=space).order_by("at", "id").iterator(chunk_size=2000):
        if entry.kind == Kind.TURN and entry.topic_id and entry.topic_id != current:
            current = entry.topic_id
            yield f"\n### {_one_line(redact(topics.get(current) or '').text) or 'Conversation'}\n"
        elif entry.kind != Kind.TURN:
            current = None
        yield _entry_markdown(entry)


def _entry_markdown(entry: Entry) -> str:
    at = timezone.localtime(entry.at).strftime("%Y-%m-%d %H:%M")
    marks = [m for m, on in (("archived", entry.archived), ("test", entry.is_test)) if on]
    if entry.kind == Kind.TURN:
        head = f"\n#### {at}" + (f" · {', '.join(marks)}" if marks else "") + "\n\n"
        return head + _quote_turn(redact(entry.body).text) + "\n"
    title = _one_line(redact(entry.title or entry.summary).text) or "(untitled)"
    lines = [f"\n#### {at} · [{entry.category}] {title}", ""]
    if entry.tags:
        lines.append("Tags: " + " ".join(f"#{redact(t).text.replace(' ', '-')}" for t in entry.tags))
    if marks:
        lines.append("Marked: " + ", ".join(marks))
    if entry.provenance.get("source"):
        lines.append(f"From: {entry.provenance['source']}")
    if len(lines) > 2:
        lines.append("")
    return "\n".join([*lines, redact(entry.body).text.strip(), ""])


def _quote_turn(body: str) -> str:
    """A turn's "User: … / Assistant: …" as two labelled paragraphs."""
    user, _, assistant = body.removeprefix("User: ").partition("\n\nAssistant: ")
    return f"**User:** {user.strip()}\n\n**Assistant:** {assistant.strip()}\n"


def _one_line(text: str) -> str:
    return " ".join(text.split())
