"""Smart selection from the dashboard: tick candidates and rules, see the hub's choice, then create the space."""

from __future__ import annotations

from django import forms
from django.contrib.auth.decorators import login_required
from django.core import signing
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.translation import gettext_lazy as _
from django.views.decorators.http import require_http_methods

from memoryhub.spaces.selection import BOUNDARIES, PREFERENCES, REQUIREMENTS, SelectionError
from memoryhub.spaces.providers_info import choose_provider
from providers.registry import PROVIDERS, get_provider_class

SALT = "memoryhub.selection"


class ChooseForm(forms.Form):
    candidates = forms.MultipleChoiceField(label=_("Candidate providers"), widget=forms.CheckboxSelectMultiple,
                                           choices=[(k, k) for k in PROVIDERS])
    boundary = forms.ChoiceField(label=_("Data boundary"), choices=[(b, b) for b in BOUNDARIES])
    required = forms.MultipleChoiceField(label=_("Required capabilities"), widget=forms.CheckboxSelectMultiple,
                                         choices=[(r, r) for r in REQUIREMENTS], required=False)
    preference = forms.ChoiceField(label=_("Preference"), choices=[(p, p) for p in PREFERENCES])
    policy_prompt = forms.CharField(label=_("What this space is for (given to the selector, never credentials)"),
                                    required=False, max_length=4000, widget=forms.Textarea(attrs={"rows": 3}))

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["candidates"].choices = [(k, get_provider_class(k).label) for k in PROVIDERS]


def signed_selection(token: str, kind: str) -> dict | None:
    """The decision the choose page signed, if it is intact and chose this kind."""
    try:
        decision = signing.loads(token, salt=SALT, max_age=3600)
    except signing.BadSignature:
        return None
    return decision if decision.get("provider") == kind else None


@require_http_methods(["GET", "POST"])
@login_required
def choose_provider_page(request: HttpRequest) -> HttpResponse:
    form = ChooseForm(request.POST or None, initial={"candidates": ["native"], "boundary": "any",
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
