"""Calls to outside services made at once, under one deadline for all of them.

A read across several third-party spaces, or a batch of writes into them, must not cost one provider
timeout per call, one after another. `start()` runs each call on a thread of its own (at most `workers`
at a time) and returns at once, so the caller can do its own work meanwhile; `collect()` waits until all
are done or the deadline passes. What is still running then is cancelled (every HttpClient it made, by
its CancelScope) and reported as late; what never got a thread is reported as not started. A call must
not use the ORM: the caller reads and writes the database itself, before and after.
"""

from __future__ import annotations

import contextvars
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import wait as wait_for
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from django.db import connections

from memoryhub.core.http import CancelScope

T = TypeVar("T")
DONE, FAILED, LATE, NOT_STARTED = "done", "failed", "late", "not_started"


@dataclass
class Outcome(Generic[T]):
    state: str  # done | failed | late | not_started
    value: T | None = None
    error: BaseException | None = None


class Pending(Generic[T]):
    """Calls under way; `collect()` once."""

    def __init__(self, calls: list[Callable[[], T]], deadline: float | None, workers: int):
        self.deadline = deadline
        self.until = None if deadline is None else time.monotonic() + deadline
        self._scopes = [CancelScope.child() for _ in calls]
        self._pool = ThreadPoolExecutor(max_workers=max(1, min(workers, len(calls))), thread_name_prefix="fanout")
        self._futures: list[Future] = [self._pool.submit(self._run, scope, call)
                                       for scope, call in zip(self._scopes, calls)]

    @staticmethod
    def _run(scope: CancelScope, call: Callable[[], T]) -> T:
        def inside() -> T:
            with scope:
                return call()

        try:
            return contextvars.copy_context().run(inside)
        finally:
            connections.close_all()  # a call should not touch the ORM; if it did, close what it opened

    def collect(self) -> list[Outcome[T]]:
        """Wait for every call, at most until the deadline; cancel the late ones. One outcome per call, in order."""
        remaining = None if self.until is None else max(0.0, self.until - time.monotonic())
        wait_for(self._futures, timeout=remaining)
        for future in self._futures:  # first stop what never started: a late call cancelled below frees its
            future.cancel()           # thread, which must not then pick up one of these
        outcomes: list[Outcome[T]] = []
        for scope, future in zip(self._scopes, self._futures):
            if future.cancelled():
                outcomes.append(Outcome(NOT_STARTED))
            elif future.done():
                error = future.exception()
                outcomes.append(Outcome(FAILED, error=error) if error else Outcome(DONE, value=future.result()))
            else:
                scope.cancel()
                outcomes.append(Outcome(LATE))
        self._pool.shutdown(wait=False, cancel_futures=True)
        return outcomes


def start(calls: list[Callable[[], Any]], *, deadline: float | None, workers: int = 8) -> Pending:
    """Start `calls` at once (at most `workers` at a time); `deadline` seconds from now for all (None: no limit)."""
    return Pending(calls, deadline, workers)
