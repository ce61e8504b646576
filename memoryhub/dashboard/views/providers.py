"""Provider services: one compact card per kind (state, spaces using it) that opens to its service config,
its connection test and, for OpenViking, the users its discovery finds."""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib import messages
from django.db.models import Count
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from memoryhub.access.people import Perm
from memoryhub.audit.actions import Action
from memoryhub.audit.changes import differing
from memoryhub.dashboard import labels
from memoryhub.dashboard.access import audited, person_may
from memoryhub.dashboard.forms.providers import ServiceForm
from memoryhub.dashboard.partials import htmx_partial
from memoryhub.spaces import secrets
from memoryhub.spaces.models import MemorySpace, ProviderService
from memoryhub.spaces.providers_info import provider_state
from memoryhub.spaces.connection import Outcome, check_service, check_space, discover
from memoryhub.spaces.provider_services import save_service
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
    test: Outcome | None = None
    error: str = ""
    saved: bool = False
    discovered: list[dict] | None = None
    open: bool = False

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
    extra.setdefault("open", any(extra.get(k) for k in ("test", "error", "saved", "discovered")))
    return Card(kind=kind, cls=cls, service=service, form=form, configured=state["configured"],
                available=state["available"], space_count=space_count, **extra)


def _space_counts() -> dict[str, int]:
    return dict(MemorySpace.objects.order_by().values_list("provider").annotate(n=Count("pk")))


def _card_response(request: HttpRequest, card: Card) -> HttpResponse:
    return render(request, "dashboard/providers.html#provider-card", {"card": card})


@require_GET
@person_may(Perm.CONFIGURE)
def provider_list(request: HttpRequest) -> HttpResponse:
    counts = _space_counts()
    cards = [_card(kind, space_count=counts.get(kind, 0)) for kind in PROVIDERS]
    return render(request, "dashboard/providers.html", {"cards": cards, "nav": "providers"})


@require_POST
@person_may(Perm.CONFIGURE)
def provider_save(request: HttpRequest, kind: str) -> HttpResponse:
    """Save a kind's service config; invalid input or an adapter's refusal changes nothing."""
    cls = _configurable_class(kind)
    service = ProviderService.objects.filter(kind=kind).first()
    form = _form(cls, service, data=request.POST)
    error = ""
    if form.is_valid():
        values = form.values()
        had = secrets.for_kind(kind)
        try:
            saved = save_service(kind, values)
        except ProviderError as exc:
            error = exc.message
        else:
            before, after = differing(service.config if service else {}, saved.config)
            for key in (f.key for f in cls.service_fields if f.secret and values.get(f.key)):
                before[key], after[key] = ("(a secret)" if had.get(key) else None), "(a new secret)"
            audited(request, Action.PROVIDER_SAVE, kind, before=before, after=after)
            if htmx_partial(request):
                return _card_response(request, _card(kind, saved=True))
            messages.success(request, _("%(label)s settings saved.") % {"label": labels.provider(kind)})
            return redirect(f"{reverse('dashboard:providers')}#provider-{kind}")
    card = _card(kind, error=error)
    card.form = form
    if htmx_partial(request):
        return _card_response(request, card)
    counts = _space_counts()
    cards = [card if k == kind else _card(k, space_count=counts.get(k, 0)) for k in PROVIDERS]
    return render(request, "dashboard/providers.html", {"cards": cards, "nav": "providers"})


@require_POST
@person_may(Perm.CONFIGURE)
def provider_test(request: HttpRequest, kind: str) -> HttpResponse:
    """"Test connection": the values in the form (saved or not), the service alone, or one space with `?space=`."""
    cls = _configurable_class(kind)
    space = None
    if request.GET.get("space"):
        space = MemorySpace.objects.filter(slug=request.GET["space"], provider=kind).first()
        if space is None:
            raise Http404("no such space of this provider")
    form = _form(cls, ProviderService.objects.filter(kind=kind).first(), data=request.POST or None)
    if space is not None:
        outcome = check_space(space)
    elif request.POST and form.is_valid():
        outcome = check_service(kind, form.values())
    elif request.POST:
        card = _card(kind, open=True)
        card.form = form
        return _card_response(request, card) if htmx_partial(request) else redirect(reverse("dashboard:providers"))
    else:
        outcome = check_service(kind)
    if not htmx_partial(request):
        text = f"{outcome.message} {outcome.detail}".strip()
        if outcome.ok:
            messages.success(request, _("%(label)s answered: %(message)s") % {"label": labels.provider(kind), "message": text})
        else:
            messages.error(request, _("%(label)s failed: %(message)s") % {"label": labels.provider(kind), "message": text})
        return redirect(f"{reverse('dashboard:providers')}#provider-{kind}")
    card = _card(kind, test=outcome)
    if outcome.unsaved:
        card.form = form
    return _card_response(request, card)


@require_POST
@person_may(Perm.CONFIGURE)
def provider_discover(request: HttpRequest, kind: str) -> HttpResponse:
    """OpenViking (or any adapter that discovers): list the users/roots the saved key can reach, to pick into a space."""
    if not _configurable_class(kind).discovers:
        raise Http404("this provider discovers nothing")
    try:
        found = discover(kind)
    except ProviderError as exc:
        return _card_response(request, _card(kind, error=exc.message, discovered=[]))
    return _card_response(request, _card(kind, discovered=found))
