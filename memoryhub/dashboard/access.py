"""Small helpers every dashboard view starts with: find the object or 404, pick full page or partial."""

from __future__ import annotations

from urllib.parse import urlencode

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render

from memoryhub.dashboard.partials import htmx_partial  # noqa: F401  (re-exported for the views)
from memoryhub.spaces.models import MemorySpace
from providers.base import Capabilities
from providers.registry import get_provider_class


def space_for_user(request: HttpRequest, slug: str) -> MemorySpace:
    """The space with this slug, or 404; every signed-in person may manage every space."""
    space = MemorySpace.objects.select_related("workspace").filter(slug=slug).first()
    if space is None:
        raise Http404("no such space")
    return space


def capabilities(space: MemorySpace) -> Capabilities:
    return get_provider_class(space.provider).capabilities


def render_page(request: HttpRequest, template: str, partial: str, context: dict, status: int = 200) -> HttpResponse:
    """The page, or only its named partial when htmx swaps it in."""
    name = f"{template}#{partial}" if htmx_partial(request) else template
    return render(request, name, context, status=status)


def query_with(request: HttpRequest, drop: tuple[str, ...] = (), **changes: str | int) -> str:
    """The current query string with some keys replaced or dropped (pagination links keep the filters)."""
    pairs = [(key, value) for key, values in request.GET.lists() if key not in changes and key not in drop
             for value in values]
    pairs += [(k, str(v)) for k, v in changes.items() if v not in (None, "")]
    return "?" + urlencode(pairs) if pairs else "?"


def space_tabs(space: MemorySpace) -> list[tuple[str, str]]:
    """The tabs this space's provider can back (URL name, label key); nothing is shown that it cannot do."""
    caps = capabilities(space)
    tabs = []
    if caps.browse or caps.search:
        tabs.append("memories")
    if space.is_native:
        tabs += ["persona", "facts"]
    if caps.search or space.is_native:
        tabs.append("recall")
    if caps.graph:
        tabs.append("graph")
    if caps.entities and not space.is_vault:
        tabs.append("entities")
    if space.is_native:
        tabs += ["charts", "activity"]
    tabs.append("settings")
    return tabs


def space_context(space: MemorySpace, tab: str) -> dict:
    """What the space header and tab bar need."""
    cls = get_provider_class(space.provider)
    return {"space": space, "tab": tab, "tabs": space_tabs(space), "caps": cls.capabilities,
            "provider_label": cls.label, "nav": "spaces"}
