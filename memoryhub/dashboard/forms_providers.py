"""Forms for the provider services, API tokens and jobs pages.

The provider form is built from an adapter's declared service_fields, so a new provider
needs no form code; its field names are the declared keys (endpoint, apiKey, mode, ...).
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _

from memoryhub.spaces.models import MemorySpace
from providers.base import Field


def _form_field(field: Field, secret_set: bool) -> forms.Field:
    """One Django form field for a declared provider field."""
    common: dict[str, Any] = {"label": field.label, "help_text": field.help, "required": field.required}
    if field.secret:
        placeholder = _("configured: type to replace") if secret_set else _("not set")
        return forms.CharField(
            label=field.label, help_text=field.help, required=field.required and not secret_set, strip=True,
            widget=forms.PasswordInput(render_value=False, attrs={"placeholder": placeholder,
                                                                  "autocomplete": "new-password"}),
        )
    if field.input == "boolean":
        return forms.BooleanField(label=field.label, help_text=field.help, required=False)
    if field.input == "select":
        return forms.ChoiceField(choices=[(o, o) for o in field.options], **common)
    if field.input == "number":
        return forms.FloatField(**common)
    if field.input == "url":
        return forms.URLField(assume_scheme="http", **common)
    return forms.CharField(strip=True, **common)


class ServiceForm(forms.Form):
    """A provider kind's service-level config; secrets are never rendered back."""

    def __init__(self, provider_cls, saved: dict[str, Any], secret_status: dict[str, str], *args, **kwargs):
        kwargs.setdefault("auto_id", f"id_{provider_cls.kind}_%s")
        super().__init__(*args, **kwargs)
        self.provider_cls = provider_cls
        self.secret_status = secret_status
        for field in provider_cls.service_fields:
            secret_set = secret_status.get(field.key) == "configured"
            self.fields[field.key] = _form_field(field, secret_set)
            if not field.secret:
                value = saved.get(field.key, field.default)
                if value is not None:
                    self.initial[field.key] = value

    def values(self) -> dict[str, Any]:
        """Cleaned values for save_service: blank text becomes "", a blank secret keeps the saved one."""
        out: dict[str, Any] = {}
        for field in self.provider_cls.service_fields:
            value = self.cleaned_data.get(field.key)
            out[field.key] = "" if value is None else value
        return out

    def rows(self):
        """(bound field, declared field, secret status or None) for the template."""
        for field in self.provider_cls.service_fields:
            yield self[field.key], field, (self.secret_status.get(field.key) if field.secret else None)


class TokenForm(forms.Form):
    name = forms.CharField(label=_("Name"), max_length=100,
                           help_text=_("Who uses it, e.g. the agent or bot's name."))
    origin = forms.SlugField(label=_("Origin"), max_length=60, initial="local",
                             help_text=_("Where its conversations come from (local, qq, telegram…); "
                                         "memories are kept apart by origin."))
    spaces = forms.ModelMultipleChoiceField(
        label=_("Spaces"), queryset=MemorySpace.objects.order_by("slug"), required=False,
        to_field_name="slug", help_text=_("Leave empty to allow every space."),
        widget=forms.SelectMultiple(attrs={"size": 5}),
    )


class ConnectForm(forms.Form):
    """The connect page's token: a name, the space its snippets write to, and whether it may use only that one."""

    name = forms.CharField(label=_("Agent name"), max_length=100, initial="my-agent",
                           help_text=_("Who uses the token, e.g. the agent or bot's name."))
    space = forms.ModelChoiceField(
        label=_("Space"), queryset=MemorySpace.objects.filter(active=True).order_by("-is_default", "slug"),
        to_field_name="slug", empty_label=None,
        help_text=_("Where its memories go: the snippets set MEMORYHUB_SPACE to it."))
    only_this_space = forms.BooleanField(
        label=_("Only this space"), required=False,
        help_text=_("Limit the token to this space. Leave it off to let the agent also use its workspace's space."))
    origin = forms.SlugField(label=_("Origin"), max_length=60, initial="local",
                             help_text=_("Where its conversations come from (local, qq, telegram…); "
                                         "memories are kept apart by origin."))
