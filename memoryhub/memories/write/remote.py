"""Writes to a third-party space: sent through its provider and kept locally with the receipt, whatever happens."""

from __future__ import annotations

from django.utils import timezone

from memoryhub.jobs import runner
from memoryhub.memories import remote
from memoryhub.memories.models import RemoteWrite
from memoryhub.memories.write.drafts import Draft, Written
from memoryhub.spaces.models import MemorySpace
from memoryhub.spaces.provider_services import provider_for, record_space_error
from providers.base import ProviderError


def write(space: MemorySpace, draft: Draft, redactions: int) -> Written:
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
    return Written(space, receipt=receipt, redactions=redactions, remote_write=local.pk)

