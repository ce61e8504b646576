"""Template context shared by every dashboard page (the sidebar's dots)."""

from __future__ import annotations

from django.http import HttpRequest


def sidebar(request: HttpRequest) -> dict:
    user = getattr(request, "user", None)
    if not (user and user.is_authenticated) or request.path.startswith("/api/"):
        return {}
    from memoryhub.vault.models import AccessRequest

    return {"pending_requests": AccessRequest.objects.filter(status="pending").count()}
