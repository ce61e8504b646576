"""Agent sessions: the one service that sees, ends and expires them, and runs an agent's tool call in one.

A session ends when the agent says so (`POST /api/v1/sessions/{id}/end`, an MCP DELETE) or, for
whatever is bound to it, when it has been silent for `SESSION_IDLE_MINUTES`. Either way
`session_ended` is sent; the vault listens and ends the session's grants. This app knows nothing of
the vault: a receiver returns how many things the end released, and `end()` answers with the sum.
"""

from __future__ import annotations

import time
from datetime import datetime, timedelta
from typing import Callable, TypeVar

from django.conf import settings
from django.dispatch import Signal
from django.utils import timezone

from memoryhub.agents.models import AgentSession, ApiToken
from memoryhub.core import background

T = TypeVar("T")

# Sent with token_id, session_id, reason ("ended" | "idle") and actor (who ended it, for the audit log).
session_ended = Signal()

REFRESH_AFTER = timedelta(seconds=30)  # how stale the stored idle clock may get before a call moves it
SEEN_FOR = 20  # seconds a process trusts its own refresh of a session (the stored clock moves every 30 s)
_seen: dict[tuple[int, str], float] = {}  # (token id, session id) -> when this process refreshed it


def idle_limit() -> timedelta:
    return timedelta(minutes=settings.MEMORYHUB["SESSION_IDLE_MINUTES"])


def touch(token: ApiToken, session_id: str) -> None:
    """Keep the session alive, skipping the database when this process refreshed it moments ago.

    For a turn, which needs no session row: looking it up cost a tenth of the turn."""
    refreshed = _seen.get((token.pk, session_id))
    if refreshed is None or time.monotonic() - refreshed > SEEN_FOR:
        see(token, session_id)


def see(token: ApiToken, session_id: str) -> AgentSession:
    """The agent session, created on first sight; refreshes its idle clock (after expiring it if it was idle).

    Creating and refreshing the row is bookkeeping (core/background.best_effort): a read never waits for
    the write lock for it nor fails with it. Seen while another writer holds the lock, a new session is
    answered unsaved and written a moment later; an idle one stays idle (its grants refused) until then."""
    if len(_seen) > 10_000:
        _seen.clear()
    _seen[(token.pk, session_id)] = time.monotonic()
    now = timezone.now()
    session = AgentSession.objects.filter(token=token, session_id=session_id).first()
    if session is None:
        opened: list[AgentSession] = []
        background.best_effort(_open, token, session_id, opened)
        return opened[0] if opened else AgentSession(token=token, session_id=session_id, started_at=now,
                                                     last_seen_at=now)
    if now - session.last_seen_at > REFRESH_AFTER:
        background.best_effort(_refresh, session.pk, session.token_id, session.session_id,
                               now - session.last_seen_at > idle_limit(), now)
    return session


def _open(token: ApiToken, session_id: str, opened: list[AgentSession]) -> None:
    opened.append(AgentSession.objects.get_or_create(token=token, session_id=session_id)[0])


def _refresh(pk: int, token_id: int, session_id: str, was_idle: bool, now: datetime) -> None:
    """The idle clock moves; a session that had gone idle first ends what was bound to it (in the same transaction)."""
    if was_idle:
        expire(token_id, session_id)
    AgentSession.objects.filter(pk=pk).update(last_seen_at=now)


def keep_snapshot(session: AgentSession) -> None:
    """Keep what /context froze for the session (notebooks/hot.freeze), as bookkeeping like the session row."""
    background.best_effort(_keep_snapshot, session.token_id, session.session_id, dict(session.snapshot))


def _keep_snapshot(token_id: int, session_id: str, snapshot: dict) -> None:
    AgentSession.objects.update_or_create(token_id=token_id, session_id=session_id, defaults={"snapshot": snapshot})


def end(token: ApiToken, session_id: str) -> int:
    """The agent closed the session: mark it ended, for good; returns how many things its end released (vault
    grants). A session the hub never saw gets its row, ended: without one, a later call with its id would open
    it afresh."""
    now = timezone.now()
    if not AgentSession.objects.filter(token=token, session_id=session_id, ended_at__isnull=True).update(ended_at=now):
        AgentSession.objects.get_or_create(token=token, session_id=session_id,
                                           defaults={"started_at": now, "last_seen_at": now, "ended_at": now})
    return _announce(token.pk, session_id, "ended", token.actor)


def expire(token_id: int | None, session_id: str) -> int:
    """The session went silent past the idle limit: what is bound to it ends (the row stays; the agent may return)."""
    return _announce(token_id, session_id, "idle", "hub")


def _announce(token_id: int | None, session_id: str, reason: str, actor: str) -> int:
    answers = session_ended.send(AgentSession, token_id=token_id, session_id=session_id, reason=reason, actor=actor)
    return sum(count or 0 for _, count in answers)


def is_over(token_id: int | None, session_id: str, now: datetime | None = None) -> bool:
    """True when the session was ended, went idle, or its token is gone."""
    session = AgentSession.objects.filter(token_id=token_id, session_id=session_id).first()
    if token_id is None or session is None or session.ended_at is not None:
        return True
    return (now or timezone.now()) - session.last_seen_at > idle_limit()


def run(token: ApiToken, session_id: str, work: Callable[[], T]) -> T:
    """An agent's tool call, the one path for /api/v1/tools and /mcp: the session is seen, then `work` runs.

    No transaction wraps the whole call: each handler writes in one transaction of its own, around
    its statements only (the write gateway, a vault request, a fact change, a notebook batch). One
    around the call would hold SQLite's single write lock through searches and provider I/O (the
    load bench ran 25-30 % slower with it, docs/architecture.md) and would roll back the record of a
    remote write whose outcome is unknown, which must survive the error the agent gets.
    """
    see(token, session_id)
    return work()
