"""Forms for creating and editing spaces (with the provider's own space fields) and for smart selection."""

from __future__ import annotations

from django import forms
from django.utils.translation import gettext_lazy as _

from memoryhub.dashboard import labels
from memoryhub.dashboard.forms.fields import DataSelect, config_field
from memoryhub.spaces.models import MemorySpace, Workspace
from memoryhub.spaces.providers_info import provider_state
from memoryhub.spaces.selection import BOUNDARIES, PREFERENCES, REQUIREMENTS
from memoryhub.spaces.space_service import valid_slug
from providers.registry import PROVIDERS, get_provider_class

CONFIG_PREFIX = "cfg_"
ACCESS_CHOICES = [(MemorySpace.Access.OPEN, _("open: agents read and write")),
                  (MemorySpace.Access.VAULT, _("vault: agents write, never read"))]


def provider_choices() -> list[tuple[str, str]]:
    choices = []
    for kind in PROVIDERS:
        label = labels.provider(kind)
        if not provider_state(kind)["available"]:
            label = _("%(label)s (not configured)") % {"label": label}
        choices.append((kind, label))
    return choices


class SpaceForm(forms.Form):
    """Create or edit a space; the provider's space fields are generated from its declaration."""

    slug = forms.CharField(label=_("Slug"), max_length=80, help_text=_("Lower-case letters, digits, - and _."))
    name = forms.CharField(label=_("Name"), max_length=200)
    provider = forms.ChoiceField(label=_("Provider"))
    access = forms.ChoiceField(label=_("Access"), choices=ACCESS_CHOICES, initial=MemorySpace.Access.OPEN)
    active = forms.BooleanField(label=_("Active"), required=False, initial=True)
    workspace = forms.ModelChoiceField(label=_("Workspace"), queryset=Workspace.objects.all(), required=False,
                                       empty_label=_("none (global)"), widget=DataSelect)
    description = forms.CharField(label=_("Description"), required=False, max_length=2000,
                                  widget=forms.Textarea(attrs={"rows": 3}),
                                  help_text=_("What belongs here; smart selection routes by it."))

    def __init__(self, *args, kind: str, space: MemorySpace | None = None, **kwargs):
        super().__init__(*args, **kwargs)
        self.kind = kind
        self.kind_label = labels.provider(kind)
        self.space = space
        self.fields["provider"].choices = provider_choices()
        self.fields["provider"].initial = kind
        if space is not None:
            del self.fields["slug"], self.fields["provider"]
        for field in get_provider_class(kind).space_fields:
            if field.secret:
                continue
            self.fields[CONFIG_PREFIX + field.key] = config_field(field)
            if space is not None and field.key in (space.config or {}):
                self.initial[CONFIG_PREFIX + field.key] = space.config[field.key]

    def config_fields(self) -> list[forms.BoundField]:
        return [self[name] for name in self.fields if name.startswith(CONFIG_PREFIX)]

    def main_fields(self) -> list[forms.BoundField]:
        return [self[name] for name in self.fields if not name.startswith(CONFIG_PREFIX)]

    def clean_slug(self) -> str:
        slug = self.cleaned_data["slug"].strip()
        if not valid_slug(slug):
            raise forms.ValidationError(_("Use lower-case letters, digits, - or _, starting with a letter or digit."))
        if MemorySpace.objects.filter(slug=slug).exists():
            raise forms.ValidationError(_("A space with this slug exists."))
        return slug

    def clean_provider(self) -> str:
        kind = self.cleaned_data["provider"]
        if kind != self.kind:
            raise forms.ValidationError(_("The provider changed while the form was open; check its fields."))
        if not provider_state(kind)["available"]:
            raise forms.ValidationError(_("Configure this provider on the providers page first."))
        return kind

    def refuse(self, field: str | None, message: str) -> None:
        """An ApiError of the space service shown beside its field (`config.<key>` is that key's box)."""
        if field and field.startswith("config.") and CONFIG_PREFIX + field.removeprefix("config.") in self.fields:
            field = CONFIG_PREFIX + field.removeprefix("config.")
        self.add_error(field if field in self.fields else None, message)

    def config(self) -> dict:
        """The space fields that were filled in, keyed as the provider declares them."""
        values = {}
        for name, value in self.cleaned_data.items():
            if name.startswith(CONFIG_PREFIX) and value not in (None, ""):
                values[name.removeprefix(CONFIG_PREFIX)] = value
        return values


class ChooseForm(forms.Form):
    candidates = forms.MultipleChoiceField(label=_("Candidate providers"), widget=forms.CheckboxSelectMultiple,
                                           choices=[(k, k) for k in PROVIDERS])
    boundary = forms.ChoiceField(label=_("Data boundary"), choices=labels.choices("boundary", BOUNDARIES))
    required = forms.MultipleChoiceField(label=_("Required capabilities"), widget=forms.CheckboxSelectMultiple,
                                         choices=labels.choices("requirement", REQUIREMENTS), required=False)
    preference = forms.ChoiceField(label=_("Preference"), choices=labels.choices("preference", PREFERENCES))
    policy_prompt = forms.CharField(label=_("What this space is for (given to the selector, never credentials)"),
                                    required=False, max_length=4000, widget=forms.Textarea(attrs={"rows": 3}))

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["candidates"].choices = [(k, labels.provider(k)) for k in PROVIDERS]
