"""The one mapping from a provider's declared config field to a Django form field.

Space forms and provider service forms both use it, so a field of the same kind behaves the same in both
(an endpoint typed without a scheme is taken as https, the safe guess for a URL that may carry a key).
"""

from __future__ import annotations

from django import forms
from django.utils.translation import gettext_lazy as _

from providers.base import Field

MAX_TEXT = 1000


def config_field(field: Field, *, secret_set: bool = False) -> forms.Field:
    """A form field for one declared provider field; a secret is a password box that never renders its value and
    may stay blank once one is saved (a blank secret keeps the saved one)."""
    common = {"label": _(field.label), "help_text": _(field.help) if field.help else "", "required": field.required,
              "initial": field.default}  # labels and help are declared untranslated (providers.base.gettext_noop)
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
        return forms.URLField(**common, max_length=MAX_TEXT, assume_scheme="https")
    if field.input == "select":
        return forms.ChoiceField(choices=[(o, o) for o in field.options], **common)
    return forms.CharField(max_length=MAX_TEXT, **common)


def split_tags(value: str) -> list[str]:
    """Comma-separated tags, trimmed, without repeats, at most 20."""
    return list(dict.fromkeys(t.strip() for t in value.split(",") if t.strip()))[:20]
