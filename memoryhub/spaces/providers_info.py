"""What the hub knows about providers: which are available, how they and spaces are listed, smart selection."""

from __future__ import annotations

from memoryhub.core import llm
from memoryhub.spaces.models import MemorySpace, ProviderService
from memoryhub.spaces.selection import Decision, select_provider
from memoryhub.spaces.provider_services import service_config
from providers.registry import PROVIDERS, get_provider_class


def provider_state(kind: str) -> dict:
    """Whether a kind is configured (required service fields set) and available (configured and enabled)."""
    cls = get_provider_class(kind)
    if kind == MemorySpace.NATIVE:
        return {"configured": True, "available": True}
    service = ProviderService.objects.filter(kind=kind).first()
    configured = service is not None and cls.is_configured(service_config(kind))
    return {"configured": configured, "available": bool(configured and service.enabled)}


def provider_listing() -> list[dict]:
    listing = []
    for kind in PROVIDERS:
        cls = get_provider_class(kind)
        listing.append({"kind": kind, "label": cls.label, "locality": cls.locality, **provider_state(kind),
                        "capabilities": cls.capabilities.as_dict()})
    return listing


def space_listing(space: MemorySpace) -> dict:
    cls = get_provider_class(space.provider)
    return {"slug": space.slug, "name": space.name, "provider": space.provider, "access": space.access,
            "active": space.active, "capabilities": cls.capabilities.as_dict()}


def choose_provider(candidates: list[str], **rules) -> Decision:
    """Smart selection with what the hub knows: which kinds are available, and the configured LLM if any."""
    available = {kind: provider_state(kind)["available"] for kind in candidates}
    client = llm.get_client()
    ask = (lambda prompt: client.complete([{"role": "user", "content": prompt}])) if client else None
    try:
        return select_provider(candidates, available=available, llm=ask, **rules)
    finally:
        if client is not None:
            client.close()
