"""Writes to third-party spaces: sent through their providers, kept locally with the receipt, whatever happens.

A request's third-party writes (the turns of a batch, say) are sent at once, at most WORKERS at a time,
under one deadline for all of them (MEMORYHUB_REMOTE_WRITE_DEADLINE, by default the provider timeout;
longer where an adapter declares its writes take longer, as ByteRover's curate does). Sent one after
another, 4 turns into a hanging space took 40.6 s and 100 about 17 minutes, with the request holding
one of its web process's write slots all along. The provider calls run outside any transaction and the
writer lock; the database is read (and keyed writes take their keys) before they start and is written
after they end, in the request's thread.

A write still unanswered at the deadline is cancelled and kept as `unknown` (it may have landed); one
that never got its turn is kept as `failed` (nothing was sent). Both answer 504 `provider_timeout`.

An idempotency key is written once: resent (a retried batch, a client's spool), it answers the first write's
receipt and sends nothing; only a write that surely failed is sent again, and one whose outcome is unknown
answers `unknown` until a person re-checks it (sending it again could store it twice in the engine).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, replace

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone

from memoryhub.core import fanout
from memoryhub.jobs import runner
from memoryhub.memories import remote
from memoryhub.memories.models import RemoteWrite
from memoryhub.memories.write.drafts import Draft, Written, stored_key
from memoryhub.spaces.models import MemorySpace
from memoryhub.spaces.provider_services import provider_for, record_space_error
from providers.base import Provider, ProviderError, Receipt

log = logging.getLogger(__name__)
WORKERS = 8  # provider calls of one request in flight at once
SENDING = "being sent (a write still in this state when nobody sends it was cut off: it may have landed)"


@dataclass
class _Send:
    """One write on its way: its local record and the adapter that sends it."""

    space: MemorySpace
    draft: Draft
    redactions: int
    local: RemoteWrite
    provider: Provider | None = None


def write_deadline(providers: list[Provider]) -> float:
    declared = [p.write_seconds for p in providers if p.write_seconds]
    return max([float(settings.MEMORYHUB["REMOTE_WRITE_DEADLINE"]), *declared])


def write(space: MemorySpace, draft: Draft, redactions: int) -> Written:
    """One write to a third-party space; its failure is raised (after it is kept)."""
    result = write_all([(space, draft, redactions)])[0]
    if isinstance(result, Exception):
        raise result
    return result


def write_all(items: list[tuple[MemorySpace, Draft, int]]) -> list[Written | Exception]:
    """Send every write at once under one deadline; one result per item, in its place the error of one that failed.

    A repeated idempotency key sends nothing (keys scoped as a native entry's, drafts.stored_key): it answers the
    receipt of the write that holds the key, unless that one surely failed, which is sent again. A receipt
    waiting for verification (OpenViking) gets a verification job; every outcome, failures included, is kept as a
    RemoteWrite (a timeout never proves there was no write)."""
    results: list[Written | Exception | None] = [None] * len(items)
    held = _holding_keys(items)
    sends: list[tuple[int, _Send]] = []
    firsts: dict[tuple, int] = {}  # (space, origin, key) -> the item of this request that sends it
    again: list[tuple[int, int]] = []  # (item, the earlier item of this request with its key)
    for n, (space, draft, redactions) in enumerate(items):
        key = stored_key(space, draft)
        slot = (space.pk, draft.origin, key)
        if key and slot in firsts:
            again.append((n, firsts[slot]))
            continue
        earlier = held.get(slot) if key else None
        if earlier is not None and earlier.state != RemoteWrite.State.FAILED:
            results[n] = _repeat(earlier, redactions)
            continue
        local = earlier or RemoteWrite(space=space, origin=draft.origin, idempotency_key=key)
        local.title, local.body, local.category = draft.title, draft.body, draft.category
        local.session_id = draft.session_id
        sends.append((n, _Send(space, draft, redactions, local)))
        if key:
            firsts[slot] = n
    for n, taken in _claim([(n, send) for n, send in sends if send.local.idempotency_key]).items():
        results[n] = _repeat(taken, items[n][2])
    sends = [(n, send) for n, send in sends if results[n] is None]
    for n, send in sends:
        try:
            send.provider = provider_for(send.space)  # reads the database: here, not on the sending threads
        except ProviderError as exc:
            results[n] = _failed(send, exc)
    _send_all([(n, send) for n, send in sends if send.provider is not None], results)
    for n, first in again:
        results[n] = replace(results[first], created=False) if isinstance(results[first], Written) else results[first]
    return results


def _send_all(sends: list[tuple[int, _Send]], results: list) -> None:
    if not sends:
        return
    deadline = write_deadline([s.provider for _, s in sends])
    pending = fanout.start([lambda s=s: _remember(s) for _, s in sends], deadline=deadline, workers=WORKERS)
    for (n, send), outcome in zip(sends, pending.collect()):
        send.provider.close()
        if outcome.state == fanout.DONE:
            results[n] = _received(send, outcome.value)
        elif isinstance(outcome.error, ProviderError):
            results[n] = _failed(send, outcome.error)
        elif outcome.error is not None:
            log.error("write to %s failed", send.space.slug, exc_info=outcome.error)
            _keep(send, RemoteWrite.State.UNKNOWN, f"the adapter failed: {type(outcome.error).__name__}")
            results[n] = outcome.error
        elif outcome.state == fanout.LATE:
            results[n] = _failed(send, ProviderError(
                f"{send.provider.label} did not answer within this write's {deadline:g} s deadline; the memory may "
                "still have been stored", timeout=True, unknown_outcome=True))
        else:
            results[n] = _failed(send, NotSent(
                f"not sent: this request's {deadline:g} s deadline for {send.provider.label} passed before its turn "
                "came; nothing was sent, so sending it again is safe"))


def _holding_keys(items: list[tuple[MemorySpace, Draft, int]]) -> dict[tuple, RemoteWrite]:
    """The writes already holding the keys of these items, by (space, origin, key): one query."""
    keys = {stored_key(space, draft) for space, draft, _ in items} - {""}
    if not keys:
        return {}
    found = RemoteWrite.objects.filter(space__in={space.pk for space, _, _ in items}, idempotency_key__in=keys)
    return {(w.space_id, w.origin, w.idempotency_key): w for w in found.select_related("space")}


def _claim(sends: list[tuple[int, _Send]]) -> dict[int, RemoteWrite]:
    """Take each keyed write's key before anything is sent, so two requests racing on one key send it once (and a
    process killed mid-send leaves the write as `unknown`, not forgotten). Returns, by item, the write that another
    request took the key for first."""
    lost: dict[int, RemoteWrite] = {}
    if not sends:
        return lost
    with transaction.atomic():
        for n, send in sends:
            local = send.local
            local.state, local.error, local.created_at = RemoteWrite.State.UNKNOWN, SENDING, timezone.now()
            if local.pk is not None:  # a write that surely failed, sent again: unless another request has just taken it
                retaken = RemoteWrite.objects.filter(pk=local.pk, state=RemoteWrite.State.FAILED).update(
                    state=local.state, error=local.error, created_at=local.created_at, title=local.title,
                    body=local.body, category=local.category, session_id=local.session_id)
                if not retaken:
                    lost[n] = RemoteWrite.objects.select_related("space").get(pk=local.pk)
                continue
            try:
                with transaction.atomic():
                    local.save()
            except IntegrityError:
                local.pk = None
                lost[n] = RemoteWrite.objects.select_related("space").get(
                    space=send.space, origin=local.origin, idempotency_key=local.idempotency_key)
    return lost


def _remember(send: _Send) -> Receipt:
    """On a sending thread: the provider call alone (no database)."""
    draft = send.draft
    return send.provider.remember(draft.body, title=draft.title, category=draft.category, tags=draft.tags,
                                  at=draft.at.isoformat() if draft.at else "")


def _repeat(write: RemoteWrite, redactions: int) -> Written:
    """The answer to a key already written: the receipt of the write that holds it, sending nothing. One whose outcome
    is unknown (sent, never confirmed, perhaps still being sent) answers `unknown` under the hub's id of the write:
    sending it again could store it twice, and its uri would be the engine's endpoint, not a record."""
    unknown = write.state == RemoteWrite.State.UNKNOWN
    receipt = Receipt(write.state, provider_id="" if unknown else write.provider_id, uri="" if unknown else write.uri,
                      error=write.error, detail=write.detail)
    return Written(write.space, receipt=receipt, created=False, redactions=redactions, remote_write=write.pk)


def _keep(send: _Send, state: str, error: str, uri: str = "") -> None:
    send.local.state, send.local.error, send.local.uri = state, error, uri
    send.local.save()


class NotSent(ProviderError):
    """A write whose turn never came before the deadline: nothing was sent."""

    def __init__(self, message: str):
        super().__init__(message, timeout=True)


def surely_not_stored(exc: ProviderError) -> bool:
    """Whether a failed write certainly did not land: never sent, refused outright (a 4xx other than 429, a refused
    key), or stopped by a setting the adapter checks before sending. Anything else (a timeout, a cut connection,
    an answer the adapter could not read) may have stored it."""
    if isinstance(exc, NotSent):
        return True
    if exc.unknown_outcome:
        return False
    return exc.permanent or (exc.status is not None and 400 <= exc.status < 500 and exc.status != 429)


def _failed(send: _Send, exc: ProviderError) -> ProviderError:
    """An error instead of a receipt: kept as `failed` or `unknown` (surely_not_stored), and noted on the space."""
    state = RemoteWrite.State.FAILED if surely_not_stored(exc) else RemoteWrite.State.UNKNOWN
    _keep(send, state, exc.message, exc.uri)
    if not isinstance(exc, NotSent):
        record_space_error(send.space, exc)
    return exc


def _received(send: _Send, receipt: Receipt) -> Written | ProviderError:
    local, space = send.local, send.space
    local.state, local.provider_id, local.uri = receipt.state, receipt.provider_id, receipt.uri
    local.detail, local.error = receipt.detail, receipt.error
    local.save()
    remote.remember_origin(local, [receipt.provider_id or receipt.uri, *(receipt.detail or {}).get("record_ids", [])])
    MemorySpace.objects.filter(pk=space.pk).update(last_write_at=timezone.now(), last_error=receipt.error[:2000])
    if receipt.state == RemoteWrite.State.PENDING_VERIFICATION and send.provider.verifies_writes:
        runner.enqueue("verify_write", space=space, params={"write": local.pk})
    if receipt.state in (RemoteWrite.State.FAILED, RemoteWrite.State.UNKNOWN):
        failed = receipt.state == RemoteWrite.State.FAILED
        outcome = "was refused" if failed else "has an unknown outcome (kept as pending check)"
        return ProviderError(f"the write to {space.slug} {outcome}: {receipt.error or 'no detail'}",
                             timeout="timed out" in receipt.error, uri=receipt.uri)
    return Written(space, receipt=receipt, redactions=send.redactions, remote_write=local.pk)
