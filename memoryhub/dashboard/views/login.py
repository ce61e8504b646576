"""The page a person sees when django-axes refuses a login after too many wrong passwords (429)."""

from __future__ import annotations

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render


def locked_out(request: HttpRequest, credentials: dict | None = None, *args, **kwargs) -> HttpResponse:
    """settings.AXES_LOCKOUT_CALLABLE: the login card with the wait, instead of axes' bare text."""
    minutes = max(1, int(settings.AXES_COOLOFF_TIME.total_seconds() // 60))
    return render(request, "registration/locked_out.html", {"cooloff_minutes": minutes},
                  status=settings.AXES_HTTP_RESPONSE_CODE)
