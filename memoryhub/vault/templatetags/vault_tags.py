"""The sidebar's vault signal."""

from __future__ import annotations

from django import template
from django.db.models import F, Q

from memoryhub.spaces.models import MemorySpace

register = template.Library()


@register.simple_tag
def vault_unseen() -> bool:
    """True when a vault space got new memories since a person last looked at the vault pages."""
    return MemorySpace.objects.filter(access="vault", last_write_at__isnull=False).filter(
        Q(last_seen_at__isnull=True) | Q(last_seen_at__lt=F("last_write_at"))).exists()
