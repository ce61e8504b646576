"""The one way a dashboard view answers htmx: the named partial of a page's template, or the whole page."""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render


def htmx_partial(request: HttpRequest) -> bool:
    """An htmx request that swaps a fragment; boosted and history-restore requests need the full page."""
    htmx = getattr(request, "htmx", None)
    return bool(htmx) and not htmx.boosted and not htmx.history_restore_request


def render_page(request: HttpRequest, template: str, partial: str, context: dict, status: int = 200) -> HttpResponse:
    """The page, or only its named partial when htmx swaps it in."""
    name = f"{template}#{partial}" if htmx_partial(request) else template
    return render(request, name, context, status=status)


def after_action(request: HttpRequest, fragment: str | None, context: dict, to: str, *args,
                 message: str = "", level: int = messages.SUCCESS, **kwargs) -> HttpResponse:
    """What a dashboard action answers: htmx swaps in `fragment` ("template#partial"; None: nothing, so the
    element goes); a plain form post gets `message` as a flash and a redirect to `to` (a URL name and its
    arguments), so reloading the page never posts twice."""
    if htmx_partial(request):
        return render(request, fragment, context) if fragment else HttpResponse("")
    if message:
        messages.add_message(request, level, message)
    return redirect(to, *args, **kwargs)
