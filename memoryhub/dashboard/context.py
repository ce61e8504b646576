"""Template context shared by every dashboard page: the sidebar's vault signals."""

from __future__ import annotations

from django.db.models import F, Q
from django.http import HttpRequest


def sidebar(request: HttpRequest) -> dict:
    user = getattr(request, "user", None)
    if not (user and user.is_authenticated) or request.path.startswith("/api/"):
        return {}
    return {"pending_requests": pending_requests(), "vault_unseen": vault_unseen}


def pending_requests() -> int:
    from memoryhub.vault.models import AccessRequest

    return AccessRequest.objects.filter(status=AccessRequest.Status.PENDING).count()


def vault_unseen() -> bool:
    """True when a vault space got new memories since a person last looked at the vault pages (a callable: the
    template asks only where it shows the dot)."""
    from memoryhub.spaces.models import MemorySpace

    return MemorySpace.objects.filter(access=MemorySpace.Access.VAULT, last_write_at__isnull=False).filter(
        Q(last_seen_at__isnull=True) | Q(last_seen_at__lt=F("last_write_at"))).exists()
