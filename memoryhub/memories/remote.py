"""Third-party records by the ids the hub handed out: a search hit's record id, or a write receipt's id.

An async write (Mem0 event, Hindsight document, RetainDB trace) answers with an id the engine cannot read
back. The hub kept that write as a RemoteWrite; here it asks the adapter once what the write became and
keeps the answer in the write's `detail["record_ids"]`, so later reads go straight to the record.
"""

from __future__ import annotations

from memoryhub.memories.models import RemoteWrite
from memoryhub.spaces.models import MemorySpace
from providers.base import Provider, ProviderError, Receipt, Record


def record_ids(space: MemorySpace, provider: Provider, remote_id: str) -> list[str]:
    """The record ids behind `remote_id`: itself, or every record the write it names became."""
    write = RemoteWrite.objects.filter(space=space, provider_id=remote_id).order_by("-id").first()
    if write is None:
        return [remote_id]
    known = write.detail.get("record_ids") if isinstance(write.detail, dict) else None
    if known:
        return [str(i) for i in known]
    if write.state == RemoteWrite.State.FAILED:
        raise ProviderError(f"the write {remote_id} failed: {write.error or 'no detail'}", permanent=True, status=404)
    receipt = Receipt(write.state, provider_id=write.provider_id, uri=write.uri, error=write.error,
                      detail=dict(write.detail or {}))
    ids = provider.resolve_write(receipt)
    if not ids:
        raise ProviderError(f"{provider.label} is still processing the write {remote_id}; try again shortly",
                            retryable=True)
    RemoteWrite.objects.filter(pk=write.pk).update(detail={**receipt.detail, "record_ids": ids})
    return ids


def get(space: MemorySpace, provider: Provider, remote_id: str) -> Record:
    """The record an id names; for a write that became several records (Mem0), the first, the rest in `related`."""
    ids = record_ids(space, provider, remote_id)
    record = provider.get(ids[0])
    if len(ids) > 1:
        record.extra["also"] = ids[1:]
    return record
