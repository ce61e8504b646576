"""Run background work on a django-q2 worker: jobs (a row people watch) and tasks (no row).

Each job kind maps to a function `(job) -> dict` (registry.py) that reports progress with
`job_progress`. Failures are recorded on the row (short message, never a stack trace) and can
be retried. Tasks are handed to the worker by their registered name (`submit`).

A person may cancel a job (`cancel`, seed 000): a queued one never starts; a running one stops at
its next progress point (`job_progress` raises Cancelled), and a watcher thread cancels the HTTP
clients it made (core.http.CancelScope), so a job waiting on a provider or a model stops at once.
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta
from typing import Any

from django.db import connections, transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_noop
from django_q.conf import Conf
from django_q.tasks import async_task

from memoryhub.core.http import CancelScope
from memoryhub.core.redaction import redact, redact_value
from memoryhub.jobs import registry
from memoryhub.jobs.models import Handoff, Job

log = logging.getLogger(__name__)
WATCH_SECONDS = 1.0  # how often a running job's watcher looks for a person's cancel


class Cancelled(Exception):
    """A person cancelled the job; raised at its next progress point, so it stops there."""


class JobFailed(Exception):
    """The work failed for a reason a person can act on (a directory that does not exist): `message` is an
    untranslated msgid (gettext_noop) and `args` its placeholders, so the job's page gives the reason in the reader's
    language; the job fails with it, and no traceback is logged for what is no bug."""

    def __init__(self, message: str, **args: Any) -> None:
        self.message, self.args_for_message = message, args
        super().__init__(message % args if args else message)

LOG_LINES = 100  # the jobs page reads every row's log for its latest line; keep each small
STALE = gettext_noop("the worker stopped while running this job; retry it")
CANCELLED = gettext_noop("cancelled")
CANCELLING = gettext_noop("cancelling: it stops at its next step")


def enqueue(kind: str, *, space=None, params: dict | None = None, user=None, label: str = "") -> Job:
    """Create the Job row and hand it to the worker once the surrounding transaction commits."""
    if kind not in registry.JOBS:
        raise KeyError(kind)
    job = Job.objects.create(kind=kind, label=redact(label or registry.JOBS[kind].label).text, space=space,
                             params=params or {},
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
    waiting = Job.objects.filter(kind=kind, space=space, status=Job.Status.QUEUED,
                                 created_at__gte=timezone.now() - within)
    if waiting.exists():
        return None
    return enqueue(kind, space=space)


def _dispatch(job_id: int) -> None:
    """Hand a committed job to the worker. A broker that does not answer (Redis down) leaves it queued without a
    task id, logged, and `dispatch_lost` sends it again: the change that queued it was committed and must not
    answer an error."""
    task_id = _hand_over("memoryhub.jobs.runner.execute", job_id, f"job-{job_id}")
    if task_id is not None:
        Job.objects.filter(pk=job_id, task_id="").update(task_id=task_id)


def _hand_over(function: str, row_id: int, name: str, **options) -> str | None:
    """The broker's task id for `function(row_id)`, or None, logged, when the broker does not take it: the row stays
    unsent and `dispatch_lost` sends it again."""
    try:
        return str(async_task(function, row_id, task_name=name, **options))[:64]
    except Exception as exc:  # noqa: BLE001 — whatever the broker raises; tests (sync) see their own errors
        if Conf.SYNC:
            raise
        log.warning("%s is kept but the worker's queue did not take it (%s); it is sent again once it does", name, exc)
        return None


LOST_AFTER = timedelta(minutes=1)


def dispatch_lost() -> int:
    """Every minute (a django-q2 schedule): send again the queued jobs, and the durable tasks' hand-offs, that
    never reached the worker's queue."""
    before = timezone.now() - LOST_AFTER
    lost = list(Job.objects.filter(status=Job.Status.QUEUED, task_id="", created_at__lt=before)
                .values_list("pk", flat=True))
    for job_id in lost:
        _dispatch(job_id)
    handoffs = list(Handoff.objects.filter(task_id="", error="", created_at__lt=before).values_list("pk", flat=True))
    for handoff_id in handoffs:
        _hand_off(handoff_id)
    return len(lost) + len(handoffs)


def _send_task(path: str, args: tuple, name: str) -> None:
    try:
        async_task(path, *args, task_name=name, save=False)
    except Exception as exc:  # noqa: BLE001 — as in _dispatch: the change was committed
        log.warning("task %s was not queued (%s); the change that asked for it stands", name, exc)


def submit(name: str, *args: Any, label: str = "") -> None:
    """Queue a registered task once the surrounding transaction commits; without a worker (MEMORYHUB_Q_SYNC,
    the tests) it runs at once.

    A task leaves no result row when it succeeds (the enrichment run is queued every second or so
    while agents write); a failure is kept by django-q2 as usual. A task the broker does not take is
    logged, never raised: the change that asked for it was committed (enrich_sweep catches a lost enrich run).
    A durable task's hand-off is a row written with the change itself, which `dispatch_lost` sends again."""
    run = registry.TASKS[name]
    if Conf.SYNC:
        run(*args)
    elif name in registry.DURABLE:
        handoff = Handoff.objects.create(name=name, args=list(args), label=(label or name)[:200])
        transaction.on_commit(lambda: _hand_off(handoff.pk))
    else:
        transaction.on_commit(lambda: _send_task(registry.path(run), args, label or name))


def _hand_off(handoff_id: int) -> None:
    """Give a durable task's row to the worker; one the broker does not take stays unsent, logged (as _dispatch)."""
    label = Handoff.objects.filter(pk=handoff_id).values_list("label", flat=True).first()
    if label is None:
        return
    task_id = _hand_over("memoryhub.jobs.runner.run_handoff", handoff_id, label, save=False)
    if task_id is not None:
        Handoff.objects.filter(pk=handoff_id, task_id="").update(task_id=task_id)


def run_handoff(handoff_id: int) -> None:
    """The worker's entry point for a durable task: run it, then forget its row; a failure stays on the row."""
    handoff = Handoff.objects.filter(pk=handoff_id, error="").first()
    if handoff is None:
        return  # it ran already, or failed and waits for a person
    try:
        registry.TASKS[handoff.name](*handoff.args)
    except Exception as exc:
        Handoff.objects.filter(pk=handoff_id).update(error=redact(f"{type(exc).__name__}: {exc}").text[:2000])
        raise
    handoff.delete()


def job_progress(job: Job, percent: int, message: str = "", **args: Any) -> None:
    """Visible to the dashboard at once (the worker runs outside any request transaction), and kept in the log; a
    progress point, where a job a person cancelled stops (Cancelled).

    `message` is an untranslated msgid (mark it with gettext_noop) whose %(name)s placeholders come from `args`,
    so the dashboard shows it in the reader's language; `Job.message` keeps the English text."""
    now = timezone.now()
    job.progress = max(0, min(100, int(percent)))
    job.message = (message % args if args else message)[:300]
    job.log = [*(job.log or []), _line(now, job.progress, message, args)][-LOG_LINES:]
    if not Job.objects.filter(pk=job.pk, cancel_requested_at__isnull=True).update(
            progress=job.progress, message=job.message, log=job.log, heartbeat_at=now):
        raise Cancelled(f"job {job.pk} was cancelled")


def _line(at, progress: int, message: str, args: dict) -> dict:
    return {"at": at.isoformat(), "progress": progress, "message": message[:300], "args": args}


def cancel(job: Job) -> bool:
    """A person's cancel: a queued job is cancelled at once and never starts; a running one is asked to stop (it
    does at its next progress point, or at once when it waits on a provider). False when it had finished."""
    now = timezone.now()
    if _note(job.pk, CANCELLED, Q(status=Job.Status.QUEUED), status=Job.Status.CANCELLED, cancel_requested_at=now,
             finished_at=now):
        return True
    return _note(job.pk, CANCELLING, Q(status=Job.Status.RUNNING, cancel_requested_at__isnull=True),
                 cancel_requested_at=now)


def _note(job_id: int, message: str, where: Q, **changes: Any) -> bool:
    """Change a job that is still as `where` says, with `message` as its latest line; False when it no longer is."""
    job = Job.objects.filter(where, pk=job_id).first()
    if job is None:
        return False
    log = [*(job.log or []), _line(timezone.now(), job.progress, message, {})][-LOG_LINES:]
    return bool(Job.objects.filter(where, pk=job_id).update(message=message, log=log, **changes))


@contextmanager
def _watched(job_id: int) -> Iterator[CancelScope]:
    """Run the job's body in a CancelScope that a watcher thread cancels once a person cancels the job."""
    done = threading.Event()

    with CancelScope() as scope:
        def watch() -> None:
            try:
                while not done.wait(WATCH_SECONDS):
                    if Job.objects.filter(pk=job_id, cancel_requested_at__isnull=False).exists():
                        scope.cancel()
                        return
            finally:
                connections.close_all()  # this thread's own connections

        watcher = threading.Thread(target=watch, name=f"job-{job_id}-watch", daemon=True)
        watcher.start()
        try:
            yield scope
        finally:
            done.set()
            watcher.join(WATCH_SECONDS + 5)


def execute(job_id: int) -> None:
    """The worker's entry point for every job."""
    job = Job.objects.filter(pk=job_id).first()
    if job is None or job.status != Job.Status.QUEUED:
        return
    Job.objects.filter(pk=job.pk).update(status=Job.Status.RUNNING, started_at=timezone.now(),
                                         heartbeat_at=timezone.now(), worker=worker_id())
    job.status = Job.Status.RUNNING
    try:
        with _watched(job.pk):
            result = registry.JOBS[job.kind].run(job) or {}
    except Exception as exc:  # recorded for people; the log keeps the traceback
        if isinstance(exc, Cancelled) or Job.objects.filter(pk=job.pk, cancel_requested_at__isnull=False).exists():
            log.info("job %s (%s) cancelled", job.pk, job.kind)
            _note(job.pk, CANCELLED, Q(status=Job.Status.RUNNING), status=Job.Status.CANCELLED,
                  finished_at=timezone.now())
            return
        if isinstance(exc, JobFailed):
            log.warning("job %s (%s) failed: %s", job.pk, job.kind, exc)
            Job.objects.filter(pk=job.pk).update(
                status=Job.Status.FAILED, error=redact(str(exc)).text[:2000], finished_at=timezone.now(),
                result={"failure": {"message": exc.message, "args": redact_value(exc.args_for_message)}})
            return
        log.exception("job %s (%s) failed", job.pk, job.kind)
        Job.objects.filter(pk=job.pk).update(status=Job.Status.FAILED,
                                             error=redact(f"{type(exc).__name__}: {exc}").text[:2000],
                                             finished_at=timezone.now())
        return
    # People read results (an import's preview quotes the source): what the writes redact, the result does too.
    Job.objects.filter(pk=job.pk).update(status=Job.Status.SUCCEEDED, progress=100, result=redact_value(result),
                                         finished_at=timezone.now())


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
        for job_id, worker in Job.objects.filter(status=Job.Status.RUNNING, worker__startswith=prefix)
        .values_list("id", "worker")
        if worker[len(prefix):].isascii() and worker[len(prefix):].isdigit() and not _pid_alive(int(worker[len(prefix):]))
    ]
    cutoff = timezone.now() - timedelta(seconds=max_silence_seconds)
    stale = Job.objects.filter(Q(heartbeat_at__lt=cutoff) | Q(pk__in=dead), status=Job.Status.RUNNING)
    for job_id in stale.filter(cancel_requested_at__isnull=False).values_list("pk", flat=True):
        _note(job_id, CANCELLED, Q(status=Job.Status.RUNNING), status=Job.Status.CANCELLED, finished_at=timezone.now())
    return stale.update(status=Job.Status.FAILED, error=STALE, finished_at=timezone.now())


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
        job_progress(job, (i + 1) * 100 // steps, gettext_noop("step %(step)d of %(steps)d"), step=i + 1, steps=steps)
    return {"steps": steps}
