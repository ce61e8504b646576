"""Writes to third-party spaces: sent through their providers, kept locally with the receipt, whatever happens.

A request's third-party writes (the turns of a batch, say) are sent at once, at most WORKERS at a time,
under one deadline for all of them (MEMORYHUB_REMOTE_WRITE_DEADLINE, by default the provider timeout;
longer where an adapter declares its writes take longer, as ByteRover's curate does). Sent one after
another, 4 turns into a hanging space took 40.6 s and 100 about 17 minutes, with the request holding
one of its web process's write slots all along. The provider calls run outside any transaction and the
writer lock; the database is read before they start and written after they end, in the request's thread.

A write still unanswered at the deadline is cancelled and kept as `unknown` (it may have landed); one
that never got its turn is kept as `failed` (nothing was sent). Both answer 504 `provider_timeout`.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from django.conf import settings
from django.utils import timezone

from memoryhub.core import fanout
from memoryhub.jobs import runner
from memoryhub.memories import remote
from memoryhub.memories.models import RemoteWrite
from memoryhub.memories.write.drafts import Draft, Written
from memoryhub.spaces.models import MemorySpace
from memoryhub.spaces.provider_services import provider_for, record_space_error
from providers.base import Provider, ProviderError, Receipt

log = logging.getLogger(__name__)
WORKERS = 8  # provider calls of one request in flight at once


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

    A receipt waiting for verification (OpenViking) gets a verification job; every outcome, failures
    included, is kept as a RemoteWrite (a timeout never proves there was no write)."""
    results: list[Written | Exception | None] = [None] * len(items)
    sends: list[tuple[int, _Send]] = []
    for n, (space, draft, redactions) in enumerate(items):
        send = _Send(space, draft, redactions, RemoteWrite(
            space=space, title=draft.title, body=draft.body, category=draft.category, session_id=draft.session_id,
            origin=draft.origin))
        try:
            send.provider = provider_for(space)  # reads the database: here, not on the sending threads
        except ProviderError as exc:
            results[n] = _failed(send, exc)
            continue
        sends.append((n, send))
    if not sends:
        return results
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
    return results


def _remember(send: _Send) -> Receipt:
    """On a sending thread: the provider call alone (no database)."""
    draft = send.draft
    return send.provider.remember(draft.body, title=draft.title, category=draft.category, tags=draft.tags,
                                  at=draft.at.isoformat() if draft.at else "")


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
