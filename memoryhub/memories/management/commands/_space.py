"""The one helper every maintenance command shares: a space by slug, or a clear error."""

from django.core.management.base import CommandError

from memoryhub.spaces.models import MemorySpace


def native_space(slug: str) -> MemorySpace:
    space = MemorySpace.objects.filter(slug=slug).first()
    if space is None:
        raise CommandError(f"no space {slug!r}")
    if not space.is_native:
        raise CommandError(f"{slug} lives in {space.provider}; only native spaces have this maintenance")
    return space
