"""Grant lifetimes: a grant lives only as long as the session that asked for it."""

from __future__ import annotations

from django.utils import timezone

from memoryhub.vault.models import Grant


def end_session(token, session_id: str) -> int:
    """End every live grant of this token's session; returns how many ended."""
    return Grant.objects.filter(
        request__token=token, session_id=session_id, ended_at__isnull=True, revoked_at__isnull=True
    ).update(ended_at=timezone.now())
