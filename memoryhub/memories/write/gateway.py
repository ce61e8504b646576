"""The one door for every change to native entries.

Writes (agent turns and saves, a person's notes, imports, digests), edits, forgets, links,
re-tags, topic placement and restored packs each go through a function here (archive, merge and
digest marks through marks.py, agents' access counts through access_counts.py, writes to a
third-party space through remote.py), which redacts what it stores (memoryhub.core.redaction), changes the
rows (the entry, its full-text index and entity refs) in one transaction, appends to the
space's op log and sends an event (events.py). What a write sets in motion subscribes to those
events (memories/apps.py lists them): the worker's edges and topics, the space's maxEntries cap,
summaries and persona rebuilds as its settings ask, MEMORY.md. Nothing else writes Entry rows,
so the index, the graph and the op log never drift from the entries themselves.

A turn is the hot path: the pure work (redaction, entities, index tokens, fact claims) comes
first, then a few plain SQL statements in one transaction, which queues for SQLite's lock (core/sqlite).
"""

from __future__ import annotations

from collections.abc import Iterable
from contextlib import nullcontext
from dataclasses import asdict, replace

from django.db import IntegrityError, transaction
from django.utils import timezone

from memoryhub.core import sql
from memoryhub.core.redaction import opaque_id, redact, redact_value
from memoryhub.jobs import runner
from memoryhub.memories.channels import USER_MARK
from memoryhub.memories.facts import slots as facts
from memoryhub.memories.models import Edge, EntityRef, Entry, Kind, Source, is_test_tagged
from memoryhub.memories.search import fulltext as search, vectors
from memoryhub.memories.text.categories import classify
from memoryhub.memories.text.entities import capitalised_words, extract_entities
from memoryhub.memories.text.prose import clip, rule_summary
from memoryhub.memories.write import events, remote as remote_writes
from memoryhub.memories.write.drafts import Draft, Written, content_hash, stored_key
from memoryhub.memories.write.oplog import log_op, record_change, touch_space
from memoryhub.spaces.models import MemorySpace

__all__ = ["Draft", "Written", "content_hash", "write", "write_many", "restore", "edit", "forget", "link", "retag",
           "summarize", "place_in_topic", "enriched"]


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
    Drafts for third-party spaces are sent at once, under one deadline, before that (remote.write_all).
    """
    results: list[Written | Exception | None] = [None] * len(drafts)
    ready, remote = [], []
    for n, (space, draft) in enumerate(drafts):
        try:
            draft, redactions = _redacted(draft)
            if not space.is_native:
                remote.append((n, (space, draft, redactions)))  # sent at once, below, under one deadline
                continue
            said = draft.user or draft.body
            claims = facts.extract(said) if draft.kind in (Kind.TURN, Kind.NOTE) else []
            if draft.kind == Kind.TURN and draft.user and claims:  # what the user said of themselves files it
                draft = replace(draft, category=classify(f"{draft.user}\n{draft.assistant}",
                                                         [c.predicate for c in claims if c.subject == "user"]))
            entry = _new_entry(space, draft, redactions)
            ready.append((n, entry, search.document_tokens(entry), claims))
        except Exception as exc:  # noqa: BLE001 — the draft's own failure, answered in its place
            results[n] = exc
    if remote:
        for (n, _item), result in zip(remote, remote_writes.write_all([item for _n, item in remote])):
            results[n] = result
    if ready:
        new: dict[int, tuple[MemorySpace, list[int]]] = {}  # space id -> (space, ids of its new entries)
        with transaction.atomic():
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
    """Inside the write transaction: the entry (or the one it repeats), its facts, and `entry_written`.

    A vault's facts are resolved after the write commits (by the worker): how its slots stand must not change
    what a write runs before it answers, or its time would tell a guess of a fact the vault holds."""
    space, redactions = entry.space, entry.redactions
    entry, created = _insert(entry, tokens, actor)
    result = Written(space, entry=entry, created=created, redactions=redactions)
    if created and space.is_vault:
        if claims:
            runner.submit("vault_facts", entry.pk, [asdict(claim) for claim in claims], label=f"facts-{space.pk}")
        events.entry_written.send(Entry, entry=entry, actor=actor, backfill=entry.source == Source.IMPORT)
    elif created:
        changes = facts.apply_claims(space, claims, source_entry=entry, origin=entry.origin)
        result.facts = {"asserted": [facts.fact_to_dict(f) for f in changes.asserted],
                        "invalidated": [facts.fact_to_dict(f) for f in changes.invalidated]}
        events.entry_written.send(Entry, entry=entry, actor=actor, backfill=entry.source == Source.IMPORT)
    return result


def vault_facts(entry_id: int, claims: list[dict]) -> None:
    """The worker's half of a vault write: the facts its text states, resolved against the vault's slots."""
    entry = Entry.objects.live().select_related("space").filter(pk=entry_id).first()
    if entry is None:
        return
    with transaction.atomic():
        facts.apply_claims(entry.space, [facts.Claim(**claim) for claim in claims], source_entry=entry,
                           origin=entry.origin)


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
                    related=[clean(r) for r in draft.related], channel=channel_ids(draft.channel),
                    chat={k: clean(v) for k, v in draft.chat.items()}, provenance=redact_value(draft.provenance),
                    session_id=opaque_id(draft.session_id), idempotency_key=opaque_id(draft.idempotency_key))
    if draft.kind == Kind.TURN and (user or assistant):
        question, answer = rule_summary(user, 120), rule_summary(assistant, 120)
        draft.body = f"User: {user}\n\nAssistant: {assistant}".strip()
        draft.title = clip(question, 200)
        draft.summary = clip(f"{question} → {answer}" if question and answer else question or answer, 240)
        draft.category = classify(f"{user}\n{assistant}")
    return draft, count


def channel_ids(channel: str) -> str:
    """A chat's ids as an entry keeps them (`group#u<user>`), each one kept as itself or, when it carries a secret,
    as a stable digest: it still names one chat and one member. Redacting the glued string whole would miss a
    user id that starts right after `#u` (no word boundary there)."""
    return USER_MARK.join(opaque_id(part) for part in channel.split(USER_MARK)) if channel else channel


def _new_entry(space: MemorySpace, draft: Draft, redactions: int) -> Entry:
    """The unsaved entry: everything that takes no lock (hash, entities, summary).

    A vault entry's entities come from its own text alone: looking its words up among the vault's known names
    would make what it stores (and the rows it writes) depend on what the vault holds."""
    text = f"{draft.title}\n{draft.body}"
    known = set() if space.is_vault else _known_entities(space, text)
    entities = list(dict.fromkeys(draft.entities + extract_entities(text, known)))[:50]
    return Entry(
        space=space, kind=draft.kind, at=draft.at or timezone.now(), category=draft.category,
        title=clip(draft.title, 300), body=draft.body,
        summary=clip(draft.summary or draft.title or rule_summary(draft.body), 500),
        tags=draft.tags, is_test=is_test_tagged(draft.tags), related=draft.related, entities=entities,
        session_id=draft.session_id,
        source=draft.source, origin=draft.origin or "local", channel=draft.channel, chat=draft.chat,
        provenance=draft.provenance,
        importance=draft.importance,
        content_hash=content_hash(draft.title, draft.body), idempotency_key=stored_key(space, draft),
        redactions=redactions, enrich_pending=True,
    )


def _known_entities(space: MemorySpace, text: str) -> set[str]:
    """Capitalised words of the text that are already entities in the space (so they count even mid-sentence)."""
    candidates = list(capitalised_words(text))[:200]
    if not candidates:
        return set()
    found = sql.rows(f"SELECT DISTINCT name FROM memories_entityref WHERE space_id = %s "
                     f"AND name IN ({sql.placeholders(candidates)})", [space.pk, *candidates])
    # and the full names a first name may be short for ("Marco" → "Marco Rossi"; entities.full_name decides),
    # each a range of the (space, name) index: "Marco " up to "Marco!" (PostgreSQL before 16 needs the alias)
    firsts = [c for c in candidates if c.isalpha()][:SHORT_NAMES]
    longer = sql.rows(" UNION ".join(["SELECT * FROM (SELECT DISTINCT name FROM memories_entityref "
                                      "WHERE space_id = %s AND name > %s AND name < %s LIMIT 3) AS known"] * len(firsts)),
                      [v for c in firsts for v in (space.pk, c + " ", c + "!")]) if firsts else []
    return {name for (name,) in [*found, *longer]}


SHORT_NAMES = 20  # capitalised words of one text looked up as the first name of a known full name


def _insert(entry: Entry, tokens: list[str], actor: str) -> tuple[Entry, bool]:
    """Insert exactly once; returns (entry, created). A repeated key returns the entry it made first, and a
    byte-identical live entry is not written twice (a visible no-op in the op log). Both look only at the
    writer's own origin: another origin's key or text never answers with its entry.

    A vault writes every text it is given, copies too: an answer that differed for a copy of what it holds
    (an older id, its time, 200 for 201), or a write that took another path for one, would confirm guesses
    of its text. A copy costs a row; a person reviewing the vault sees both."""
    space, key = entry.space, entry.idempotency_key
    earlier = _earlier(space, entry.origin, entry.content_hash, key, same_text=not space.is_vault)
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


def _earlier(space: MemorySpace, origin: str, digest: str, key: str, *,
            same_text: bool = True) -> tuple[int, bool] | None:
    """(id, holds the key) of the entry a write repeats: the one holding its key, else (`same_text`) a live
    byte-identical one."""
    by_key = ("SELECT id, 0 AS rank FROM memories_entry WHERE space_id = %s AND origin = %s "
              "AND idempotency_key = %s")
    by_text = (f"SELECT id, 1 AS rank FROM memories_entry {sql.indexed_by('entry_space_content_hash')} "
               "WHERE space_id = %s AND content_hash = %s AND deleted_at IS NULL AND origin = %s")
    parts = [(by_key, [space.pk, origin, key])] if key else []
    if same_text:
        parts.append((by_text, [space.pk, digest, origin]))
    if not parts:
        return None
    union = " UNION ALL ".join(query for query, _ in parts)
    row = sql.one(f"SELECT id, rank FROM ({union}) found ORDER BY rank, id LIMIT 1",
                  [value for _, params in parts for value in params])
    return (row[0], row[1] == 0) if row else None




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
            entry.provenance = redact_value(entry.provenance or {})
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
        record_change(entry.space, "update", [entry.pk], actor, entry_id=str(entry.pk), detail=clip(entry.summary, 200))
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
        record_change(entry.space, "forget", [entry.pk], actor, entry_id=str(entry.pk), detail=clip(entry.summary, 200))
    entry.deleted_at = now


def link(source: Entry, target: Entry, edge_type: str, weight: float, *, actor: str = "", reason: str = "") -> None:
    """A link someone asked for: both directions, re-linking overwrites weight and metadata."""
    meta = {"created_by": actor or "hub", **({"reason": reason} if reason else {})}
    with transaction.atomic():
        for a, b in ((source, target), (target, source)):
            Edge.objects.update_or_create(source=a, target=b, edge_type=edge_type,
                                          defaults={"weight": weight, "metadata": meta})
        record_change(source.space, "link", [source.pk, target.pk], actor, entry_id=str(source.pk),
                 detail=f"{source.pk}→{target.pk} type={edge_type} weight={weight}")












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
            channel = channel_ids(channel)
            Entry.objects.filter(pk=entry.pk).update(origin=origin, channel=channel, tags=tags, is_test=is_test)
            entry.origin, entry.channel, entry.tags, entry.is_test = origin, channel, tags, is_test
            if entry.deleted_at is None:
                search.index(entry)
            changed.append(entry.pk)
        for origin, ids in moved.items():
            facts.move_to_origin(space, ids, origin)
        if changed:
            record_change(space, "retag", changed, actor, detail=detail)
    return len(changed)










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
