"""Job bodies for the native store's background work (run by memoryhub.jobs.runner)."""

from __future__ import annotations

from memoryhub.jobs.models import Job
from memoryhub.jobs.runner import job_progress
from memoryhub.memories import persona


def persona_rebuild(job: Job) -> dict:
    """Re-derive a space's persona frame (with the configured LLM when there is one)."""
    job_progress(job, 10, "reading recent memories and facts")
    result = persona.rebuild(job.space)
    job_progress(job, 100, f"frame rebuilt by {result['method']}")
    return {k: result[k] for k in ("method", "asserted", "invalidated", "rejected", "events", "error")}


def verify_write(job: Job) -> dict:
    """Check a remote write that is waiting for proof (OpenViking: URI, bytes, index, read-back).

    Nothing retries automatically: a write still unproven stays "pending check" for a person to
    re-check. If our own bookkeeping fails after a verified commit, the exact file is deleted again.
    """
    from django.utils import timezone

    from memoryhub.memories.models import RemoteWrite
    from memoryhub.spaces.services import provider_for
    from providers.base import Receipt

    write = RemoteWrite.objects.select_related("space").get(pk=job.params["write"])
    job_progress(job, 20, f"verifying {write.uri or write.provider_id}")
    provider = provider_for(write.space)
    try:
        receipt = provider.verify(Receipt(write.state, provider_id=write.provider_id, uri=write.uri,
                                          error=write.error, detail=write.detail))
        try:
            RemoteWrite.objects.filter(pk=write.pk).update(
                state=receipt.state, provider_id=receipt.provider_id, uri=receipt.uri or write.uri,
                detail=receipt.detail, error=receipt.error, checked_at=timezone.now())
        except Exception:
            if receipt.state == "committed" and receipt.provider_id:
                provider.forget(receipt.provider_id)
            raise
    finally:
        provider.close()
    return {"write": write.pk, "state": receipt.state, "error": receipt.error}
