"""Third-party records by the ids the hub handed out: a search hit's record id, or a write receipt's id.

An async write (Mem0 event, Hindsight document, RetainDB trace) answers with an id the engine cannot read
back. The hub kept that write as a RemoteWrite; here it asks the adapter once what the write became and
keeps the answer in the write's `detail["record_ids"]`, so later reads go straight to the record.

The engines keep no origin, so the hub remembers which origin wrote each id (RemoteRecord): the
origin rules (docs/api.md) then hold for third-party records as for native entries.
"""

from __future__ import annotations

from collections.abc import Iterable

from memoryhub.agents.models import LOCAL_ORIGIN
from memoryhub.core.errors import ApiError
from memoryhub.core.http import without_endpoints
from memoryhub.memories.models import RemoteRecord, RemoteWrite
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
    remember_origin(write, ids)
    return ids


def get(space: MemorySpace, provider: Provider, remote_id: str) -> Record:
    """The record an id names; for a write that became several records (Mem0), the first, the rest in `related`."""
    ids = record_ids(space, provider, remote_id)
    record = provider.get(ids[0])
    if len(ids) > 1:
        record.extra["also"] = ids[1:]
    return record


def not_found_or(exc: ProviderError, record_id: str) -> Exception:
    """What an agent is told when an engine could not find or would not read one id: `not_found` for an id it
    refused as malformed (permanent) or answered 404 for; any other failure stays the provider's."""
    if exc.permanent or exc.status == 404:
        return ApiError("not_found", f"no memory {record_id!r}: {without_endpoints(exc.message)}", "id")
    return exc


def remember_origin(write: RemoteWrite, ids: Iterable) -> None:
    """The ids a write was given or became belong to the write's origin (the first writer of an id keeps it)."""
    if write.state == RemoteWrite.State.FAILED:
        return
    rows = [RemoteRecord(space_id=write.space_id, record_id=str(i)[:500], origin=write.origin, write=write)
            for i in dict.fromkeys(ids) if i]
    RemoteRecord.objects.bulk_create(rows, ignore_conflicts=True)


def origins(space: MemorySpace, ids: Iterable[str]) -> dict[str, str]:
    """The origin of each id (local when it was not written through the hub)."""
    ids = list(dict.fromkeys(str(i) for i in ids))
    known = dict(RemoteRecord.objects.filter(space=space, record_id__in=ids).values_list("record_id", "origin"))
    return {i: known.get(i, LOCAL_ORIGIN) for i in ids}
