"""Keep `serve`'s children running: restart one that dies (with backoff), and leave nothing behind.

Each child runs in a process group of its own (its own session), so everything it starts — gunicorn's
workers, django-q's sentinel, workers, monitor and pusher — shares its group and ends with it. When a
child dies, whatever it left in its group is stopped before the child is started again: an orphaned
gunicorn worker would otherwise keep answering on its SO_REUSEPORT socket beside the new one, and the
workers of a dead django-q sentinel kept running jobs with nobody watching them. On Linux each child
also gets PR_SET_PDEATHSIG, so a `serve` killed outright (SIGKILL, the OOM killer) still takes its
children with it.
"""

from __future__ import annotations

import ctypes
import logging
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

log = logging.getLogger("memoryhub.serve")

FIRST_DELAY = 0.5  # seconds before the first restart; doubled after each quick death, up to MAX_DELAY
MAX_DELAY = 30.0
STEADY = 30.0  # a child that ran this long had started fine: its next restart comes quickly again
GIVE_UP = 5  # quick deaths in a row (each within STEADY of starting) after which serve stops
ORPHAN_GRACE = 3.0  # seconds a dead child's group gets to end on SIGTERM before SIGKILL
PR_SET_PDEATHSIG = 1


_libc = ctypes.CDLL(None, use_errno=True) if sys.platform == "linux" else None


def set_parent_death_signal(signum: int = signal.SIGTERM) -> None:
    """Ask Linux to send this process `signum` when its parent dies (no-op elsewhere)."""
    if _libc is not None:
        _libc.prctl(PR_SET_PDEATHSIG, int(signum), 0, 0, 0)


def _child_setup() -> None:
    """Runs in the forked child before exec (after its new session): die with `serve`."""
    set_parent_death_signal(signal.SIGTERM)


def describe_exit(code: int) -> str:
    if code < 0:
        try:
            return f"killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"killed by signal {-code}"
    return f"exited with {code}"


def group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def signal_group(pgid: int, signum: int) -> None:
    try:
        os.killpg(pgid, signum)
    except (ProcessLookupError, PermissionError):
        pass


@dataclass
class Child:
    """One supervised command: its process, when it started, how often it died quickly in a row."""

    name: str
    argv: list[str]
    cwd: Path
    proc: subprocess.Popen | None = None
    started: float = 0.0
    quick_deaths: int = 0
    restart_at: float | None = None
    restarts: int = 0

    def start(self) -> None:
        self.proc = subprocess.Popen(self.argv, cwd=self.cwd, start_new_session=True, preexec_fn=_child_setup)
        self.started = time.monotonic()
        self.restart_at = None

    @property
    def pgid(self) -> int:
        return self.proc.pid  # the leader of its own session


@dataclass
class Supervisor:
    children: list[Child]
    tick: float = 0.2
    orphans: dict[int, float] = field(default_factory=dict)  # process group -> when to SIGKILL what is left
    stopping: bool = False

    def run(self, ready: Callable[[], None] = lambda: None) -> int:
        """Start every child and keep them running until SIGINT or SIGTERM (or a child cannot start)."""
        for child in self.children:
            child.start()
        ready()

        def stop(signum, frame):
            self.stopping = True

        signal.signal(signal.SIGINT, stop)
        signal.signal(signal.SIGTERM, stop)
        exit_code = 0
        while not self.stopping:
            now = time.monotonic()
            for child in self.children:
                if child.restart_at is None and child.proc.poll() is not None:
                    if not self._died(child, now):
                        exit_code, self.stopping = 1, True
                        break
                elif child.restart_at is not None and now >= child.restart_at:
                    child.restarts += 1
                    child.start()
                    log.warning("%s started again (pid %d, restart %d)", child.name, child.proc.pid, child.restarts)
            self._reap_orphans(now)
            time.sleep(self.tick)
        self.shutdown()
        return exit_code

    def _died(self, child: Child, now: float) -> bool:
        """A child exited on its own: stop what it left behind and schedule its restart. False: give up."""
        ran = now - child.started
        child.quick_deaths = child.quick_deaths + 1 if ran < STEADY else 0
        if group_alive(child.pgid):  # its workers outlived it
            signal_group(child.pgid, signal.SIGTERM)
            self.orphans[child.pgid] = now + ORPHAN_GRACE
        if child.quick_deaths >= GIVE_UP:
            log.error("%s %s %d times in a row within %.0f s of starting; stopping", child.name,
                      describe_exit(child.proc.returncode), child.quick_deaths, STEADY)
            return False
        delay = min(MAX_DELAY, FIRST_DELAY * 2 ** max(0, child.quick_deaths - 1))
        child.restart_at = now + delay
        log.warning("%s (pid %d) %s after %.1f s; starting it again in %.1f s", child.name, child.proc.pid,
                    describe_exit(child.proc.returncode), ran, delay)
        return True

    def _reap_orphans(self, now: float) -> None:
        for pgid, kill_at in list(self.orphans.items()):
            if not group_alive(pgid):
                del self.orphans[pgid]
            elif now >= kill_at:
                log.warning("process group %d did not end on SIGTERM; killing it", pgid)
                signal_group(pgid, signal.SIGKILL)

    def shutdown(self, timeout: float = 20.0) -> None:
        """SIGTERM each child (gunicorn stops its workers, qcluster its sentinel), then SIGKILL whatever is left
        in their groups, and wait until every group is empty.

        Only the leader gets the SIGTERM: signalling qcluster's whole group at once left it hanging."""
        running = [c for c in self.children if c.proc is not None]
        for child in running:
            if child.proc.poll() is None:
                child.proc.send_signal(signal.SIGTERM)
        deadline = time.monotonic() + timeout
        for child in running:
            try:
                child.proc.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                log.warning("%s did not stop in %.0f s; killing it", child.name, timeout)
        groups = {c.pgid for c in running} | set(self.orphans)
        for pgid in groups:
            if group_alive(pgid):
                signal_group(pgid, signal.SIGKILL)
        for child in running:
            if child.proc.poll() is None:
                child.proc.wait()
        settle = time.monotonic() + 5
        while any(group_alive(g) for g in groups) and time.monotonic() < settle:
            time.sleep(0.05)
        left = [g for g in groups if group_alive(g)]
        if left:
            log.error("processes of group(s) %s are still running", ", ".join(map(str, left)))
