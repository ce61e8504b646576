"""The shape every importer produces (a Batch of gateway Drafts), and the run that writes it through the gateway.

A Batch also says what its reader left out and why (`skipped`), which records it could not read (`errors`, each
named by its file and line or its place in a document), where each draft came from (`where`, so a failed write is
named too) and, for agents' transcripts, the project directory each session ran in (`workspaces`).
"""

from __future__ import annotations

import hashlib
import os
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from django.db import transaction
from django.utils.translation import gettext_noop

from memoryhub.memories.facts import slots as facts
from memoryhub.memories.maintenance.importers import hub_export
from memoryhub.memories.models import CATEGORIES, EdgeType, Entry, Kind, Method, Source
from memoryhub.memories.text.categories import classify
from memoryhub.memories.write import gateway, marks
from memoryhub.spaces.models import MemorySpace, Workspace, workspace_slug_for_path
from memoryhub.spaces.workspaces import resolve_workspace, workspace_space

Progress = Callable[..., None]  # (percent, untranslated message, **its args)
MAX_BODY = 8000
MAX_TAGS = 20
MAX_KEY = 200  # Entry.idempotency_key
WRITE_BATCH = 100  # drafts per transaction
SHOWN_ERRORS = 20


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
    skipped: Counter = field(default_factory=Counter)  # why records were left out (msgids) -> how many
    where: dict[str, str] = field(default_factory=dict)  # idempotency key -> the record's file:line
    workspaces: dict[str, str] = field(default_factory=dict)  # idempotency key -> the project directory (cwd)
    archived: set[str] = field(default_factory=set)  # keys of memories their source had archived
    restore: Any = None  # an open export (open_export.Export) to restore as it was, instead of drafts

    def add(self, draft: gateway.Draft, where: str = "", workspace: str = "") -> None:
        self.items.append(draft)
        if where:
            self.where[draft.idempotency_key] = where
        if workspace.startswith("/"):  # a POSIX project directory (another machine's C:\\ path names none here)
            self.workspaces[draft.idempotency_key] = workspace

    def skip(self, reason: str, n: int = 1) -> None:
        """Leave records out for a reason the dry run names (an untranslated msgid: mark it with gettext_noop)."""
        if n:
            self.skipped[reason] += n

    def extend(self, other: Batch) -> None:
        self.items += other.items
        self.facts += other.facts
        self.links += other.links
        self.errors += other.errors
        self.skipped.update(other.skipped)
        self.where.update(other.where)
        self.workspaces.update(other.workspaces)
        self.archived |= other.archived
        self.restore = self.restore or other.restore


def key_of(*parts: object) -> str:
    """An idempotency key from content or source ids: the same record always maps to the same key."""
    return "import:" + hashlib.sha256("\x1f".join(str(p) for p in parts).encode()).hexdigest()[:40]


def source_key(system: str, *ids: object) -> str:
    """A readable key from a source system's own ids (`claude-code:<session>:<message uuid>`, as the agent hooks
    send them, so a turn archived live and imported later is written once); a digest when too long."""
    key = ":".join([system, *(str(i) for i in ids)])
    return key if len(key) <= MAX_KEY else key_of(system, *ids)


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


def existing_keys(space: MemorySpace | None, keys: list[str]) -> set[str]:
    found: set[str] = set()
    if space is None:
        return found
    for i in range(0, len(keys), 500):
        found |= set(Entry.objects.filter(space=space, idempotency_key__in=keys[i:i + 500])
                     .values_list("idempotency_key", flat=True))
    return found


@dataclass
class Target:
    """Where a group of drafts goes: the chosen space, or (by workspace) the space of the project they ran in."""

    space: MemorySpace | None  # None in a dry run for a workspace the hub does not have yet
    path: str = ""
    drafts: list[gateway.Draft] = field(default_factory=list)

    def summary(self, fresh: list[gateway.Draft]) -> dict:
        turns = [d for d in fresh if d.kind == Kind.TURN]
        return {"space": self.space.slug if self.space else "", "name": self.space.name if self.space else "",
                "path": self.path, "made": self.space is None, "new": len(fresh), "turns": len(turns),
                "sessions": len({d.session_id for d in turns})}


def _targets(space: MemorySpace, batch: Batch, by_workspace: bool, *, create: bool, actor: str) -> list[Target]:
    """The drafts by where they go: all into `space`, or, by workspace, each session's into its project's space
    (made as an agent's first call would make it; a dry run makes nothing)."""
    unique = list(dict((d.idempotency_key, d) for d in batch.items).values())
    if not by_workspace:
        return [Target(space, drafts=unique)]
    groups: dict[str, Target] = {}
    for draft in unique:
        path = batch.workspaces.get(draft.idempotency_key, "")
        if path not in groups:
            groups[path] = Target(space if not path else _workspace_space(path, create=create, actor=actor), path)
        groups[path].drafts.append(draft)
    return list(groups.values())


def _workspace_space(path: str, *, create: bool, actor: str) -> MemorySpace | None:
    if create:
        return workspace_space(resolve_workspace(path, actor=actor))
    workspace = Workspace.objects.filter(slug=workspace_slug_for_path(os.path.normpath(path))).first()
    return workspace and MemorySpace.objects.filter(workspace=workspace, is_default=True).first()


def run(space: MemorySpace, batch: Batch, *, dry_run: bool = False, actor: str = "import",
        progress: Progress | None = None, by_workspace: bool = False) -> dict:
    """Write (or, dry, only count) a batch: new items, facts still true, links between imported items.

    A draft the gateway refuses is reported by its source line and the rest is written; importing the same
    input again adds nothing (every draft's key comes from its source)."""
    report = progress or (lambda pct, msg, **args: None)
    if batch.restore is not None:
        result = hub_export.restore(space, batch.restore, dry_run=dry_run, actor=actor, progress=report)
        errors = batch.errors + result.pop("errors", [])
        return {**result, "errors": errors[:SHOWN_ERRORS], "error_count": len(errors), "dry_run": dry_run}
    targets = _targets(space, batch, by_workspace, create=not dry_run, actor=actor)
    fresh_by_target = []
    for target in targets:
        known = existing_keys(target.space, [d.idempotency_key for d in target.drafts])
        fresh_by_target.append((target, [d for d in target.drafts if d.idempotency_key not in known]))
    fresh = [d for _, ds in fresh_by_target for d in ds]
    turns = [d for d in batch.items if d.kind == Kind.TURN]
    result = {"items": len(batch.items), "sessions": len({d.session_id for d in turns}), "turns": len(turns),
              "notes": len(batch.items) - len(turns), "new": len(fresh), "existing": len(batch.items) - len(fresh),
              "facts": len(final_facts(batch.facts)), "links": len(batch.links), "skipped": dict(batch.skipped),
              "dry_run": dry_run, "preview": [_preview(i) for i in fresh[:20]],
              "targets": [t.summary(ds) for t, ds in fresh_by_target]}
    if dry_run:
        return {**result, "errors": batch.errors[:SHOWN_ERRORS], "error_count": len(batch.errors)}
    errors = list(batch.errors)
    added = unchanged = done = 0
    for target, drafts in fresh_by_target:
        for start in range(0, len(drafts), WRITE_BATCH):  # one transaction per batch, as agents' batches are
            chunk = drafts[start:start + WRITE_BATCH]
            for draft, written in zip(chunk, gateway.write_many([(target.space, _clipped(d)) for d in chunk],
                                                                actor=actor)):
                if isinstance(written, Exception):
                    where = batch.where.get(draft.idempotency_key) or draft.idempotency_key
                    errors.append(f"{where}: not written ({_reason(written)})")
                elif written.created:
                    added += 1
                else:
                    unchanged += 1
            done += len(chunk)
            report(5 + 85 * done // max(1, len(fresh)), gettext_noop("%(done)d of %(total)d written"), done=done,
                   total=len(fresh))
        _archive(target.space, [d.idempotency_key for d in drafts if d.idempotency_key in batch.archived], actor)
    report(92, gettext_noop("facts and links"))
    linked = _facts_and_links(space, batch, {d.idempotency_key for d in fresh}, actor)
    result.update(added=added, unchanged=unchanged, linked=linked, errors=errors[:SHOWN_ERRORS],
                  error_count=len(errors), failed=len(errors) - len(batch.errors),
                  targets=[{**t.summary(ds), "space": t.space.slug, "name": t.space.name} for t, ds in fresh_by_target])
    return result


def _reason(exc: Exception) -> str:
    return str(getattr(exc, "message", "") or exc)[:300] or type(exc).__name__


def _archive(space: MemorySpace, keys: list[str], actor: str) -> None:
    """What the source had archived stays archived here (out of automatic recall, still found by search)."""
    if keys:
        ids = list(Entry.objects.filter(space=space, idempotency_key__in=keys).values_list("pk", flat=True))
        marks.archive(space, ids, actor=actor)


def _facts_and_links(space: MemorySpace, batch: Batch, new_keys: set[str], actor: str) -> int:
    linked = 0
    with transaction.atomic():
        for op in final_facts(batch.facts):
            facts.assert_fact(space, op.subject, op.predicate, op.value, negative=op.negative, origin=op.origin,
                              method=Method.MANUAL)
        keys = {k for link in batch.links for k in (link.source_key, link.target_key)}
        by_key = dict(Entry.objects.filter(idempotency_key__in=keys, space__in=_spaces_of(space, batch))
                      .values_list("idempotency_key", "pk"))
        for link in batch.links:
            if link.source_key not in new_keys and link.target_key not in new_keys:
                continue
            source, target = by_key.get(link.source_key), by_key.get(link.target_key)
            if source and target and source != target:
                a, b = Entry.objects.get(pk=source), Entry.objects.get(pk=target)
                if a.space_id == b.space_id:
                    gateway.link(a, b, link.edge_type, max(0.0, min(1.0, link.weight)), actor=actor,
                                 reason=link.reason)
                    linked += 1
    return linked


def _spaces_of(space: MemorySpace, batch: Batch) -> list[MemorySpace]:
    paths = set(batch.workspaces.values())
    slugs = [workspace_slug_for_path(os.path.normpath(p)) for p in paths]
    return [space, *MemorySpace.objects.filter(workspace__slug__in=slugs, is_default=True)]


def _preview(item: gateway.Draft) -> dict:
    text = item.user if item.kind == Kind.TURN else (item.title or item.body)
    return {"kind": item.kind, "at": item.at.isoformat() if item.at else "", "text": " ".join(text.split())[:120],
            "session": item.session_id}


def _clipped(item: gateway.Draft) -> gateway.Draft:
    """Within what one write takes: bodies to MAX_BODY, at most MAX_TAGS tags, importance 1 to 5."""
    return replace(item, user=item.user[:MAX_BODY], assistant=item.assistant[:MAX_BODY], body=item.body[:MAX_BODY],
                   tags=[t[:100] for t in item.tags[:MAX_TAGS]], importance=max(1, min(5, item.importance)))
