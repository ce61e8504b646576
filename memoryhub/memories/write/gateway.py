"""The one door for every change to native entries.

Writes (agent turns and saves, a person's notes, imports, digests), edits, forgets, links,
archive and merge marks, re-tags, access counts, topic placement and restored packs each go
through a function here, which redacts what it stores (memoryhub.core.redaction), changes the
rows (the entry, its full-text index and entity refs) in one transaction, appends to the
space's op log and sends an event (events.py). What a write sets in motion subscribes to those
events (memories/apps.py lists them): the worker's edges and topics, the space's maxEntries cap,
summaries and persona rebuilds as its settings ask, MEMORY.md. Nothing else writes Entry rows,
so the index, the graph and the op log never drift from the entries themselves.

A turn is the hot path: the pure work (redaction, entities, index tokens, fact claims) comes
first, then a few plain SQL statements under sql.one_writer() (sql.py says why).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from contextlib import nullcontext
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import F
from django.utils import timezone

from memoryhub.core import background, sql
from memoryhub.core.redaction import opaque_id, redact
from memoryhub.jobs import runner
from memoryhub.memories import remote
from memoryhub.memories.facts import slots as facts
from memoryhub.memories.models import Category, Edge, EntityRef, Entry, Kind, RemoteWrite, Source, is_test_tagged
from memoryhub.memories.search import fulltext as search, vectors
from memoryhub.memories.text import capitalised_words, classify, clip, extract_entities, rule_summary
from memoryhub.memories.write import events
from memoryhub.spaces.models import MemorySpace
from memoryhub.spaces.services import provider_for, record_space_error
from providers.base import ProviderError, Receipt

LAST_WRITE_PRECISION = 5  # seconds


@dataclass
class Draft:
    """One entry to write, as its caller has it; `write` redacts it and works out the rest.

    A turn gives `user` and `assistant` (its body, title, summary and category follow from them)
    or, as one line of a transcript, its `body`; every other kind gives `title` and `body`. A
    repeated `idempotency_key` returns the entry it first made (importers derive theirs from the
    source record, so a re-import adds nothing).
    """

    kind: str = Kind.NOTE
    user: str = ""
    assistant: str = ""
    title: str = ""
    body: str = ""
    summary: str = ""
    category: str = Category.GENERAL
    tags: list[str] = field(default_factory=list)
    related: list[str] = field(default_factory=list)
    entities: list[str] = field(default_factory=list)
    at: datetime | None = None
    session_id: str = ""
    source: str = Source.AGENT
    origin: str = "local"
    channel: str = ""
    chat: dict = field(default_factory=dict)
    importance: int = 3
    idempotency_key: str = ""


@dataclass
class Written:
    """What one write produced, in the shape the API answers with."""

    space: MemorySpace
    entry: Entry | None = None
    receipt: Receipt | None = None
    created: bool = True
    redactions: int = 0
    facts: dict[str, list] = field(default_factory=lambda: {"asserted": [], "invalidated": []})

    @property
    def id(self) -> str:
        if self.entry is not None:
            return str(self.entry.pk)
        return f"{self.space.slug}:{self.receipt.provider_id or self.receipt.uri}" if self.receipt else ""


def content_hash(title: str, body: str) -> str:
    """What makes two entries "the same text": a byte-identical live entry is not written twice."""
    return hashlib.sha256(f"{title}\x00{body}".encode()).hexdigest()


# --- new entries ------------------------------------------------------------------------------

def write(space: MemorySpace, draft: Draft, *, actor: str = "") -> Written:
    """Store a draft in its space: natively in one transaction, or through the space's provider.

    Facts come from what the user said in a turn (a transcript line: its body) or from a note's
    body. Imported history (source "import") is a backfill: its subscribers call no model.
    """
    result = write_many([(space, draft)], actor=actor)[0]
    if isinstance(result, Exception):
        raise result
    return result


def write_many(drafts: list[tuple[MemorySpace, Draft]], *, actor: str = "") -> list[Written | Exception]:
    """Store drafts in order, the native ones in one transaction and one turn at the write lock (a batch of
    turns, an import); one result per draft, in its place the exception of a draft that failed, whose own
    rows are undone while the others are written.

    The pure work (redaction, entities, index tokens, fact claims) runs before the lock; a space's
    subscribers hear one `entries_changed` for all its new entries, so the worker enriches them in one pass.
    """
    results: list[Written | Exception | None] = [None] * len(drafts)
    ready = []
    for n, (space, draft) in enumerate(drafts):
        try:
            draft, redactions = _redacted(draft)
            if not space.is_native:
                results[n] = _write_remote(space, draft, redactions)
                continue
            said = draft.user or draft.body
            claims = facts.extract(said) if draft.kind in (Kind.TURN, Kind.NOTE) else []
            entry = _new_entry(space, draft, redactions)
            ready.append((n, entry, search.document_tokens(entry), claims))
        except Exception as exc:  # noqa: BLE001 — the draft's own failure, answered in its place
            results[n] = exc
    if ready:
        new: dict[int, tuple[MemorySpace, list[int]]] = {}  # space id -> (space, ids of its new entries)
        with sql.one_writer(), transaction.atomic():
            for n, entry, tokens, claims in ready:
                try:
                    # A savepoint per draft only in a batch: one draft's failure undoes its own rows alone.
                    with transaction.atomic() if len(ready) > 1 else nullcontext():
                        results[n] = _store(entry, tokens, claims, actor)
                except Exception as exc:  # noqa: BLE001
                    if len(ready) == 1:
                        raise
                    results[n] = exc
                    continue
                if results[n].created:
                    new.setdefault(entry.space_id, (entry.space, []))[1].append(results[n].entry.pk)
            for space, ids in new.values():
                events.entries_changed.send(Entry, space=space, operation="remember", entry_ids=ids, actor=actor)
    return results


def _store(entry: Entry, tokens: list[str], claims: list, actor: str) -> Written:
    """Inside the write transaction: the entry (or the one it repeats), its facts, and `entry_written`."""
    space, redactions = entry.space, entry.redactions
    entry, created = _insert(entry, tokens, actor)
    result = Written(space, entry=entry, created=created, redactions=redactions)
    if created:
        changes = facts.apply_claims(space, claims, source_entry=entry, origin=entry.origin)
        result.facts = {"asserted": [facts.fact_to_dict(f) for f in changes.asserted],
                        "invalidated": [facts.fact_to_dict(f) for f in changes.invalidated]}
        events.entry_written.send(Entry, entry=entry, actor=actor, backfill=entry.source == Source.IMPORT)
    return result


def _redacted(draft: Draft) -> tuple[Draft, int]:
    """The draft with every secret replaced, and how many there were; a turn's own fields follow from it.

    Ids that group entries (session, idempotency key) keep their identity: a secret in one becomes a digest."""
    count = 0

    def clean(text: str) -> str:
        nonlocal count
        if not text:
            return text
        found = redact(text)
        count += found.count
        return found.text

    user, assistant = clean(draft.user), clean(draft.assistant)
    draft = replace(draft, user=user, assistant=assistant, title=clean(draft.title), body=clean(draft.body),
                    summary=clean(draft.summary), tags=[clean(t) for t in draft.tags],
                    related=[clean(r) for r in draft.related], channel=clean(draft.channel),
                    chat={k: clean(v) for k, v in draft.chat.items()},
                    session_id=opaque_id(draft.session_id), idempotency_key=opaque_id(draft.idempotency_key))
    if draft.kind == Kind.TURN and (user or assistant):
        question, answer = rule_summary(user, 120), rule_summary(assistant, 120)
        draft.body = f"User: {user}\n\nAssistant: {assistant}".strip()
        draft.title = clip(question, 200)
        draft.summary = clip(f"{question} → {answer}" if question and answer else question or answer, 240)
        draft.category = classify(f"{user}\n{assistant}")
    return draft, count


def _new_entry(space: MemorySpace, draft: Draft, redactions: int) -> Entry:
    """The unsaved entry: everything that takes no lock (hash, entities, summary)."""
    text = f"{draft.title}\n{draft.body}"
    entities = list(dict.fromkeys(draft.entities + extract_entities(text, _known_entities(space, text))))[:50]
    return Entry(
        space=space, kind=draft.kind, at=draft.at or timezone.now(), category=draft.category,
        title=clip(draft.title, 300), body=draft.body,
        summary=clip(draft.summary or draft.title or rule_summary(draft.body), 500),
        tags=draft.tags, is_test=is_test_tagged(draft.tags), related=draft.related, entities=entities,
        session_id=draft.session_id,
        source=draft.source, origin=draft.origin or "local", channel=draft.channel, chat=draft.chat,
        importance=draft.importance,
        content_hash=content_hash(draft.title, draft.body), idempotency_key=draft.idempotency_key,
        redactions=redactions, enrich_pending=True,
    )


def _known_entities(space: MemorySpace, text: str) -> set[str]:
    """Capitalised words of the text that are already entities in the space (so they count even mid-sentence)."""
    candidates = list(capitalised_words(text))[:200]
    if not candidates:
        return set()
    found = sql.rows(f"SELECT DISTINCT name FROM memories_entityref WHERE space_id = %s "
                     f"AND name IN ({sql.placeholders(candidates)})", [space.pk, *candidates])
    return {name for (name,) in found}


def _insert(entry: Entry, tokens: list[str], actor: str) -> tuple[Entry, bool]:
    """Insert exactly once; returns (entry, created). A repeated key returns the entry it made first, and a
    byte-identical live entry is not written twice (a visible no-op in the op log). Both look only at the
    writer's own origin: another origin's key or text never answers with its entry."""
    space, key = entry.space, entry.idempotency_key
    earlier = _earlier(space, entry.origin, entry.content_hash, key)
    if earlier is not None:
        found = Entry.objects.select_related("space").get(pk=earlier[0])
        if not earlier[1]:
            log_op(space, "diff-skip", str(found.pk), clip(entry.body, 200), actor)
        return found, False
    if key:
        try:
            with transaction.atomic():
                sql.insert(entry)
        except IntegrityError:  # two writers raced on one idempotency key: the first one won
            return Entry.objects.get(space=space, origin=entry.origin, idempotency_key=key), False
    else:
        sql.insert(entry)
    sql.run_many("INSERT INTO memories_entityref (space_id, entry_id, name) VALUES (%s, %s, %s)",
                 [(space.pk, entry.pk, name) for name in entry.entities])
    search.index(entry, new=True, tokens=tokens)
    log_op(space, "remember", str(entry.pk), clip(entry.body, 500), actor)
    touch_space(space)
    return entry, True


def _earlier(space: MemorySpace, origin: str, digest: str, key: str) -> tuple[int, bool] | None:
    """(id, holds the key) of the entry a write repeats: the one holding its key, else a live byte-identical one."""
    same_text = ("SELECT id, 1 AS rank FROM memories_entry "
                 "WHERE space_id = %s AND content_hash = %s AND deleted_at IS NULL AND origin = %s")
    params: list = [space.pk, digest, origin]
    if key:
        same_text = (f"SELECT id, 0 AS rank FROM memories_entry WHERE space_id = %s AND origin = %s "
                     f"AND idempotency_key = %s UNION ALL {same_text}")
        params = [space.pk, origin, key, *params]
    row = sql.one(f"SELECT id, rank FROM ({same_text}) found ORDER BY rank, id LIMIT 1", params)
    return (row[0], row[1] == 0) if row else None


def _write_remote(space: MemorySpace, draft: Draft, redactions: int) -> Written:
    """Send a write to the space's provider and keep it locally with its receipt, whatever happens.

    A receipt waiting for verification (OpenViking) gets a verification job; an error is
    recorded as a failed or unknown write (a timeout never proves there was no write) and raised.
    """
    local = RemoteWrite(space=space, title=draft.title, body=draft.body, category=draft.category,
                        session_id=draft.session_id, origin=draft.origin)
    provider = None
    try:
        provider = provider_for(space)
        receipt = provider.remember(draft.body, title=draft.title, category=draft.category, tags=draft.tags,
                                    at=draft.at.isoformat() if draft.at else "")
    except ProviderError as exc:
        local.state = RemoteWrite.State.UNKNOWN if exc.timeout else RemoteWrite.State.FAILED
        local.error, local.uri = exc.message, exc.uri
        local.save()
        record_space_error(space, exc)
        raise
    finally:
        if provider is not None:
            provider.close()
    local.state, local.provider_id, local.uri = receipt.state, receipt.provider_id, receipt.uri
    local.detail, local.error = receipt.detail, receipt.error
    local.save()
    remote.remember_origin(local, [receipt.provider_id or receipt.uri, *(receipt.detail or {}).get("record_ids", [])])
    MemorySpace.objects.filter(pk=space.pk).update(last_write_at=timezone.now(), last_error=receipt.error[:2000])
    if receipt.state == RemoteWrite.State.PENDING_VERIFICATION and provider.verifies_writes:
        runner.enqueue("verify_write", space=space, params={"write": local.pk})
    if receipt.state in (RemoteWrite.State.FAILED, RemoteWrite.State.UNKNOWN):
        failed = receipt.state == RemoteWrite.State.FAILED
        outcome = "was refused" if failed else "has an unknown outcome (kept as pending check)"
        raise ProviderError(f"the write to {space.slug} {outcome}: {receipt.error or 'no detail'}",
                            timeout="timed out" in receipt.error, uri=receipt.uri)
    return Written(space, receipt=receipt, redactions=redactions)


def restore(space: MemorySpace, rows: list[dict]) -> dict[int, int]:
    """A pack's entries into a fresh space as they were (marks, counters, times), every id remapped and every
    text redacted like any write; returns {pack id: new id}.

    The pack brings its own op log, so a restore appends nothing to it; subscribers hear "restore".
    """
    ids: dict[int, int] = {}
    marks = []
    with transaction.atomic():
        for row in rows:
            row = dict(row)
            old = row.pop("id")
            marks.append((old, row.pop("digest_id", None), row.pop("merged_into_id", None)))
            entry = Entry(space=space, **row)
            texts = [redact(t) for t in (entry.title, entry.body, entry.summary, *entry.tags)]
            found = sum(t.count for t in texts)
            if found:
                entry.title, entry.body, entry.summary = (t.text for t in texts[:3])
                entry.tags = [t.text for t in texts[3:]]
                entry.content_hash, entry.redactions = content_hash(entry.title, entry.body), entry.redactions + found
            entry.is_test = is_test_tagged(entry.tags)
            entry.save()
            ids[old] = entry.pk
            EntityRef.objects.bulk_create([EntityRef(space=space, entry=entry, name=n) for n in entry.entities],
                                          ignore_conflicts=True)
            if entry.deleted_at is None:
                search.index(entry)
        for old, digest, merged in marks:
            if digest or merged:
                Entry.objects.filter(pk=ids[old]).update(digest_id=ids.get(digest), merged_into_id=ids.get(merged))
        events.entries_changed.send(Entry, space=space, operation="restore", entry_ids=list(ids.values()), actor="")
    return ids


# --- changes to entries ---------------------------------------------------------------------

def edit(entry: Entry, *, title: str | None = None, body: str | None = None, category: str | None = None,
         tags: list[str] | None = None, actor: str = "") -> Written:
    """Correct an entry in place (a person, in the dashboard): redacted like a write; index, hash and vector follow."""
    draft, redactions = _redacted(Draft(title=entry.title if title is None else title,
                                        body=entry.body if body is None else body,
                                        tags=entry.tags if tags is None else tags))
    entry.title, entry.body, entry.tags = clip(draft.title, 300), draft.body, draft.tags
    entry.is_test = is_test_tagged(entry.tags)
    if category is not None:
        entry.category = category
    entry.summary = clip(entry.title or rule_summary(entry.body), 500)
    entry.content_hash = content_hash(entry.title, entry.body)
    entry.redactions += redactions
    with transaction.atomic():
        entry.save()
        search.index(entry)
        vectors.drop([entry.pk])
        _changed(entry.space, "update", [entry.pk], actor, entry_id=str(entry.pk), detail=clip(entry.summary, 200))
    return Written(entry.space, entry=entry, created=False, redactions=redactions)


def forget(entry: Entry, *, actor: str = "") -> None:
    """Soft delete: the row stays for history, its edges and index rows go."""
    now = timezone.now()
    with transaction.atomic():
        Entry.objects.filter(pk=entry.pk).update(deleted_at=now)
        Edge.objects.filter(source=entry).delete()
        Edge.objects.filter(target=entry).delete()
        EntityRef.objects.filter(entry=entry).delete()
        search.unindex([entry.pk])
        _changed(entry.space, "forget", [entry.pk], actor, entry_id=str(entry.pk), detail=clip(entry.summary, 200))
    entry.deleted_at = now


def link(source: Entry, target: Entry, edge_type: str, weight: float, *, actor: str = "", reason: str = "") -> None:
    """A link someone asked for: both directions, re-linking overwrites weight and metadata."""
    meta = {"created_by": actor or "hub", **({"reason": reason} if reason else {})}
    with transaction.atomic():
        for a, b in ((source, target), (target, source)):
            Edge.objects.update_or_create(source=a, target=b, edge_type=edge_type,
                                          defaults={"weight": weight, "metadata": meta})
        _changed(source.space, "link", [source.pk, target.pk], actor, entry_id=str(source.pk),
                 detail=f"{source.pk}→{target.pk} type={edge_type} weight={weight}")


def archive(space: MemorySpace, ids: Iterable[int], *, archived: bool = True, actor: str = "",
            operation: str = "", detail: str = "") -> list[int]:
    """Archive (or unarchive) entries: they stay searchable by hand but leave automatic recall.

    Returns the ids whose mark changed; `operation` and `detail` name the reason in the op log
    (the cap logs "prune")."""
    with transaction.atomic():
        changed = _mark(space, ids, {"archived": not archived}, archived=archived)
        if changed and not archived:
            space.recount_cap()
        if changed:
            _changed(space, operation or ("archive" if archived else "unarchive"), changed, actor,
                     detail=detail or f"ids={','.join(map(str, changed))}"[:2000])
    return changed


def merge(space: MemorySpace, losers: Iterable[int], winner: int, *, actor: str = "") -> list[int]:
    """Mark near-duplicates as merged into the entry that keeps the subject; their text stays as it was."""
    with transaction.atomic():
        changed = _mark(space, losers, {"merged_into__isnull": True}, merged_into_id=winner)
        for loser in changed:
            _changed(space, "merge", [loser], actor, entry_id=str(loser), detail=f"{loser}→{winner}")
    return changed


def unmerge(space: MemorySpace, pairs: dict[int, int], *, actor: str = "") -> list[int]:
    """Undo merges: {loser: the winner it was merged into} (a mark set since then is left alone)."""
    with transaction.atomic():
        changed = [loser for loser, winner in pairs.items()
                   if _mark(space, [loser], {"merged_into_id": winner}, merged_into_id=None)]
        if changed:
            _changed(space, "unmerge", changed, actor, detail=f"ids={','.join(map(str, changed))}"[:2000])
    return changed


def digest(space: MemorySpace, digest_entry: Entry, turn_ids: Iterable[int], *, topic_id: int,
           actor: str = "") -> list[int]:
    """Mark a topic's turns as summarised by a digest entry (turns already in another digest are left alone)."""
    with transaction.atomic():
        changed = _mark(space, turn_ids, {"digest__isnull": True}, digest_id=digest_entry.pk)
        _changed(space, "digest", changed, actor, entry_id=str(digest_entry.pk),
                 detail=f"topic={topic_id} turns={len(changed)}")
    return changed


def undigest(space: MemorySpace, digest_id: int, turn_ids: Iterable[int], *, actor: str = "") -> list[int]:
    with transaction.atomic():
        changed = _mark(space, turn_ids, {"digest_id": digest_id}, digest_id=None)
        if changed:
            _changed(space, "undigest", changed, actor, entry_id=str(digest_id))
    return changed


def retag(space: MemorySpace, labels: Iterable[tuple[Entry, str, str, list[str]]], *, actor: str = "",
          detail: str = "") -> int:
    """New (origin, channel, tags) for entries; bodies, titles and ids stay, the index follows the tags, and the
    facts said in them move to the new origin with them (facts.move_to_origin)."""
    changed = []
    moved: dict[str, list[int]] = {}
    with transaction.atomic():
        for entry, origin, channel, tags in labels:
            tags = [redact(t).text for t in tags]
            is_test = is_test_tagged(tags)
            if origin != entry.origin:
                moved.setdefault(origin, []).append(entry.pk)
            Entry.objects.filter(pk=entry.pk).update(origin=origin, channel=channel, tags=tags, is_test=is_test)
            entry.origin, entry.channel, entry.tags, entry.is_test = origin, channel, tags, is_test
            if entry.deleted_at is None:
                search.index(entry)
            changed.append(entry.pk)
        for origin, ids in moved.items():
            facts.move_to_origin(space, ids, origin)
        if changed:
            _changed(space, "retag", changed, actor, detail=detail)
    return len(changed)


def record_recall(space_entries: dict[MemorySpace, list[Entry]], query: str, actor: str) -> None:
    """An agent's recall counts as access and is logged; the hub's own browsing never calls this.

    Written at once when no other writer holds the lock; else by the process's bookkeeping thread
    (core/background.py), so a search never waits behind agents' writes."""
    noted = [(space, [e.pk for e in entries]) for space, entries in space_entries.items()]
    now = timezone.now()
    with sql.one_writer(blocking=False) as free:
        if free:
            with transaction.atomic():
                _note_recall(noted, query, actor, now)
            return
    background.submit(_note_recall_when_free, noted, query, actor, now)


def _note_recall_when_free(noted: list[tuple[MemorySpace, list[int]]], query: str, actor: str,
                           now: datetime) -> None:
    with sql.one_writer(), transaction.atomic():
        _note_recall(noted, query, actor, now)


def _note_recall(noted: list[tuple[MemorySpace, list[int]]], query: str, actor: str, now: datetime) -> None:
    for space, ids in noted:
        if ids:
            Entry.objects.filter(pk__in=ids).update(hits=F("hits") + 1, last_accessed_at=now)
        _changed(space, "recall", ids, actor, detail=f"q={clip(query, 300)} hits={len(ids)}")


def keep(entry: Entry, *, bump: int, actor: str = "") -> Entry:
    """A person wants this one kept: its access count goes up by `bump` and it is fresh again."""
    with transaction.atomic():
        Entry.objects.filter(pk=entry.pk).update(hits=F("hits") + bump, last_accessed_at=timezone.now())
        entry.refresh_from_db()
        _changed(entry.space, "gc_keep", [entry.pk], actor, entry_id=str(entry.pk), detail=f"access={entry.hits}")
    return entry


def summarize(entry: Entry, summary: str) -> None:
    """A model's one-line summary in place of the rule summary (redacted: a model may echo a secret)."""
    entry.summary = clip(redact(summary).text, 240)
    with transaction.atomic():
        Entry.objects.filter(pk=entry.pk).update(summary=entry.summary)
        search.index(entry)
        events.entries_changed.send(Entry, space=entry.space, operation="summarize", entry_ids=[entry.pk], actor="")


def place_in_topic(topic_id: int, ids: list[int]) -> None:
    """The worker's topic assignment (growth/topics.py decides; this sets it). No op log: it is bookkeeping."""
    Entry.objects.filter(pk__in=ids).update(topic_id=topic_id)


def enriched(ids: list[int]) -> None:
    """The worker has added these entries' edges and topic (growth/enrich.py)."""
    Entry.objects.filter(pk__in=ids).update(enrich_pending=False)


def _mark(space: MemorySpace, ids: Iterable[int], where: dict, **values) -> list[int]:
    """Set `values` on the space's entries among `ids` that match `where` (the mark as it should be before);
    returns the ids set, so a mark someone else set meanwhile is left alone and not claimed."""
    changed = list(Entry.objects.filter(space=space, pk__in=list(ids), **where).order_by("pk")
                   .values_list("pk", flat=True))
    if changed:
        Entry.objects.filter(pk__in=changed).update(**values)
    return changed


def _changed(space: MemorySpace, operation: str, ids: list[int], actor: str, *, entry_id: str = "",
             detail: str = "") -> None:
    log_op(space, operation, entry_id, detail, actor)
    events.entries_changed.send(Entry, space=space, operation=operation, entry_ids=ids, actor=actor)


# --- the op log and the space's clock -------------------------------------------------------------

def log_op(space: MemorySpace, operation: str, entry_id: str = "", detail: str = "", actor: str = "") -> None:
    """Append to the space's op log and trim it to its last OPLOG_KEEP operations (two indexed statements).

    Each row takes the space's next `seq`, so the rows to drop are those more than OPLOG_KEEP
    behind the new one, whatever other spaces write in between. Two PostgreSQL writers of one
    space at the same instant may share a seq; the log is then one row off its cap until the next.
    """
    (seq,) = sql.one("INSERT INTO memories_oplog (space_id, seq, operation, entry_id, detail, actor, created_at) "
                     "SELECT %s, COALESCE(MAX(seq), 0) + 1, %s, %s, %s, %s, %s FROM memories_oplog "
                     "WHERE space_id = %s RETURNING seq",
                     [space.pk, operation, entry_id, clip(detail, 2000), actor, sql.moment(timezone.now()), space.pk])
    keep_rows = settings.MEMORYHUB["OPLOG_KEEP"]
    if seq > keep_rows:
        sql.run("DELETE FROM memories_oplog WHERE space_id = %s AND seq <= %s", [space.pk, seq - keep_rows])


def touch_space(space: MemorySpace) -> None:
    """Record the last write time; a burst of writes updates it once every few seconds, not per write.

    A vault's time is exact: it lights the "new since you looked" dot.
    """
    now = timezone.now()
    stale = space.last_write_at is None or now - space.last_write_at > timedelta(seconds=LAST_WRITE_PRECISION)
    if stale or space.is_vault:
        MemorySpace.objects.filter(pk=space.pk).update(last_write_at=now)
        space.last_write_at = now
