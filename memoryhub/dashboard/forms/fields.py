"""The one mapping from a provider's declared config field to a Django form field.

Space forms and provider service forms both use it, so a field of the same kind behaves the same in both
(an endpoint typed without a scheme is taken as https, the safe guess for a URL that may carry a key).

The hub never calls an address the person did not type or save: a URL field's declared default (a vendor's
cloud) is a placeholder, not a value, and a required choice (Mem0's platform or self-hosted) starts unchosen.
"""

from __future__ import annotations

from django import forms
from django.utils.translation import gettext_lazy as _

from memoryhub.dashboard import labels
from providers.base import Field

MAX_TEXT = 1000


def suggests_only(field: Field) -> bool:
    """A field whose declared default is a suggestion the person must take up, never a value the hub uses."""
    return field.input == "url" or (field.input == "select" and field.required)


def config_field(field: Field, *, secret_set: bool = False) -> forms.Field:
    """A form field for one declared provider field; a secret is a password box that never renders its value and
    may stay blank once one is saved (a blank secret keeps the saved one)."""
    common = {"label": _(field.label), "help_text": _(field.help) if field.help else "", "required": field.required,
              "initial": None if suggests_only(field) else field.default}  # labels and help: gettext_noop'd
    if field.secret:
        placeholder = _("configured: type to replace") if secret_set else _("not set")
        return forms.CharField(
            **{**common, "required": field.required and not secret_set, "initial": None},
            widget=forms.PasswordInput(render_value=False, attrs={"placeholder": placeholder,
                                                                  "autocomplete": "new-password"}))
    if field.input == "boolean":
        return forms.BooleanField(**{**common, "required": False})
    if field.input == "number":
        return forms.FloatField(**common, min_value=field.minimum, max_value=field.maximum)
    if field.input == "url":
        placeholder = _("e.g. %(url)s") % {"url": field.default} if field.default else ""
        return forms.URLField(**common, max_length=MAX_TEXT, assume_scheme="https",
                              widget=forms.URLInput(attrs={"placeholder": placeholder}))
    if field.input == "select":
        blank = [("", _("— choose —"))] if field.required else []
        return forms.ChoiceField(choices=blank + labels.choices("field_option", field.options), **common)
    return forms.CharField(max_length=MAX_TEXT, **common)


class DataOptions:
    """A select whose options are names people or agents gave (spaces, workspaces): marked translate="no", so
    neither a browser's translator nor the 中文 walk takes them for the page's own words; the blank choice is ours."""

    def create_option(self, name, value, label, selected, index, subindex=None, attrs=None):
        option = super().create_option(name, value, label, selected, index, subindex, attrs)
        if str(value):
            option["attrs"]["translate"] = "no"
        return option


class DataSelect(DataOptions, forms.Select):
    pass


class DataSelectMultiple(DataOptions, forms.SelectMultiple):
    pass

