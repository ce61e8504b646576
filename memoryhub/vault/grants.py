"""Grant lifetimes: a grant lives only as long as the session that asked for it.

A session ends when the agent says so (`/api/v1/sessions/{id}/end`) or when it has been silent
for `SESSION_IDLE_MINUTES`; either way its live grants end and its undecided requests close.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from memoryhub.api.models import AgentSession, ApiToken
from memoryhub.audit.models import record
from memoryhub.vault.models import AccessRequest, Grant


def idle_limit() -> timedelta:
    return timedelta(minutes=settings.MEMORYHUB["SESSION_IDLE_MINUTES"])


def end_session(token, session_id: str, reason: str = "ended") -> int:
    """End every live grant of this token's session and close its pending requests; returns how many grants ended."""
    now = timezone.now()
    AccessRequest.objects.filter(token=token, session_id=session_id, status="pending").update(
        status="closed", decided_at=now)
    live = Grant.objects.filter(request__token=token, session_id=session_id, ended_at__isnull=True,
                                revoked_at__isnull=True)
    ids = list(live.values_list("request_id", flat=True))
    count = live.update(ended_at=now)
    if count:
        actor = token.actor if isinstance(token, ApiToken) else "hub"
        record(actor, "vault.session_end", session_id, reason=reason, requests=ids)
    return count


def end_if_idle(session: AgentSession, now: datetime) -> int:
    """Before a session's idle clock is refreshed: if it was silent too long, it has ended for the vault."""
    if now - session.last_seen_at <= idle_limit():
        return 0
    return end_session(session.token_id, session.session_id, reason="idle")


def session_over(token_id: int | None, session_id: str, now: datetime | None = None) -> bool:
    """True when the session was ended, went idle, or its token is gone."""
    session = AgentSession.objects.filter(token_id=token_id, session_id=session_id).first()
    if token_id is None or session is None or session.ended_at is not None:
        return True
    return (now or timezone.now()) - session.last_seen_at > idle_limit()


def expire_idle() -> int:
    """End grants and close requests of every session that is over; the vault pages sweep on each view."""
    now = timezone.now()
    pairs = set(AccessRequest.objects.filter(status="pending").values_list("token_id", "session_id"))
    pairs |= set(Grant.objects.filter(ended_at__isnull=True, revoked_at__isnull=True)
                 .values_list("request__token_id", "session_id"))
    ended = 0
    for token_id, session_id in pairs:
        if session_over(token_id, session_id, now):
            ended += end_session(token_id, session_id, reason="idle")
    return ended


class OutsideRequest(ValueError):
    """An approval named entries that did not match the request when it was filed."""


@transaction.atomic
def approve(req: AccessRequest, entry_ids: list[int] | None, user) -> Grant:
    """Grant the chosen entries of the request's snapshot (None: the whole snapshot), never more."""
    snapshot = set(req.entries.values_list("pk", flat=True))
    if entry_ids is not None and not set(entry_ids) <= snapshot:
        raise OutsideRequest(sorted(set(entry_ids) - snapshot))
    chosen = list(req.entries.live().filter(pk__in=snapshot if entry_ids is None else entry_ids)
                  .values_list("pk", flat=True))
    now = timezone.now()
    grant = Grant.objects.create(request=req, session_id=req.session_id, created_at=now)
    grant.entries.set(chosen)
    AccessRequest.objects.filter(pk=req.pk).update(status="approved", decided_at=now, decided_by=user)
    record(user.get_username(), "vault.grant", req.id, user=user, session=req.session_id, entries=sorted(chosen))
    return grant


def deny(req: AccessRequest, user) -> None:
    AccessRequest.objects.filter(pk=req.pk).update(status="denied", decided_at=timezone.now(), decided_by=user)
    record(user.get_username(), "vault.deny", req.id, user=user, session=req.session_id,
           entries=sorted(req.entries.values_list("pk", flat=True)))


def revoke(grant: Grant, user) -> None:
    Grant.objects.filter(pk=grant.pk).update(revoked_at=timezone.now(), revoked_by=user)
    record(user.get_username(), "vault.revoke", grant.request_id, user=user, session=grant.session_id,
           entries=sorted(grant.entries.values_list("pk", flat=True)))
