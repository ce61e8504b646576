"""Provider services: one card per kind with its capabilities, service config and connection test."""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.db.models import Count
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from memoryhub.audit.models import record
from memoryhub.dashboard.forms_providers import ServiceForm
from memoryhub.dashboard.partials import htmx_partial
from memoryhub.spaces import secrets
from memoryhub.spaces.models import MemorySpace, ProviderService
from memoryhub.spaces.providers_info import provider_state
from memoryhub.spaces.services import check_service, save_service
from providers.base import Provider, ProviderError
from providers.registry import PROVIDERS, get_provider_class


@dataclass
class Card:
    """Everything one provider card shows."""

    kind: str
    cls: type[Provider]
    service: ProviderService | None
    form: ServiceForm | None
    configured: bool
    available: bool
    space_count: int = 0
    test: dict | None = None
    error: str = ""
    saved: bool = False

    @property
    def has_service_config(self) -> bool:
        return bool(self.cls.service_fields)


def _configurable_class(kind: str) -> type[Provider]:
    """The adapter class of a kind with service config; 404 for unknown kinds and for native."""
    if kind not in PROVIDERS:
        raise Http404("unknown provider")
    cls = get_provider_class(kind)
    if not cls.service_fields:
        raise Http404("this provider has no service config")
    return cls


def _form(cls: type[Provider], service: ProviderService | None, data=None) -> ServiceForm:
    status = secrets.mask(cls.kind, {f.key for f in cls.service_fields if f.secret})
    return ServiceForm(cls, (service.config if service else {}), status, data=data)


def _card(kind: str, space_count: int | None = None, **extra) -> Card:
    cls = get_provider_class(kind)
    service = ProviderService.objects.filter(kind=kind).first()
    if space_count is None:
        space_count = MemorySpace.objects.filter(provider=kind).count()
    state = provider_state(kind)
    form = _form(cls, service) if cls.service_fields else None
    return Card(kind=kind, cls=cls, service=service, form=form, configured=state["configured"],
                available=state["available"], space_count=space_count, **extra)


def _space_counts() -> dict[str, int]:
    return dict(MemorySpace.objects.order_by().values_list("provider").annotate(n=Count("pk")))


def _card_response(request: HttpRequest, card: Card) -> HttpResponse:
    return render(request, "dashboard/providers.html#provider-card", {"card": card})


@require_GET
@login_required
def provider_list(request: HttpRequest) -> HttpResponse:
    counts = _space_counts()
    cards = [_card(kind, space_count=counts.get(kind, 0)) for kind in PROVIDERS]
    return render(request, "dashboard/providers.html", {"cards": cards, "nav": "providers"})


@require_POST
@login_required
def provider_save(request: HttpRequest, kind: str) -> HttpResponse:
    """Save a kind's service config; invalid input or an adapter's refusal changes nothing."""
    cls = _configurable_class(kind)
    form = _form(cls, ProviderService.objects.filter(kind=kind).first(), data=request.POST)
    error = ""
    if form.is_valid():
        values = form.values()
        try:
            save_service(kind, values)
        except ProviderError as exc:
            error = exc.message
        else:
            record(request.user.get_username(), "provider.save", kind, user=request.user,
                   fields=sorted(k for k, v in values.items() if v not in ("", None)))
            if htmx_partial(request):
                return _card_response(request, _card(kind, saved=True))
            messages.success(request, _("%(label)s settings saved.") % {"label": cls.label})
            return redirect(f"{reverse('dashboard:providers')}#provider-{kind}")
    card = _card(kind, error=error)
    card.form = form
    if htmx_partial(request):
        return _card_response(request, card)
    counts = _space_counts()
    cards = [card if k == kind else _card(k, space_count=counts.get(k, 0)) for k in PROVIDERS]
    return render(request, "dashboard/providers.html", {"cards": cards, "nav": "providers"})


@require_POST
@login_required
def provider_test(request: HttpRequest, kind: str) -> HttpResponse:
    """"Test connection": run the adapter's status check and show its answer or its error inline."""
    cls = _configurable_class(kind)
    ok, message = check_service(kind)
    if not htmx_partial(request):
        if ok:
            messages.success(request, _("%(label)s answered: %(message)s") % {"label": cls.label, "message": message})
        else:
            messages.error(request, _("%(label)s failed: %(message)s") % {"label": cls.label, "message": message})
        return redirect(f"{reverse('dashboard:providers')}#provider-{kind}")
    return _card_response(request, _card(kind, test={"ok": ok, "message": message}))
