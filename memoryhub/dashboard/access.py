"""What every dashboard view starts with: the permission it needs (person_may), the space (or 404), what its
provider can do and its header's context; and how a person's change reaches the audit log (audited)."""

from __future__ import annotations

from functools import wraps
from urllib.parse import urlencode

from django.contrib.auth.views import redirect_to_login
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.translation import gettext_lazy as _

from memoryhub.access import people
from memoryhub.access.call import PersonCall
from memoryhub.access.people import Perm, Role
from memoryhub.audit.models import AuditEvent, record
from memoryhub.dashboard import labels
from memoryhub.spaces import provider_services
from memoryhub.spaces.models import MemorySpace
from providers.base import Capabilities
from providers.registry import get_provider_class


def person_may(perm: Perm, *, post: Perm | None = None):
    """A view's one declaration of what a person needs (access/people.py says which roles hold it): `perm`, or
    `post` for its POSTs where a page that reads also takes a change (facts, persona).

    Not signed in: the login form, then back. Signed in without it: the refusal page (403). The permissions
    stay on the view as `view.permission` ({method: Perm}), where the people matrix reads them for every URL."""
    needs = {"GET": perm, "HEAD": perm, "POST": post or perm}

    def decorate(view):
        @wraps(view)
        def guarded(request: HttpRequest, *args, **kwargs) -> HttpResponse:
            who = people.person(request)
            if who.role == Role.ANONYMOUS:
                return redirect_to_login(request.get_full_path())
            needed = needs.get(request.method, post or perm)
            if not who.may(needed):
                return refused(request, needed)
            return view(request, *args, **kwargs)

        guarded.permission = needs
        return guarded
    return decorate


def refused(request: HttpRequest, perm: Perm) -> HttpResponse:
    """Why this account may not have the page, and what to do about it."""
    return render(request, "registration/refused.html", {"bare": True, "needed": perm.label}, status=403)


def audited(request: HttpRequest, action: str, target: str = "", before=None, after=None, **detail) -> AuditEvent:
    """A change the signed-in person made, in the audit log under their name: what it found, what it left."""
    return record(people.person(request).actor, action, target, user=request.user, before=before, after=after,
                  **detail)


def person_call(request: HttpRequest) -> PersonCall:
    """The signed-in person as the caller of an operation (dashboard/forms/rules.perform)."""
    return PersonCall(who=people.person(request))


def space_for_user(request: HttpRequest, slug: str, *, native: bool = False, can: str = "") -> MemorySpace:
    """The space with this slug, or 404, also when this person may not open it (a vault, without VAULT_READ).

    `native` asks for a native space (persona, facts, maintenance...); `can` names a capability the page needs
    (graph, remember, forget...). A space that lacks it is a 404, as the page does not exist for it."""
    space = MemorySpace.objects.select_related("workspace").filter(slug=slug).first()
    if space is None or not people.may_open(people.person(request), space):
        raise Http404("no such space")
    if native and not space.is_native:
        raise Http404("only native spaces have this page")
    if can and not getattr(capabilities(space), can):
        raise Http404(f"this provider has no {can}")
    return space


def capabilities(space: MemorySpace) -> Capabilities:
    return get_provider_class(space.provider).capabilities


def query_with(request: HttpRequest, drop: tuple[str, ...] = (), **changes: str | int) -> str:
    """The current query string with some keys replaced or dropped (pagination links keep the filters)."""
    pairs = [(key, value) for key, values in request.GET.lists() if key not in changes and key not in drop
             for value in values]
    pairs += [(k, str(v)) for k, v in changes.items() if v not in (None, "")]
    return "?" + urlencode(pairs) if pairs else "?"


# Tab key: (URL name in the dashboard namespace, label), in the order the tab bar shows them.
TABS = {
    "memories": ("space", _("Memories")),
    "persona": ("persona", _("Persona frame")),
    "facts": ("facts", _("Facts")),
    "topics": ("topics", _("Topics")),
    "recall": ("recall", _("Recall preview")),
    "graph": ("graph", _("Graph")),
    "entities": ("entities", _("Entities")),
    "charts": ("charts", _("Charts")),
    "activity": ("activity", _("Activity")),
    "maintenance": ("maintenance", _("Maintenance")),
    "settings": ("space_settings", _("Settings")),
}


def space_tabs(space: MemorySpace) -> list[str]:
    """The tabs this space's provider can back; nothing is shown that it cannot do."""
    caps = capabilities(space)
    native = space.is_native
    shown = {
        "memories": caps.browse or caps.search, "persona": native, "facts": native, "topics": native,
        "recall": caps.search or native, "graph": caps.graph, "entities": caps.entities and not space.is_vault,
        "charts": native, "activity": native, "maintenance": native, "settings": True,
    }
    return [tab for tab in TABS if shown[tab]]


def space_context(space: MemorySpace, tab: str) -> dict:
    """What the space header and tab bar need."""
    cls = get_provider_class(space.provider)
    tabs = [(name, f"dashboard:{TABS[name][0]}", TABS[name][1]) for name in space_tabs(space)]
    return {"space": space, "tab": tab, "tabs": tabs, "caps": cls.capabilities,
            "provider_label": labels.provider(space.provider), "nav": "spaces", "store": provider_services.store_of(space)}
