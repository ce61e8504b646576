"""The one way a dashboard view answers htmx: the named partial of a page's template, or the whole page."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render


def htmx_partial(request: HttpRequest) -> bool:
    """An htmx request that swaps a fragment; boosted and history-restore requests need the full page."""
    htmx = getattr(request, "htmx", None)
    return bool(htmx) and not htmx.boosted and not htmx.history_restore_request


def render_page(request: HttpRequest, template: str, partial: str, context: dict, status: int = 200) -> HttpResponse:
    """The page, or only its named partial when htmx swaps it in."""
    name = f"{template}#{partial}" if htmx_partial(request) else template
    return render(request, name, context, status=status)
