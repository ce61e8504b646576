"""What every agent's hooks do with the hub, each within its bound: fetch the block to inject, archive turns, end
a session.

Reads give up after `inject_timeout` and inject nothing. Writes are put in the on-disk spool (synced) before any
network call, then sent for at most `archive_timeout`; whatever is still queued then is left to a background
sender (`memoryhub-hook drain`, detached from the agent, one at a time) and to every later hook run, which adopt
the spool in the order it was written. Turns carry an idempotency key per message, so a turn sent twice is
written once.
"""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable, TypeVar

from memoryhub_client.client import MemoryHubClient
from memoryhub_client.delivery import TURN_RUN, Delivery
from memoryhub_client.errors import MemoryHubError
from memoryhub_client.hooks.config import HookSettings
from memoryhub_client.outbox import Outbox
from memoryhub_client.spool import Job, Spool, new_seq, try_lock

log = logging.getLogger("memoryhub.hook")
T = TypeVar("T")
DRAIN_ROUND = 30.0  # the background sender re-reads the spool (adopting newer files) this often
RETRY_MAX_DELAY = 5.0  # a hub that comes back is noticed within this (a refused connection costs nothing)


@dataclass
class Turn:
    """One finished exchange, as an agent's transcript or hook payload has it."""

    key: str  # unique per message: the hub's idempotency key
    user: str
    assistant: str
    at: str | None = None
    start: int = 0  # where its first line begins in the agent's log: a later read may begin there


def read_jsonl(path: Any, start: int = 0) -> tuple[list[tuple[int, dict[str, Any]]], int]:
    """An agent's log from byte `start` on: (offset, record) per JSON object line, and where the next read should
    begin (before a last line still being written). A log shorter than `start` was replaced: read it whole."""
    if not path:
        return [], 0
    try:
        with open(Path(str(path)).expanduser(), "rb") as f:
            if start > os.fstat(f.fileno()).st_size:
                start = 0
            f.seek(start)
            data = f.read()
    except OSError as exc:
        log.warning("cannot read the agent's log: %s", exc)
        return [], start
    records, offset = [], start
    for raw in data.splitlines(keepends=True):
        try:
            record = json.loads(raw)
        except ValueError:
            record = None
        if isinstance(record, dict):
            records.append((offset, record))
        if not raw.endswith(b"\n"):
            break  # the agent is still writing it: read it again next time
        offset += len(raw)
    return records, offset


def bounded(seconds: float, work: Callable[[], T], default: T) -> T:
    """`work()` if it finishes within `seconds`, else `default` (the work goes on in a daemon thread, which dies
    with the hook's process)."""
    result: list[T] = []

    def run() -> None:
        try:
            result.append(work())
        except Exception:  # a hook never lets an error reach the agent; the log has it
            log.exception("a call to the hub failed")

    thread = threading.Thread(target=run, name="memoryhub-hook", daemon=True)
    thread.start()
    thread.join(seconds)
    return result[0] if result else default


class Hub:
    def __init__(self, settings: HookSettings):
        self.settings = settings
        self.client = MemoryHubClient(settings.url, settings.token,
                                      timeout=max(settings.inject_timeout, settings.archive_timeout))

    @property
    def configured(self) -> bool:
        return bool(self.settings.token)

    def context(self, session_id: str, query: str, *, workspace: str | None, notebooks: bool = True) -> str:
        """The block to inject, or "" when the hub does not answer within inject_timeout."""
        if not self.configured:
            log.warning("no token: set MEMORYHUB_TOKEN or run `memoryhub-hook setup`")
            return ""
        started = time.monotonic()

        def ask() -> str:
            try:
                return self.client.context(session_id, query, space=self.settings.space, workspace=workspace,
                                           notebooks=notebooks, timeout=self.settings.inject_timeout)["text"]
            except MemoryHubError as exc:
                log.warning("context for session %s: %s", short(session_id), exc)
                return ""

        text = bounded(self.settings.inject_timeout, ask, "")
        log.info("context for session %s: %d chars in %.0f ms", short(session_id), len(text),
                 (time.monotonic() - started) * 1000)
        return text

    def archive(self, session_id: str, turns: list[Turn], *, workspace: str | None, end: bool = False) -> int:
        """Spool the turns (and the session's end after them), then send what the bound allows; returns how many
        writes are still waiting."""
        jobs = [self._job("turn", session_id, workspace, id=t.key, user=t.user, assistant=t.assistant,
                          at=t.at or now()) for t in turns]
        if end:
            jobs.append(self._job("end", session_id, workspace, id=f"end:{session_id}:{new_seq()}"))
        if not jobs:
            return 0
        left = self.send(jobs, self.settings.archive_timeout)
        log.info("session %s: %d writes spooled, %d still waiting", short(session_id), len(jobs), left)
        if left and self.configured:
            spawn_drainer()
        return left

    def _job(self, kind: str, session_id: str, workspace: str | None, **fields: Any) -> Job:
        job = {"seq": new_seq(), "kind": kind, "session_id": session_id, "at": now(), **fields}
        if workspace:
            job["workspace"] = workspace
        return job

    def send(self, jobs: list[Job], seconds: float) -> int:
        """Queue `jobs` behind what the spool already holds and send for at most `seconds`; returns how many
        writes wait (those refused for themselves are held in the spool, as the provider holds them)."""
        delivery = Delivery(self.client, space=self.settings.space)
        outbox = Outbox(Spool(self.settings.spool), delivery.send, on_setup_problem=self._setup_problem,
                        report=log.warning, retry_max_delay=RETRY_MAX_DELAY, run_size=TURN_RUN)
        outbox.start()
        try:
            for job in jobs:
                outbox.put(job)
            if self.configured:
                outbox.flush(seconds)
            return outbox.queued()
        finally:
            outbox.stop(0.2)

    @staticmethod
    def _setup_problem(exc: MemoryHubError | None) -> None:
        if exc is not None:
            log.warning("the hub refuses this set-up (%s); writes wait in the spool. `memoryhub-hook check` "
                        "says which setting to change", exc)


def drain(settings: HookSettings) -> int:
    """The background sender: keeps sending what the spool holds until it is empty or drain_seconds have passed.
    One at a time (a lock in the hook's home); returns how many writes still wait."""
    hub = Hub(settings)
    lock = _drain_lock(settings) if hub.configured else None
    if lock is None:
        return -1
    deadline = time.monotonic() + settings.drain_seconds
    left = 0
    try:
        while time.monotonic() < deadline:
            left = hub.send([], min(DRAIN_ROUND, max(0.0, deadline - time.monotonic())))
            if not left:
                break
        log.info("background sender done, %d writes still waiting", left)
        return left
    finally:
        lock.close()


def _drain_lock(settings: HookSettings):
    settings.home.mkdir(mode=0o700, parents=True, exist_ok=True)
    return try_lock(settings.home / "drain.lock")


def spawn_drainer() -> None:
    """Start `memoryhub-hook drain` detached from the agent: own session, no inherited pipes (an agent waits for
    a hook's output to close, so the sender must not hold it)."""
    try:
        subprocess.Popen([sys.executable, "-m", "memoryhub_client.hooks", "drain"], stdin=subprocess.DEVNULL,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
                         close_fds=True, env=dict(os.environ))
    except OSError:
        log.exception("could not start the background sender; the next hook run sends the spool")


def now() -> str:
    return datetime.now(timezone.utc).isoformat()


def short(session_id: str) -> str:
    """Enough of a session id to follow it in the log."""
    return session_id[:12]
