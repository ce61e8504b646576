"""Run background work as Jobs: a row people can watch, executed by a django-q2 worker.

Each kind maps to a function `(job) -> dict` that reports progress with `job_progress`.
Failures are recorded on the row (short message, never a stack trace) and can be retried.
"""

from __future__ import annotations

import logging
import os
import socket
import time
from datetime import timedelta
from importlib import import_module
from typing import Any, Callable

from django.db import transaction
from django.db.models import Q
from django.utils import timezone
from django_q.conf import Conf
from django_q.tasks import async_task

from memoryhub.jobs.models import Job

log = logging.getLogger(__name__)

JOB_KINDS: dict[str, tuple[str, str]] = {
    # kind: (label, dotted path of the job function)
    "selftest": ("Self test", "memoryhub.jobs.runner.selftest"),
    "persona_rebuild": ("Persona rebuild", "memoryhub.memories.jobs.persona_rebuild"),
    "verify_write": ("Verify a remote write", "memoryhub.memories.jobs.verify_write"),
    "summarize": ("Summarise a turn", "memoryhub.memories.jobs.summarize_entry"),
    "consolidate": ("Consolidation", "memoryhub.memories.jobs.consolidate_space"),
    "consolidate_undo": ("Undo consolidation", "memoryhub.memories.jobs.consolidate_undo"),
    "compact": ("Storage compaction", "memoryhub.memories.jobs.compact_storage"),
    "import_history": ("History import", "memoryhub.memories.jobs.import_history"),
    "retag_origin": ("Origin re-tag", "memoryhub.memories.jobs.retag_origin"),
    "embed": ("Embedding", "memoryhub.memories.jobs.embed_space"),
}


def register(kind: str, label: str, path: str) -> None:
    JOB_KINDS[kind] = (label, path)


def enqueue(kind: str, *, space=None, params: dict | None = None, user=None, label: str = "") -> Job:
    """Create the Job row and hand it to the worker once the surrounding transaction commits."""
    if kind not in JOB_KINDS:
        raise KeyError(kind)
    job = Job.objects.create(kind=kind, label=label or JOB_KINDS[kind][0], space=space, params=params or {},
                             created_by=user if getattr(user, "is_authenticated", False) else None)
    if Conf.SYNC:
        _dispatch(job.pk)
    else:
        transaction.on_commit(lambda: _dispatch(job.pk))
    return job


def enqueue_unless_waiting(kind: str, *, space, within: timedelta = timedelta(minutes=10)) -> Job | None:
    """Enqueue a job that re-derives its result from the current state, unless one of its kind for the space
    is still waiting to start (it will see everything written so far); None when one is waiting.

    A job queued longer ago than `within` is taken as lost (its dispatch never reached the worker)."""
    waiting = Job.objects.filter(kind=kind, space=space, status="queued", created_at__gte=timezone.now() - within)
    if waiting.exists():
        return None
    return enqueue(kind, space=space)


def _dispatch(job_id: int) -> None:
    task_id = async_task("memoryhub.jobs.runner.execute", job_id, task_name=f"job-{job_id}")
    Job.objects.filter(pk=job_id, task_id="").update(task_id=str(task_id)[:64])


def job_function(kind: str) -> Callable[[Job], dict[str, Any]]:
    module, _, name = JOB_KINDS[kind][1].rpartition(".")
    return getattr(import_module(module), name)


def job_progress(job: Job, percent: int, message: str = "") -> None:
    """Visible to the dashboard at once (the worker runs outside any request transaction)."""
    job.progress = max(0, min(100, int(percent)))
    job.message = message[:300]
    Job.objects.filter(pk=job.pk).update(progress=job.progress, message=job.message, heartbeat_at=timezone.now())


def execute(job_id: int) -> None:
    """The worker's entry point for every job."""
    job = Job.objects.filter(pk=job_id).first()
    if job is None or job.status not in ("queued",):
        return
    Job.objects.filter(pk=job.pk).update(status="running", started_at=timezone.now(), heartbeat_at=timezone.now(),
                                         worker=worker_id())
    job.status = "running"
    try:
        result = job_function(job.kind)(job) or {}
    except Exception as exc:  # recorded for people; the log keeps the traceback
        log.exception("job %s (%s) failed", job.pk, job.kind)
        Job.objects.filter(pk=job.pk).update(status="failed", error=f"{type(exc).__name__}: {exc}"[:2000],
                                             finished_at=timezone.now())
        return
    Job.objects.filter(pk=job.pk).update(status="succeeded", progress=100, result=result, finished_at=timezone.now())


def retry(job: Job, user=None) -> Job:
    """A failed job runs again as a new row (the failed one stays for the record)."""
    return enqueue(job.kind, space=job.space, params=job.params, user=user, label=job.label)


def worker_id() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"[:100]


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def fail_stale(max_silence_seconds: int = 900) -> int:
    """Mark running jobs whose worker died (killed mid-job) as failed, so they can be retried.

    A job whose worker process on this host is gone fails at once; on other hosts we can only
    tell by silence, so those fail after `max_silence_seconds` without a heartbeat.
    """
    prefix = f"{socket.gethostname()}:"
    dead = [
        job_id
        for job_id, worker in Job.objects.filter(status="running", worker__startswith=prefix).values_list("id", "worker")
        if worker[len(prefix):].isdigit() and not _pid_alive(int(worker[len(prefix):]))
    ]
    cutoff = timezone.now() - timedelta(seconds=max_silence_seconds)
    return Job.objects.filter(Q(heartbeat_at__lt=cutoff) | Q(pk__in=dead), status="running").update(
        status="failed", error="the worker stopped while running this job; retry it", finished_at=timezone.now())


def on_worker_spawn(sender, proc_name: str = "", **kwargs) -> None:
    """django-q2's post_spawn: a worker (re)started, maybe after one died mid-job; fail its orphans."""
    failed = fail_stale()
    if failed:
        log.warning("%s marked %d job(s) of dead workers as failed", proc_name or "worker", failed)


def selftest(job: Job) -> dict[str, Any]:
    """A tiny job that walks its progress bar: lets people check that the worker runs.

    `pause` (seconds per step, at most 5) keeps it running long enough to watch.
    """
    steps = int(job.params.get("steps", 5))
    pause = min(5.0, float(job.params.get("pause", 0)))
    for i in range(steps):
        time.sleep(pause)
        job_progress(job, (i + 1) * 100 // steps, f"step {i + 1} of {steps}")
    return {"steps": steps}
