"""Smart selection from the dashboard: tick candidates and rules, see the hub's choice, then create the space."""

from __future__ import annotations

from django.core import signing
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_http_methods

from memoryhub.access.people import Perm
from memoryhub.dashboard.access import person_may
from memoryhub.dashboard.forms.spaces import ChooseForm
from memoryhub.spaces.providers_info import choose_provider
from memoryhub.spaces.models import MemorySpace
from memoryhub.spaces.selection import SelectionError

SALT = "memoryhub.selection"


def signed_selection(token: str, kind: str) -> dict | None:
    """The decision the choose page signed, if it is intact and chose this kind."""
    try:
        decision = signing.loads(token, salt=SALT, max_age=3600)
    except signing.BadSignature:
        return None
    return decision if decision.get("provider") == kind else None


@require_http_methods(["GET", "POST"])
@person_may(Perm.SPACES)
def choose_provider_page(request: HttpRequest) -> HttpResponse:
    form = ChooseForm(request.POST or None, initial={"candidates": [MemorySpace.NATIVE], "boundary": "any",
                                                    "preference": "balanced"})
    context = {"form": form, "nav": "spaces"}
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            decision = choose_provider(data["candidates"], boundary=data["boundary"], required=set(data["required"]),
                                       preference=data["preference"], policy_prompt=data["policy_prompt"])
        except (SelectionError, ValueError) as exc:
            form.add_error(None, str(exc))
        else:
            chosen = {"source": decision.source, **decision.as_dict()}
            context.update(decision=chosen, token=signing.dumps(chosen, salt=SALT))
    return render(request, "dashboard/choose.html", context)
