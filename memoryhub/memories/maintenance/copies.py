"""Copy or move a space's memories into another space, of the same engine or another, with a receipt per memory.

The source is a native space's live entries or a third-party space's records (through `browse`); the target is any
other active space whose provider can `remember`. Memories go through the write gateway like an agent's writes
(redaction; a native target grows its facts and topics from them; a third-party target's write is kept with its
receipt on the Writes page too), and each gets a CopyReceipt: committed, accepted (the engine extracts later),
pending_verification, unknown (a timeout, a 5xx: it may have arrived) or failed. A second run of the same pair sends
only what has no committed, accepted or pending receipt, so a copy cut short by a failure, a cancel or a restart
resumes; a memory whose write into a third-party target is unknown keeps that receipt (its idempotency key answers
the write it made, so the engine never gets it twice) until a person re-checks it.

The preview says what would go and what the target cannot keep, from its declaration (Provider.keeps and its
capabilities), so nobody learns it by losing it. A copy deletes nothing: `forget_source` removes from the source
only the memories whose receipt is committed or accepted, when a person asks after seeing the receipts.

A vault space's memories are copied only into another native vault space: anywhere else agents could read them.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _, gettext_noop, ngettext

from memoryhub.jobs import runner
from memoryhub.jobs.models import Job
from memoryhub.jobs.runner import job_progress
from memoryhub.memories.maintenance.importers.reading import when
from memoryhub.memories.models import (
    CATEGORIES, CopyReceipt, Edge, EdgeType, Entry, Kind, RemoteWrite, Source, SpaceCopy,
)
from memoryhub.memories.text.categories import classify
from memoryhub.memories.write import gateway, marks, remote as remote_writes
from memoryhub.memories.write.drafts import Draft
from memoryhub.spaces.models import MemorySpace
from memoryhub.spaces.provider_services import provider_for, record_space_error
from providers.base import ProviderError, Record
from providers.registry import get_provider_class

State = RemoteWrite.State
SENT = (State.COMMITTED, State.ACCEPTED, State.PENDING_VERIFICATION)  # arrived, or on its way: never sent again
REMOVABLE = (State.COMMITTED, State.ACCEPTED)  # what the source may lose once a person says so
EXPLICIT_LINKS = (EdgeType.CAUSAL, EdgeType.SEMANTIC, EdgeType.SUPERSEDES)  # temporal and entity edges regrow
PAGE = 100  # source memories read at a time
REMOTE_BATCH = remote_writes.WORKERS  # third-party writes a batch: one round of requests in flight under its deadline
BROWSE_LIMIT = 100_000  # records read from a third-party source at most
PREVIEW_LIMIT = 2_000  # records a preview counts of a third-party source before it says "at least"


class CopyRefused(ValueError):
    """This pair cannot be copied; the message says why."""


def check(source: MemorySpace, target: MemorySpace) -> None:
    if source.pk == target.pk:
        raise CopyRefused(_("Choose another space: a space cannot be copied into itself."))
    if not (source.is_native or get_provider_class(source.provider).capabilities.browse):
        raise CopyRefused(_("%(provider)s cannot list its memories, so there is nothing to copy from.")
                          % {"provider": get_provider_class(source.provider).label})
    if not target.active or not get_provider_class(target.provider).capabilities.remember:
        raise CopyRefused(_("%(space)s does not take writes (it is switched off, or its provider cannot).")
                          % {"space": target.slug})
    if source.is_vault and not (target.is_vault and target.is_native):
        raise CopyRefused(_("A vault space's memories go only into another native vault space: anywhere else "
                            "agents could read them."))


def targets(source: MemorySpace) -> list[MemorySpace]:
    """The spaces this one may be copied into."""
    found = []
    for space in MemorySpace.objects.filter(active=True).exclude(pk=source.pk).select_related("workspace"):
        try:
            check(source, space)
        except CopyRefused:
            continue
        found.append(space)
    return found


def pair(source: MemorySpace, target: MemorySpace, actor: str = "") -> SpaceCopy:
    check(source, target)
    copy, _made = SpaceCopy.objects.get_or_create(source=source, target=target, defaults={"created_by": actor})
    return copy


# --- what would go, and what the target cannot keep -----------------------------------------------------------

def preview(source: MemorySpace, target: MemorySpace) -> dict:
    """How many memories would go now and what of them the target cannot keep (sentences, already translated)."""
    check(source, target)
    copy = SpaceCopy.objects.filter(source=source, target=target).first()
    sent = set(CopyReceipt.objects.filter(copy=copy, state__in=SENT).values_list("source_id", flat=True)) \
        if copy else set()
    if source.is_native:
        live = Entry.objects.live().filter(space=source)
        total, complete = live.count(), True
        traits = {"titled": live.exclude(title="").count(), "tagged": live.exclude(tags=[]).count(),
                  "turns": live.filter(kind=Kind.TURN).count(), "archived": live.filter(archived=True).count(),
                  "links": Edge.objects.filter(source__space=source, edge_type__in=EXPLICIT_LINKS,
                                               source__deleted_at__isnull=True,
                                               target__deleted_at__isnull=True).count() // 2}
    else:
        records = list(_records(source, limit=PREVIEW_LIMIT))
        total, complete = len(records), len(records) < PREVIEW_LIMIT
        traits = {"titled": sum(bool(r.title) for r in records), "tagged": sum(bool(r.tags) for r in records),
                  "turns": 0, "archived": 0, "links": 0}
    return {"memories": total, "complete": complete, "sent": len(sent), "to_send": max(0, total - len(sent)),
            "losses": losses(source, target, total, traits), "copy": copy,
            "receipts": summary(copy) if copy else {}}


def losses(source: MemorySpace, target: MemorySpace, total: int, traits: dict) -> list[str]:
    cls = get_provider_class(target.provider)
    keeps, caps, label = cls.keeps, cls.capabilities, cls.label
    said = []
    if keeps.text == "extracted":
        said.append(_("%(p)s extracts memories from what it is sent: the text it keeps may be shorter, split or "
                      "merged.") % {"p": label})
    if caps.write_mode == "async":
        said.append(_("%(p)s processes writes later: they arrive as accepted, not committed.") % {"p": label})
    elif caps.write_mode == "verified":
        said.append(_("%(p)s's writes are checked after they are made: they count as committed once proven.")
                    % {"p": label})
    if not keeps.dates and total:
        said.append(_("%(p)s keeps no dates of its own: every memory gets the time it is copied.") % {"p": label})
    if traits["titled"] and not keeps.title:
        said.append(ngettext("%(n)d title is not kept (%(p)s keeps no titles).",
                             "%(n)d titles are not kept (%(p)s keeps no titles).", traits["titled"])
                    % {"n": traits["titled"], "p": label})
    if traits["tagged"] and not keeps.tags:
        said.append(ngettext("%(n)d memory's tags are not kept.", "%(n)d memories' tags are not kept.",
                             traits["tagged"]) % {"n": traits["tagged"]})
    if traits["links"] and not caps.link:
        said.append(ngettext("%(n)d link between memories stays behind (%(p)s has no links).",
                             "%(n)d links between memories stay behind (%(p)s has no links).", traits["links"])
                    % {"n": traits["links"], "p": label})
    if not keeps.category and total:
        said.append(_("Categories (decision, pitfall, preference…) are not kept."))
    if source.is_native and not target.is_native:
        if traits["turns"]:
            said.append(ngettext(
                "%(n)d conversation turn becomes a plain memory; sessions, topics and the facts derived from them "
                "stay in this hub.", "%(n)d conversation turns become plain memories; sessions, topics and the "
                "facts derived from them stay in this hub.", traits["turns"]) % {"n": traits["turns"]})
        if traits["archived"]:
            said.append(ngettext("%(n)d archived memory arrives as an ordinary one.",
                                 "%(n)d archived memories arrive as ordinary ones.", traits["archived"])
                        % {"n": traits["archived"]})
    return said


# --- running a copy ------------------------------------------------------------------------------------------

def start(source: MemorySpace, target: MemorySpace, *, actor: str, user=None) -> Job:
    """The copy as a job (one at a time per pair: a second start joins the running one)."""
    copy = pair(source, target, actor)
    running = Job.objects.filter(kind="space_copy", params__copy=copy.pk,
                                 status__in=(Job.Status.QUEUED, Job.Status.RUNNING)).first()
    return running or runner.enqueue("space_copy", space=source, user=user, params={"copy": copy.pk, "actor": actor},
                                     label=f"{source.slug} → {target.slug}")


def run_job(job: Job) -> dict:
    copy = SpaceCopy.objects.select_related("source", "target").get(pk=job.params["copy"])
    return run(copy, actor=job.params.get("actor", "copy"),
               progress=lambda pct, msg, **args: job_progress(job, pct, msg, **args))


def run(copy: SpaceCopy, *, actor: str = "copy", progress=None) -> dict:
    """Send what has no committed, accepted or pending receipt; returns this run's counts by state."""
    report = progress or (lambda pct, msg, **args: None)
    source, target = copy.source, copy.target
    check(source, target)
    refresh(copy)
    sent = set(CopyReceipt.objects.filter(copy=copy, state__in=SENT).values_list("source_id", flat=True))
    total = Entry.objects.live().filter(space=source).count() if source.is_native else None
    counts: Counter = Counter()
    seen = skipped = 0
    batch = PAGE if target.is_native else REMOTE_BATCH
    pending: list[tuple[str, Draft, Entry | None]] = []
    report(1, gettext_noop("reading %(space)s"), space=source.slug)
    for source_id, draft, entry in _memories(source, target):
        seen += 1
        if source_id in sent:
            skipped += 1
            continue
        pending.append((source_id, draft, entry))
        if len(pending) >= batch:
            _send(copy, pending, counts, actor)
            pending = []
            report(5 + 85 * seen // max(total or seen, 1), gettext_noop("%(done)d memories sent, %(skipped)d already "
                                                                        "there"), done=sum(counts.values()),
                   skipped=skipped)
    if pending:
        _send(copy, pending, counts, actor)
    report(92, gettext_noop("links"))
    linked = _links(copy, actor) if source.is_native and target.is_native else 0
    return {"source": source.slug, "target": target.slug, "read": seen, "already": skipped, **dict(counts),
            "linked": linked, "receipts": summary(copy)}


def _memories(source: MemorySpace, target: MemorySpace) -> Iterator[tuple[str, Draft, Entry | None]]:
    if source.is_native:
        last = 0
        while True:
            page = list(Entry.objects.live().filter(space=source, pk__gt=last).order_by("pk")[:PAGE])
            if not page:
                return
            for entry in page:
                yield str(entry.pk), _entry_draft(entry, source, target), entry
            last = page[-1].pk
    else:
        for record in _records(source, limit=BROWSE_LIMIT):
            yield record.id, _record_draft(record, source), None


def _records(source: MemorySpace, *, limit: int) -> Iterator[Record]:
    """A third-party space's records, page by page (a page of ids already seen ends it: not every engine's offset
    moves)."""
    provider = provider_for(source)
    try:
        seen: set[str] = set()
        offset = 0
        while offset < limit:
            page = provider.browse(limit=PAGE, offset=offset)
            fresh = [r for r in page if r.id not in seen]
            for record in fresh:
                seen.add(record.id)
                yield record
            if len(page) < PAGE or not fresh:
                return
            offset += len(page)
    except ProviderError as exc:
        record_space_error(source, exc)
        raise
    finally:
        provider.close()


def _entry_draft(entry: Entry, source: MemorySpace, target: MemorySpace) -> Draft:
    """A native entry as a write. Into a native space a turn gives its two sides back (the gateway rebuilds the same
    body and reads facts from the user's side); elsewhere it goes as its body with its own title and category, which
    the gateway would otherwise derive again. Copies are a backfill, like imports: they call no model (the entry's
    own summary is put back after the write)."""
    user, assistant = "", ""
    if (target.is_native and entry.kind == Kind.TURN and entry.body.startswith("User: ")
            and "\n\nAssistant: " in entry.body):
        user, _sep, assistant = entry.body.removeprefix("User: ").partition("\n\nAssistant: ")
    return Draft(kind=entry.kind if entry.kind != Kind.DIGEST else Kind.NOTE, user=user, assistant=assistant,
                 title=entry.title, body=entry.body, summary=entry.summary, category=entry.category,
                 tags=list(entry.tags), related=list(entry.related), at=entry.at, session_id=entry.session_id,
                 source=Source.IMPORT, origin=entry.origin, channel=entry.channel, chat=dict(entry.chat),
                 importance=entry.importance, idempotency_key=f"copy:{source.pk}:{entry.pk}",
                 provenance={**entry.provenance, "copied_from": {"space": source.slug, "id": entry.pk,
                                                                 "source": entry.source}})


def _record_draft(record: Record, source: MemorySpace) -> Draft:
    extra = json.loads(json.dumps(record.extra, default=str))
    return Draft(kind=Kind.NOTE, title=record.title[:300], body=record.text,
                 category=record.category if record.category in CATEGORIES else classify(record.text),
                 tags=list(record.tags)[:20], at=when(record.at), origin=record.origin or "local",
                 source=Source.IMPORT, idempotency_key=f"copy:{source.pk}:{record.id}"[:200],
                 provenance={"source": source.provider, "copied_from": {"space": source.slug, "id": record.id},
                             **({"extra": extra} if extra else {})})


def _send(copy: SpaceCopy, items: list[tuple[str, Draft, Entry | None]], counts: Counter, actor: str) -> None:
    target = copy.target
    results = gateway.write_many([(target, draft) for _sid, draft, _e in items], actor=actor)
    for (source_id, draft, entry), written in zip(items, results):
        if isinstance(written, ProviderError):  # as its RemoteWrite keeps it: an unknown one is not sent again
            state = State.FAILED if remote_writes.surely_not_stored(written) else State.UNKNOWN
            target_id, error = "", written.message
        elif isinstance(written, Exception):
            state, target_id, error = State.FAILED, "", str(getattr(written, "message", "") or written)[:2000]
        elif written.entry is not None:
            state, target_id, error = State.COMMITTED, str(written.entry.pk), ""
            _keep_marks(entry, written.entry, actor)
        else:
            receipt = written.receipt
            state, error = receipt.state, receipt.error
            target_id = receipt.provider_id or receipt.uri
        _receipt(copy, source_id, state, target_id, error)
        counts[state] += 1


def _keep_marks(entry: Entry | None, made: Entry, actor: str) -> None:
    """What a native entry had beyond its text, onto its copy: a model summary, the archive mark."""
    if entry is None:
        return
    if made.category != entry.category:  # a person's correction, or a rule that has changed since
        gateway.edit(made, category=entry.category, actor=actor)
    if entry.kind == Kind.TURN and entry.summary and made.summary != entry.summary:
        gateway.summarize(made, entry.summary)  # after edit(), which makes a summary of its own
    if entry.archived and not made.archived:
        marks.archive(made.space, [made.pk], actor=actor, detail=f"archived in {entry.space.slug}")


def _receipt(copy: SpaceCopy, source_id: str, state: str, target_id: str, error: str) -> None:
    with transaction.atomic():
        receipt, made = CopyReceipt.objects.select_for_update().get_or_create(
            copy=copy, source_id=source_id[:500],
            defaults={"state": state, "target_id": target_id[:1000], "error": error})
        if not made:
            receipt.state, receipt.target_id, receipt.error = state, target_id[:1000], error
            receipt.attempts += 1
            receipt.updated_at = timezone.now()
            receipt.save()


def refresh(copy: SpaceCopy) -> int:
    """Pending receipts take the state their write has reached since (a verification job proves or fails it)."""
    changed = 0
    for receipt in CopyReceipt.objects.filter(copy=copy, state=State.PENDING_VERIFICATION):
        write = (RemoteWrite.objects.filter(space=copy.target, provider_id=receipt.target_id).order_by("-id").first()
                 or RemoteWrite.objects.filter(space=copy.target, uri=receipt.target_id).order_by("-id").first())
        if write is not None and write.state != receipt.state:
            CopyReceipt.objects.filter(pk=receipt.pk).update(state=write.state, error=write.error,
                                                             updated_at=timezone.now())
            changed += 1
    return changed


def _links(copy: SpaceCopy, actor: str) -> int:
    """Explicit links between copied native entries, between their copies (temporal and entity edges regrow)."""
    made = dict(CopyReceipt.objects.filter(copy=copy, state=State.COMMITTED).values_list("source_id", "target_id"))
    ids = {int(k): int(v) for k, v in made.items() if k.isdigit() and v.isdigit()}
    linked = 0
    edges = Edge.objects.filter(source_id__in=list(ids), target_id__in=list(ids), edge_type__in=EXPLICIT_LINKS)
    for edge in edges.order_by("id"):
        a, b = ids[edge.source_id], ids[edge.target_id]
        if a != b and not Edge.objects.filter(source_id=a, target_id=b, edge_type=edge.edge_type).exists():
            # gateway.link writes both directions, so the reverse edge of the source finds its copy there
            gateway.link(Entry.objects.get(pk=a), Entry.objects.get(pk=b), edge.edge_type, edge.weight,
                         actor=actor, reason=str((edge.metadata or {}).get("reason") or ""))
            linked += 1
    return linked


def summary(copy: SpaceCopy) -> dict:
    rows = CopyReceipt.objects.filter(copy=copy)
    by_state = dict(Counter(rows.values_list("state", flat=True)))
    return {"total": sum(by_state.values()), **{s: by_state.get(s, 0) for s in State.values},
            "removable": rows.filter(state__in=REMOVABLE, source_forgotten=False).count(),
            "forgotten": rows.filter(source_forgotten=True).count()}


# --- removing what arrived from the source --------------------------------------------------------------------

def forget_source(copy: SpaceCopy, *, actor: str, user=None) -> Job:
    return runner.enqueue("copy_forget", space=copy.source, user=user, params={"copy": copy.pk, "actor": actor},
                          label=f"{copy.source.slug} → {copy.target.slug}")


def forget_job(job: Job) -> dict:
    copy = SpaceCopy.objects.select_related("source", "target").get(pk=job.params["copy"])
    return forget(copy, actor=job.params.get("actor", "copy"),
                  progress=lambda pct, msg, **args: job_progress(job, pct, msg, **args))


def forget(copy: SpaceCopy, *, actor: str, progress=None) -> dict:
    """Remove from the source every memory whose receipt is committed or accepted and that is still there."""
    report = progress or (lambda pct, msg, **args: None)
    source = copy.source
    caps = get_provider_class(source.provider).capabilities
    if not source.is_native and not caps.forget:
        raise CopyRefused(_("%(p)s cannot delete memories; remove them there.")
                          % {"p": get_provider_class(source.provider).label})
    receipts = list(CopyReceipt.objects.filter(copy=copy, state__in=REMOVABLE, source_forgotten=False))
    provider = None if source.is_native else provider_for(source)
    removed = failed = 0
    try:
        for n, receipt in enumerate(receipts, 1):
            try:
                _forget_one(source, provider, receipt.source_id, actor)
            except ProviderError as exc:
                failed += 1
                CopyReceipt.objects.filter(pk=receipt.pk).update(error=f"not removed from the source: {exc.message}")
                continue
            CopyReceipt.objects.filter(pk=receipt.pk).update(source_forgotten=True, updated_at=timezone.now())
            removed += 1
            if n % PAGE == 0:
                report(100 * n // len(receipts), gettext_noop("%(done)d of %(total)d removed"), done=n,
                       total=len(receipts))
    finally:
        if provider is not None:
            provider.close()
    SpaceCopy.objects.filter(pk=copy.pk).update(forgotten_at=timezone.now())
    return {"removed": removed, "failed": failed, "receipts": summary(copy)}


def _forget_one(source: MemorySpace, provider, source_id: str, actor: str) -> None:
    if provider is None:
        entry = Entry.objects.live().filter(space=source, pk=int(source_id)).first() if source_id.isdigit() else None
        if entry is not None:
            gateway.forget(entry, actor=actor)
        return
    provider.forget(source_id)

