"""The shape every importer produces (a Batch of gateway Drafts), and the run that writes it through the gateway."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime

from django.db import transaction
from django.utils.dateparse import parse_datetime
from django.utils.translation import gettext_noop

from memoryhub.memories.facts import slots as facts
from memoryhub.memories.models import CATEGORIES, EdgeType, Entry, Kind, Method, Source
from memoryhub.memories.text.categories import classify
from memoryhub.memories.write import gateway
from memoryhub.spaces.models import MemorySpace

Progress = Callable[..., None]  # (percent, untranslated message, **its args)
MAX_BODY = 8000
MAX_TAGS = 20
WRITE_BATCH = 100  # drafts per transaction


def turn(key: str, user: str, assistant: str, **fields) -> gateway.Draft:
    """An imported conversation turn (the gateway makes its body, title and summary)."""
    return gateway.Draft(kind=Kind.TURN, idempotency_key=key, user=user, assistant=assistant, source=Source.IMPORT,
                         **fields)


def note(key: str, body: str, *, category: str = "", **fields) -> gateway.Draft:
    """An imported note; without a known category its text decides."""
    return gateway.Draft(kind=Kind.NOTE, idempotency_key=key, body=body, category=category or classify(body),
                         source=Source.IMPORT, **fields)


@dataclass
class FactOp:
    op: str  # assert | invalidate | refresh
    subject: str
    predicate: str
    value: str
    negative: bool = False
    origin: str = "local"


@dataclass
class Link:
    source_key: str
    target_key: str
    edge_type: str = EdgeType.SEMANTIC
    weight: float = 0.5
    reason: str = ""


@dataclass
class Batch:
    items: list[gateway.Draft] = field(default_factory=list)
    facts: list[FactOp] = field(default_factory=list)
    links: list[Link] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


def key_of(*parts: object) -> str:
    """An idempotency key from content or source ids: the same record always maps to the same key."""
    return "import:" + hashlib.sha256("\x1f".join(str(p) for p in parts).encode()).hexdigest()[:40]


def when(value: object) -> datetime | None:
    """ISO 8601 text or epoch seconds/milliseconds; naive times are UTC."""
    if value in (None, ""):
        return None
    if isinstance(value, (int, float)):
        seconds = value / 1000 if value > 1e11 else value
        return datetime.fromtimestamp(seconds, UTC)
    try:
        parsed = parse_datetime(str(value).strip().replace("Z", "+00:00"))
    except ValueError:
        return None
    if parsed and parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=UTC)
    return parsed


def category_of(value: object, text: str) -> str:
    return value if isinstance(value, str) and value in CATEGORIES else classify(text)


def final_facts(ops: list[FactOp]) -> list[FactOp]:
    """Replay an assert/invalidate/refresh stream in memory; only what is still true at the end is imported."""
    alive: dict[tuple, FactOp] = {}
    for op in ops:
        slot = (op.origin, op.subject, op.predicate, " ".join(op.value.split()).casefold())
        if op.op == "invalidate":
            if op.value:
                alive.pop(slot, None)
            else:
                for k in [k for k in alive if k[:3] == slot[:3]]:
                    alive.pop(k)
        elif op.op in ("assert", "refresh"):
            alive[slot] = op
    return list(alive.values())


def existing_keys(space: MemorySpace, keys: list[str]) -> set[str]:
    found: set[str] = set()
    for i in range(0, len(keys), 500):
        found |= set(Entry.objects.filter(space=space, idempotency_key__in=keys[i:i + 500])
                     .values_list("idempotency_key", flat=True))
    return found


def run(space: MemorySpace, batch: Batch, *, dry_run: bool = False, actor: str = "import",
        progress: Progress | None = None) -> dict:
    """Write (or, dry, only count) a batch: new items, facts still true, links between imported items."""
    report = progress or (lambda pct, msg, **args: None)
    keys = [i.idempotency_key for i in batch.items]
    known = existing_keys(space, keys)
    fresh = [i for i in dict((i.idempotency_key, i) for i in batch.items).values() if i.idempotency_key not in known]
    result = {"items": len(batch.items), "new": len(fresh), "existing": len(set(keys) & known),
              "facts": len(final_facts(batch.facts)), "links": len(batch.links), "errors": batch.errors[:20],
              "error_count": len(batch.errors), "dry_run": dry_run,
              "preview": [_preview(i) for i in fresh[:20]]}
    if dry_run:
        return result
    added = 0
    for start in range(0, len(fresh), WRITE_BATCH):  # one transaction per batch, as agents' batches are written
        for written in gateway.write_many([(space, _clipped(i)) for i in fresh[start:start + WRITE_BATCH]],
                                          actor=actor):
            if isinstance(written, Exception):
                raise written
            added += written.created
        done = min(start + WRITE_BATCH, len(fresh))
        report(5 + 85 * done // max(1, len(fresh)), gettext_noop("%(done)d of %(total)d written"), done=done,
               total=len(fresh))
    report(92, gettext_noop("facts and links"))
    with transaction.atomic():
        for op in final_facts(batch.facts):
            facts.assert_fact(space, op.subject, op.predicate, op.value, negative=op.negative, origin=op.origin,
                              method=Method.MANUAL)
        by_key = dict(Entry.objects.filter(space=space, idempotency_key__in={k for link in batch.links
                                                                            for k in (link.source_key, link.target_key)})
                      .values_list("idempotency_key", "pk"))
        linked = 0
        new_keys = {i.idempotency_key for i in fresh}
        for link in batch.links:
            if link.source_key not in new_keys and link.target_key not in new_keys:
                continue
            source, target = by_key.get(link.source_key), by_key.get(link.target_key)
            if source and target and source != target:
                gateway.link(Entry.objects.get(pk=source), Entry.objects.get(pk=target), link.edge_type,
                             max(0.0, min(1.0, link.weight)), actor=actor, reason=link.reason)
                linked += 1
    result.update(added=added, linked=linked)
    return result


def _preview(item: gateway.Draft) -> dict:
    text = item.user if item.kind == Kind.TURN else (item.title or item.body)
    return {"kind": item.kind, "at": item.at.isoformat() if item.at else "", "text": " ".join(text.split())[:120],
            "session": item.session_id}


def _clipped(item: gateway.Draft) -> gateway.Draft:
    """Within what one write takes: bodies to MAX_BODY, at most MAX_TAGS tags, importance 1 to 5."""
    return replace(item, user=item.user[:MAX_BODY], assistant=item.assistant[:MAX_BODY], body=item.body[:MAX_BODY],
                   tags=item.tags[:MAX_TAGS], importance=max(1, min(5, item.importance)))
