"""The outbox: writes are spooled before the agent's call returns, then sent in order by one thread.

What becomes of a write the hub did not take:
- the hub is down, busy or failing (`retryable`): sent again after a backoff (the hub's Retry-After when it gives
  one), and every later write waits behind it, so the order holds;
- refused for the setup (token, space, workspace: `about_setup`): the same, more slowly, and reported as the
  provider's problem, since every later write would be refused alike until a person fixes it;
- refused for itself (too large, text the hub will not take): held — kept in the spool, reported, and offered
  again at the next start — while later writes go on. A write the hub fails on with a server error
  SERVER_ERROR_TRIES times in a row is held too, so one poison write cannot stall the ones behind it.

`send` gets a run of jobs and returns one outcome per job it settled (None once delivered), stopping after the
first retryable or setup refusal; jobs past the outcomes stay queued for the next run. The provider sends the
turns at the head of a run as one batch request.
"""

from __future__ import annotations

import collections
import logging
import threading
from typing import Callable

from memoryhub_client.errors import MemoryHubError
from memoryhub_client.spool import Job, Spool

log = logging.getLogger(__name__)
FIRST_DELAY = 0.25
SERVER_ERROR_TRIES = 5
Outcome = MemoryHubError | None


class Outbox:
    """One spool, one sending thread; `report(message)` tells the host what it must know."""

    def __init__(self, spool: Spool, send: Callable[[list[Job]], list[Outcome]], *,
                 on_setup_problem: Callable[[MemoryHubError | None], None], report: Callable[[str], None],
                 retry_max_delay: float = 30.0, run_size: int = 1):
        self.spool = spool
        self._send = send
        self._on_setup_problem = on_setup_problem
        self._report = report
        self.retry_max_delay = retry_max_delay
        self.run_size = run_size
        self._queue: collections.deque[Job] = collections.deque()
        self.held: list[Job] = []
        self.last_error: MemoryHubError | None = None
        self._server_errors = 0  # in a row, for the write first in line
        self._sending = False
        self._stop = threading.Event()
        self._changed = threading.Condition()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        """Queue what earlier runs left (held writes are offered again) and start sending."""
        self._queue.extend(self.spool.open())
        self._stop.clear()
        self._thread = threading.Thread(target=self._run, name="memoryhub-sync", daemon=True)
        self._thread.start()

    def put(self, job: Job) -> None:
        with self._changed:
            self.spool.add(job)
            self._queue.append(job)
            self._changed.notify_all()

    def flush(self, timeout: float) -> bool:
        """Wait up to `timeout` seconds for every queued write to be sent; True when all reached the hub."""
        with self._changed:
            self._changed.wait_for(lambda: not self._queue and not self._sending, timeout)
            return not self._queue and not self._sending and not self.held

    def discard(self, job_id: str) -> bool:
        """Give up on a held write (a person decided it is not needed); False when no held write has that id."""
        with self._changed:
            for job in self.held:
                if job["id"] == job_id:
                    self.held.remove(job)
                    self.spool.done(job_id)
                    return True
        return False

    def queued(self) -> int:
        with self._changed:
            return len(self._queue)

    def stop(self, timeout: float) -> None:
        """Stop sending; what is still queued stays in the spool for the next start."""
        self._stop.set()
        with self._changed:
            self._changed.notify_all()
        if self._thread is not None:
            self._thread.join(timeout)
        self.spool.close()

    def _next_run(self) -> list[Job] | None:
        with self._changed:
            self._changed.wait_for(lambda: self._queue or self._stop.is_set())
            if self._stop.is_set():
                return None
            self._sending = True
            return list(self._queue)[:self.run_size]

    def _run(self) -> None:
        delay = FIRST_DELAY
        while (jobs := self._next_run()) is not None:
            try:
                outcomes = self._send(jobs)
            except Exception as exc:  # a bug must not stop the thread: hold the write, say so
                log.exception("memoryhub: sending a %s failed in the client", jobs[0]["kind"])
                outcomes = [MemoryHubError("client_error", f"{type(exc).__name__}: {exc}")]
            was_setup = self.last_error is not None and self.last_error.about_setup
            retry, refused = self._settle(jobs, outcomes)
            for job in refused:  # the host hears of it outside the lock: reporting may take its time
                self._report(f"memoryhub refused a {job['kind']} of session {job['session_id']!r} and keeps it in "
                             f"{self.spool.path} (id {job['id']}): {job['held']['code']}: {job['held']['message']}")
            if retry is not None and retry.about_setup:
                self._on_setup_problem(retry)
            elif was_setup and retry is None:
                self._on_setup_problem(None)
            if retry is None:
                delay = FIRST_DELAY
                continue
            wait = retry.retry_after if retry.retry_after is not None else delay
            log.info("memoryhub %s not delivered yet (%s); retrying in %.1fs", jobs[0]["kind"], retry, wait)
            if self._stop.wait(wait):
                return
            delay = min(delay * 2, self.retry_max_delay)

    def _settle(self, jobs: list[Job], outcomes: list[Outcome]) -> tuple[MemoryHubError | None, list[Job]]:
        """Record each outcome: (the error to retry after, if the run stopped at one; the writes now held)."""
        refused: list[Job] = []
        with self._changed:
            try:
                for job, outcome in zip(jobs, outcomes):
                    if outcome is not None and outcome.code == "internal":
                        self._server_errors += 1
                    if outcome is not None and (outcome.retryable or outcome.about_setup) and not (
                            outcome.code == "internal" and self._server_errors >= SERVER_ERROR_TRIES):
                        self.last_error = outcome
                        return outcome, refused
                    self._server_errors = 0
                    self._queue.popleft()
                    if outcome is None:
                        self.spool.done(job["id"])
                    else:
                        job["held"] = outcome.as_dict()
                        self.spool.held(job["id"], job["held"])
                        self.held.append(job)
                        refused.append(job)
                    self.last_error = None
                return None, refused
            finally:
                self._sending = False
                self._changed.notify_all()
