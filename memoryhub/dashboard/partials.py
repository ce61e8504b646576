"""When a dashboard view may answer with a fragment instead of the whole page."""

from django.http import HttpRequest


def htmx_partial(request: HttpRequest) -> bool:
    """An htmx request that swaps a fragment; boosted and history-restore requests need the full page."""
    htmx = getattr(request, "htmx", None)
    return bool(htmx) and not htmx.boosted and not htmx.history_restore_request
