"""What the worker may run, registered by each app in its AppConfig.ready() and nowhere else.

Two kinds of work: a *job* is something people watch (a Job row with progress, retry, the jobs
page), run as `(job) -> dict`; a *task* is the hub's own quick background work (the worker's
enrichment run, the periodic sweeps) that leaves no row. django-q2 stores a task's dotted path
in its queue and in Schedule rows, so a task keeps the path it is registered under; moving one
needs a migration that points its schedule at the new path (memories/migrations/0014).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable


@dataclass(frozen=True)
class JobKind:
    kind: str
    label: str
    run: Callable[[Any], dict]


JOBS: dict[str, JobKind] = {}
TASKS: dict[str, Callable[..., Any]] = {}
DURABLE: set[str] = set()  # tasks whose loss would lose work nothing else redoes: each hand-off is a row


def job(kind: str, label: str, run: Callable[[Any], dict]) -> None:
    """Register a job kind: `runner.enqueue(kind)` makes its row, the worker calls `run(job)`."""
    JOBS[kind] = JobKind(kind, label, run)


def task(name: str, run: Callable[..., Any], *, durable: bool = False) -> None:
    """Register a task: `runner.submit(name, *args)` queues `run(*args)` without a Job row.

    A durable task's hand-off is kept (jobs.models.Handoff) until it has run, so a broker that was down loses
    nothing; use it for work no sweep would find again (a sweep that re-derives its work needs no row)."""
    TASKS[name] = run
    if durable:
        DURABLE.add(name)


def path(func: Callable[..., Any]) -> str:
    """The dotted path django-q2 stores for a function."""
    return f"{func.__module__}.{func.__qualname__}"


def task_paths() -> set[str]:
    return {path(run) for run in TASKS.values()}
