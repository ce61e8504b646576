"""Grant lifetimes: a grant lives only as long as the session that asked for it.

A session ends when the agent says so or when it has been silent for `SESSION_IDLE_MINUTES`
(memoryhub.agents.sessions decides both and sends `session_ended`); either way its live grants end
and its undecided requests close.
"""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from memoryhub.agents import sessions
from memoryhub.audit.models import record
from memoryhub.vault.models import AccessRequest, Grant


def end_session(token_id: int | None, session_id: str, reason: str = "ended", actor: str = "hub", **_) -> int:
    """End every live grant of this token's session and close its pending requests; returns how many grants ended.

    The receiver of agents' `session_ended`."""
    now = timezone.now()
    AccessRequest.objects.filter(token_id=token_id, session_id=session_id, status=AccessRequest.Status.PENDING).update(
        status=AccessRequest.Status.CLOSED, decided_at=now)
    live = Grant.objects.filter(request__token_id=token_id, session_id=session_id, ended_at__isnull=True,
                                revoked_at__isnull=True)
    ids = list(live.values_list("request_id", flat=True))
    count = live.update(ended_at=now)
    if count:
        record(actor, "vault.session_end", session_id, reason=reason, requests=ids)
    return count


def expire_idle() -> int:
    """End grants and close requests of every session that is over; the vault pages sweep on each view."""
    now = timezone.now()
    pairs = set(AccessRequest.objects.filter(status=AccessRequest.Status.PENDING).values_list("token_id", "session_id"))
    pairs |= set(Grant.objects.filter(ended_at__isnull=True, revoked_at__isnull=True)
                 .values_list("request__token_id", "session_id"))
    return sum(sessions.expire(token_id, session_id) for token_id, session_id in pairs
               if sessions.is_over(token_id, session_id, now))


# What an agent is told a request matched: always this. Any count that moves with the vault is an oracle: by its
# words it tests the vault's text, by its category or time range (bisected) it dates an entry to the second,
# by nothing at all it tells when someone wrote. The person deciding sees the matches; the agent learns how
# many were opened once they decide (memory_status).
MATCHED_FOR_AGENTS = 0


def file_request(token, session_id: str, criteria: dict, spaces: list, entry_ids: list[int]) -> AccessRequest:
    """An agent's request over what matched its criteria now; it waits for a person even when nothing matched
    (closing it at once would tell the agent so)."""
    with transaction.atomic():
        req = AccessRequest.objects.create(token=token, session_id=session_id, criteria=criteria,
                                           matched=len(entry_ids), status=AccessRequest.Status.PENDING)
        req.spaces.set(spaces)
        req.entries.set(entry_ids)
        record(token.actor, "vault.request", req.id, session=session_id, criteria=criteria, entries=entry_ids)
    return req


def read(grant: Grant, actor: str) -> list:
    """The granted entries still live, newest first; the read is logged."""
    entries = list(grant.entries.live().order_by("-at", "-id"))
    with transaction.atomic():
        Grant.objects.filter(pk=grant.pk).update(last_read_at=timezone.now())
        record(actor, "vault.read", grant.request_id, session=grant.session_id, entries=[e.pk for e in entries])
    return entries


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
    AccessRequest.objects.filter(pk=req.pk).update(status=AccessRequest.Status.APPROVED, decided_at=now,
                                                   decided_by=user)
    record(user.get_username(), "vault.grant", req.id, user=user, session=req.session_id, entries=sorted(chosen),
           before={"status": req.status}, after={"status": AccessRequest.Status.APPROVED})
    return grant


def deny(req: AccessRequest, user) -> None:
    AccessRequest.objects.filter(pk=req.pk).update(status=AccessRequest.Status.DENIED, decided_at=timezone.now(),
                                                   decided_by=user)
    record(user.get_username(), "vault.deny", req.id, user=user, session=req.session_id,
           entries=sorted(req.entries.values_list("pk", flat=True)),
           before={"status": req.status}, after={"status": AccessRequest.Status.DENIED})


def revoke(grant: Grant, user) -> None:
    Grant.objects.filter(pk=grant.pk).update(revoked_at=timezone.now(), revoked_by=user)
    record(user.get_username(), "vault.revoke", grant.request_id, user=user, session=grant.session_id,
           entries=sorted(grant.entries.values_list("pk", flat=True)), before={"revoked": False},
           after={"revoked": True})
