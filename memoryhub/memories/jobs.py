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
