"""The spaces overview: list, create, edit, activate, delete or disconnect; and search across every space."""

from __future__ import annotations

from django.contrib import messages
from django.db.models import Count, Q
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods, require_POST
from django_htmx.http import HttpResponseClientRedirect

from memoryhub.access import people
from memoryhub.access.people import Perm
from memoryhub.core.errors import ApiError
from memoryhub.dashboard import labels
from memoryhub.dashboard.access import person_may, space_for_user
from memoryhub.dashboard.forms.spaces import SpaceForm
from memoryhub.dashboard.partials import after_action, htmx_partial, render_page
from memoryhub.dashboard.views.charts import with_sparklines
from memoryhub.dashboard.views.choose import signed_selection
from memoryhub.memories.recall import cards as recall
from memoryhub.memories.recall.hits import Card
from memoryhub.memories.models import Entry
from memoryhub.spaces import space_service
from memoryhub.spaces.models import MemorySpace
from providers.registry import PROVIDERS


def overview_rows(**filters) -> list[MemorySpace]:
    """Spaces with their live entry count (only native spaces have one) and provider label."""
    rows = list(MemorySpace.objects.filter(**filters).select_related("workspace").annotate(
        entry_count=Count("entries", filter=Q(entries__deleted_at__isnull=True))
    ).order_by("slug"))
    for row in rows:
        row.provider_label = labels.provider(row.provider)
    return with_sparklines(rows)


@require_GET
@person_may(Perm.MEMORY_READ)
def home(request: HttpRequest) -> HttpResponse:
    who = people.person(request)
    rows = [row for row in overview_rows() if people.may_open(who, row)]
    return render(request, "dashboard/home.html", {"spaces": rows, "nav": "spaces",
                                                   "no_memories": not any(row.entry_count for row in rows)})


@require_http_methods(["GET", "POST"])
@person_may(Perm.SPACES)
def space_create(request: HttpRequest) -> HttpResponse:
    source = request.POST if request.method == "POST" else request.GET
    kind = source.get("provider") if source.get("provider") in PROVIDERS else MemorySpace.NATIVE
    if request.method == "GET" and htmx_partial(request) and "provider" in request.GET:
        # The provider select changed: only its space fields are re-rendered.
        form = SpaceForm(kind=kind)
        return render(request, "dashboard/space_form.html#provider-fields", {"form": form})
    # A GET may prefill fields (the provider page's discovery links name a user's memory root).
    form = SpaceForm(request.POST or None, kind=kind, initial=None if request.POST else request.GET.dict())
    selection_token = source.get("selection", "")
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        selection = (signed_selection(selection_token, kind) if selection_token else None) or {
            "source": "manual", "by": request.user.get_username()}
        try:
            space = space_service.create_space(
                slug=data["slug"], name=data["name"], provider=kind, access=data["access"], active=data["active"],
                workspace=data["workspace"], description=data["description"], config=form.config(),
                selection=selection, actor=request.user.get_username(), user=request.user,
            )
        except ApiError as exc:
            form.refuse(exc.field, exc.message)
        else:
            messages.success(request, _("Space %(slug)s created.") % {"slug": space.slug})
            return done(request, reverse("dashboard:space", args=[space.slug]))
    return render_page(request, "dashboard/space_form.html", "form",
                       {"form": form, "nav": "spaces", "selection_token": selection_token})


@require_http_methods(["GET", "POST"])
@person_may(Perm.SPACES)
def space_edit(request: HttpRequest, slug: str) -> HttpResponse:
    space = space_for_user(request, slug)
    initial = {"name": space.name, "access": space.access, "active": space.active,
               "workspace": space.workspace_id, "description": space.description}
    form = SpaceForm(request.POST or None, kind=space.provider, space=space, initial=initial)
    if request.method == "POST" and form.is_valid():
        changes = {name: form.cleaned_data[name] for name in ("name", "access", "active", "workspace", "description")}
        try:
            space_service.update_space(space, actor=request.user.get_username(), user=request.user,
                                       config=form.config(), **changes)
        except ApiError as exc:
            form.refuse(exc.field, exc.message)
        else:
            messages.success(request, _("Space %(slug)s saved.") % {"slug": space.slug})
            return done(request, reverse("dashboard:home"))
    return render_page(request, "dashboard/space_form.html", "form", {"form": form, "space": space, "nav": "spaces"})


def done(request: HttpRequest, url: str) -> HttpResponse:
    """After a successful form: a client-side redirect for htmx, a normal one otherwise."""
    return HttpResponseClientRedirect(url) if htmx_partial(request) else redirect(url)


@require_POST
@person_may(Perm.SPACES)
def space_toggle(request: HttpRequest, slug: str) -> HttpResponse:
    """Activate or deactivate: an inactive space takes no automatic reads or writes."""
    space = space_for_user(request, slug)
    space_service.set_active(space, not space.active, actor=request.user.get_username(), user=request.user)
    return after_action(request, "dashboard/home.html#space-row", {"space": overview_rows(pk=space.pk)[0]},
                        "dashboard:home")


@require_http_methods(["GET", "POST"])
@person_may(Perm.SPACES)
def space_delete(request: HttpRequest, slug: str) -> HttpResponse:
    """Confirm first, saying exactly what goes: native data is lost, a third-party space is only disconnected."""
    space = space_for_user(request, slug)
    blocker = space_service.deletion_blocker(space)
    losses = {}
    if space.is_native:
        losses = {"entries": Entry.objects.live().filter(space=space).count(), "facts": space.facts.count(),
                  "topics": space.topics.count()}
    if request.method == "POST" and not blocker:
        space_service.delete_space(space, actor=request.user.get_username(), user=request.user, **losses)
        if space.is_native:
            messages.success(request, _("Space %(slug)s deleted.") % {"slug": slug})
        else:
            messages.success(request, _("Space %(slug)s disconnected; its data stays with the provider.")
                             % {"slug": slug})
        return done(request, reverse("dashboard:home"))
    context = {"space": space, "blocker": blocker, "losses": losses, "nav": "spaces",
               "provider_label": labels.provider(space.provider)}
    return render_page(request, "dashboard/space_delete.html", "confirm", context)


@require_GET
@person_may(Perm.MEMORY_READ)
def search_all(request: HttpRequest) -> HttpResponse:
    """One query over every active, non-vault space, as an agent's memory_search would see it, without the bump."""
    query = request.GET.get("q", "").strip()[:500]
    cards: list[Card] = []
    errors: list[str] = []
    if query:
        spaces = list(MemorySpace.objects.filter(active=True).exclude(access=MemorySpace.Access.VAULT))
        cards = recall.search(spaces, query, limit=50, origin=None, recallable_only=False, errors=errors)
    return render_page(request, "dashboard/search.html", "results",
                       {"q": query, "cards": cards, "errors": errors, "nav": "search"})
