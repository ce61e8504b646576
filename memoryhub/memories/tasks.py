"""The native store's background work: job bodies (registered in memories/apps.py) and what a new entry queues."""

from __future__ import annotations

from pathlib import Path

from django.utils import timezone
from django.utils.translation import gettext_noop

from memoryhub.core import llm
from memoryhub.jobs import runner
from memoryhub.jobs.models import Job
from memoryhub.jobs.runner import job_progress
from memoryhub.memories.growth import persona
from memoryhub.memories.maintenance import compact, consolidate, gc, importers, preview
from memoryhub.memories.maintenance.importers import retag
from memoryhub.memories.models import ConsolidationRun, Entry, Kind, RemoteWrite
from memoryhub.memories.search import vectors
from memoryhub.memories.write import gateway
from memoryhub.spaces import space_settings
from memoryhub.spaces.models import MemorySpace
from memoryhub.spaces.provider_services import provider_for
from providers.base import Receipt


def on_entry_written(sender, entry: Entry, backfill: bool = False, **kwargs) -> None:
    """The jobs a new entry may queue, as its space's settings say: a model summary of a turn (autoSummarize,
    with an LLM configured) and a persona rebuild every personaEvery entries.

    Imported history queues neither (seed 003: backfill never calls a model; rule summaries keep
    it findable); it still counts towards the next rebuild.
    """
    space = entry.space
    config = space_settings.effective(space)
    if (entry.kind == Kind.TURN and not backfill and config["autoSummarize"]
            and (config["summarizeProvider"] or llm.configured())):
        runner.enqueue("summarize", space=space, params={"entry": entry.pk})
    if persona.note_new_entry(space, entry.origin) and not backfill:
        # Agents writing fast reach personaEvery faster than rebuilds run: one waiting rebuild covers them all.
        runner.enqueue_unless_waiting("persona_rebuild", space=space)


def persona_rebuild(job: Job) -> dict:
    """Re-derive a space's persona frames, each origin's from its own memories (with the configured LLM when
    there is one)."""
    job_progress(job, 10, gettext_noop("reading recent memories and facts"))
    result = persona.rebuild_all(job.space)
    return {k: result[k] for k in ("method", "asserted", "invalidated", "rejected", "events", "error")}


def embed_space(job: Job) -> dict:
    """Embed the entries of the space that lack a vector (after embeddings were turned on or the model changed),
    for as long as a task may run; the sweep or another click takes the rest."""

    def progress(done: int, total: int) -> None:
        job_progress(job, 100 * done // max(total, 1), gettext_noop("%(done)d of %(total)d entries embedded"),
                     done=done, total=total)

    done = vectors.embed_pending(job.space.pk, progress=progress, raise_errors=True)
    return {"embedded": done, "still_missing": vectors.status(job.space)["missing"]}


def enforce_cap(job: Job) -> dict:
    """Bring a space far over its maxEntries back under it, the weakest first (gc.catch_up)."""
    return gc.catch_up(job.space, progress=lambda p, m, **a: job_progress(job, p, m, **a))


def verify_write(job: Job) -> dict:
    """Check a remote write that is waiting for proof (OpenViking: URI, bytes, index, read-back).

    Nothing retries automatically: a write still unproven stays "pending check" for a person to
    re-check. If our own bookkeeping fails after a verified commit, the exact file is deleted again.
    """
    write = RemoteWrite.objects.select_related("space").get(pk=job.params["write"])
    job_progress(job, 20, gettext_noop("verifying %(target)s"), target=write.uri or write.provider_id)
    provider = provider_for(write.space)
    try:
        receipt = provider.verify(Receipt(write.state, provider_id=write.provider_id, uri=write.uri,
                                          error=write.error, detail=write.detail))
        try:
            RemoteWrite.objects.filter(pk=write.pk).update(
                state=receipt.state, provider_id=receipt.provider_id, uri=receipt.uri or write.uri,
                detail=receipt.detail, error=receipt.error, checked_at=timezone.now())
        except Exception:
            if receipt.state == RemoteWrite.State.COMMITTED and receipt.provider_id:
                provider.forget(receipt.provider_id)
            raise
    finally:
        provider.close()
    return {"write": write.pk, "state": receipt.state, "error": receipt.error}


def consolidate_space(job: Job) -> dict:
    """Apply a fresh consolidation plan to the job's space (the preview was only a preview)."""
    run = consolidate.apply(job.space, actor=job.params.get("actor", "job"),
                            progress=lambda p, m, **a: job_progress(job, p, m, **a))
    return {"run": run.pk, **run.counts, "method": run.method}


def consolidation_preview(job: Job) -> dict:
    """What the Maintenance tab shows (maintenance/preview.py); earlier finished previews of the space go."""
    job_progress(job, 10, gettext_noop("planning"))
    result = preview.compute(job.space)
    Job.objects.filter(kind="consolidation_preview", space=job.space, pk__lt=job.pk,
                       status__in=(Job.Status.SUCCEEDED, Job.Status.FAILED)).delete()
    return result


def consolidate_undo(job: Job) -> dict:
    """Undo a consolidation run (and any later one of the same space)."""
    run = ConsolidationRun.objects.get(pk=job.params["run"], space=job.space)
    return {"undone": [r.pk for r in consolidate.undo(run, actor=job.params.get("actor", "job"))]}


def daily_consolidation() -> dict:
    """The django-q2 schedule's task: one consolidate job per native space with autoConsolidate on."""
    queued = {}
    for space in MemorySpace.objects.filter(provider="native", active=True):
        if consolidate.auto_consolidate(space):
            queued[space.slug] = runner.enqueue("consolidate", space=space, params={"actor": "schedule"}).pk
    return queued


def compact_storage(job: Job) -> dict:
    """Trim what only grows and give the space back to the file system."""
    return compact.compact(job_days=job.params.get("days"), progress=lambda p, m, **a: job_progress(job, p, m, **a))


def import_history(job: Job) -> dict:
    """Backfill a file or directory into the job's space, with progress; re-running adds nothing."""
    job_progress(job, 1, gettext_noop("reading the file"))
    params = job.params

    def progress(percent, message, **args):
        job_progress(job, percent, message, **args)

    batch = importers.load(Path(params["path"]), params.get("format", "auto"), params.get("origin", "local"),
                           progress=progress)
    return importers.run(job.space, batch, actor=params.get("actor", "import"), progress=progress,
                         by_workspace=bool(params.get("by_workspace")))


def retag_origin(job: Job) -> dict:
    """Apply an origin re-tag from a sessions.json map."""
    mapping = retag.load_mapping(Path(job.params["path"]), job.params.get("origin", "qq"))
    return {"changed": retag.apply(job.space, mapping, actor=job.params.get("actor", "job"))}


def summarize_entry(job: Job) -> dict:
    """Replace a turn's rule summary with a one-line model summary (autoSummarize with an LLM configured), from
    the space's summarizeProvider (a named model endpoint; blank: the default one) and summaryModel."""
    entry = Entry.objects.live().filter(pk=job.params["entry"]).first()
    if entry is None:
        return {"summarized": False}
    config = space_settings.effective(entry.space)
    try:
        client = llm.get_client(config["summarizeProvider"], model=config["summaryModel"])
    except llm.LLMError as exc:  # the setting names an endpoint the hub no longer has: the rule summary stays
        return {"summarized": False, "error": str(exc)[:300]}
    if client is None:
        return {"summarized": False}
    try:
        line = client.complete([
            {"role": "system", "content": "Summarise the conversation turn in one line of at most 160 characters, "
                                          "in the language it is written in. Answer with the line only."},
            {"role": "user", "content": entry.body[:6000]},
        ], timeout=float(config["summaryTimeout"]))
    except llm.LLMError as exc:
        return {"summarized": False, "error": str(exc)[:300]}
    finally:
        client.close()
    summary = line.strip().strip('"')
    if summary:
        gateway.summarize(entry, summary)
    return {"summarized": bool(summary)}
