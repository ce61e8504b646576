"""Template context shared by every dashboard page: the sidebar's vault signals."""

from __future__ import annotations

from django.db.models import F, Q
from django.http import HttpRequest

from memoryhub.access import people
from memoryhub.access.people import Perm


def sidebar(request: HttpRequest) -> dict:
    """Only for a person who may decide vault requests: the signals say something about what the vault holds."""
    if not hasattr(request, "user") or request.path.startswith("/api/"):
        return {}
    if not people.person(request).may(Perm.VAULT_DECIDE):
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
