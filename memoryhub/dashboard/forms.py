"""Dashboard forms: spaces (with the provider's own space fields), notes, entry edits, facts, filters."""

from __future__ import annotations

import re

from django import forms
from django.conf import settings
from django.utils.translation import gettext_lazy as _

from memoryhub.memories.growth.facts import MAX_VALUE_CHARS, is_real_path
from memoryhub.memories.models import CATEGORIES
from memoryhub.spaces.models import MemorySpace, Workspace
from memoryhub.spaces.providers_info import provider_state
from memoryhub.spaces.space_service import valid_slug
from providers.base import Field
from providers.registry import PROVIDERS, get_provider_class

CONFIG_PREFIX = "cfg_"
CATEGORY_CHOICES = [(c, c) for c in CATEGORIES]
ACCESS_CHOICES = [("open", _("open: agents read and write")), ("vault", _("vault: agents write, never read"))]
PREDICATE_SHAPE = re.compile(r"^[A-Za-z][A-Za-z_]{0,59}$")


def provider_choices() -> list[tuple[str, str]]:
    choices = []
    for kind in PROVIDERS:
        label = get_provider_class(kind).label
        if not provider_state(kind)["available"]:
            label = _("%(label)s (not configured)") % {"label": label}
        choices.append((kind, label))
    return choices


def config_field(field: Field) -> forms.Field:
    """A form field for one of a provider's declared space fields."""
    common = {"label": field.label, "required": field.required, "help_text": field.help, "initial": field.default}
    if field.input == "boolean":
        return forms.BooleanField(**{**common, "required": False})
    if field.input == "number":
        return forms.FloatField(**common)
    if field.input == "url":
        return forms.URLField(**common, assume_scheme="https")
    if field.input == "select":
        return forms.ChoiceField(choices=[(o, o) for o in field.options], **common)
    return forms.CharField(max_length=1000, **common)


def split_tags(value: str) -> list[str]:
    return list(dict.fromkeys(t.strip() for t in value.split(",") if t.strip()))[:20]


class SpaceForm(forms.Form):
    """Create or edit a space; the provider's space fields are generated from its declaration."""

    slug = forms.CharField(label=_("Slug"), max_length=80, help_text=_("Lower-case letters, digits, - and _."))
    name = forms.CharField(label=_("Name"), max_length=200)
    provider = forms.ChoiceField(label=_("Provider"))
    access = forms.ChoiceField(label=_("Access"), choices=ACCESS_CHOICES, initial="open")
    active = forms.BooleanField(label=_("Active"), required=False, initial=True)
    workspace = forms.ModelChoiceField(label=_("Workspace"), queryset=Workspace.objects.all(), required=False,
                                       empty_label=_("none (global)"))
    description = forms.CharField(label=_("Description"), required=False, max_length=2000,
                                  widget=forms.Textarea(attrs={"rows": 3}),
                                  help_text=_("What belongs here; smart selection routes by it."))

    def __init__(self, *args, kind: str, space: MemorySpace | None = None, **kwargs):
        super().__init__(*args, **kwargs)
        self.kind = kind
        self.kind_label = get_provider_class(kind).label
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

    def config(self) -> dict:
        """The space fields that were filled in, keyed as the provider declares them."""
        values = {}
        for name, value in self.cleaned_data.items():
            if name.startswith(CONFIG_PREFIX) and value not in (None, ""):
                values[name.removeprefix(CONFIG_PREFIX)] = value
        return values


class NoteForm(forms.Form):
    text = forms.CharField(label=_("Note"), max_length=settings.MEMORYHUB["MAX_ENTRY_CHARS"],
                           widget=forms.Textarea(attrs={"rows": 3, "placeholder": _("Something the agents should remember")}))
    title = forms.CharField(label=_("Title"), max_length=300, required=False)
    category = forms.ChoiceField(label=_("Category"), choices=[("", _("guess from the text"))] + CATEGORY_CHOICES,
                                 required=False)
    tags = forms.CharField(label=_("Tags"), max_length=500, required=False, help_text=_("Comma-separated."))

    def clean_tags(self) -> list[str]:
        return split_tags(self.cleaned_data["tags"])


class EntryForm(forms.Form):
    title = forms.CharField(label=_("Title"), max_length=300, required=False)
    body = forms.CharField(label=_("Text"), max_length=settings.MEMORYHUB["MAX_ENTRY_CHARS"],
                           widget=forms.Textarea(attrs={"rows": 8}))
    category = forms.ChoiceField(label=_("Category"), choices=CATEGORY_CHOICES)
    tags = forms.CharField(label=_("Tags"), max_length=500, required=False, help_text=_("Comma-separated."))

    def clean_tags(self) -> list[str]:
        return split_tags(self.cleaned_data["tags"])


class MemoryFilterForm(forms.Form):
    """The memories tab's filters; they live in the URL so back, forward and reload keep them."""

    ARCHIVED_CHOICES = [("", _("not archived")), ("only", _("archived only")), ("all", _("archived or not"))]

    q = forms.CharField(label=_("Search"), required=False, max_length=500)
    category = forms.MultipleChoiceField(label=_("Category"), choices=CATEGORY_CHOICES, required=False)
    tag = forms.CharField(label=_("Tag"), required=False, max_length=100)
    origin = forms.ChoiceField(label=_("Origin"), required=False)
    since = forms.DateField(label=_("From"), required=False, widget=forms.DateInput(attrs={"type": "date"}))
    until = forms.DateField(label=_("To"), required=False, widget=forms.DateInput(attrs={"type": "date"}))
    archived = forms.ChoiceField(label=_("Archived"), choices=ARCHIVED_CHOICES, required=False)
    before = forms.IntegerField(required=False, min_value=1, widget=forms.HiddenInput)
    after = forms.IntegerField(required=False, min_value=1, widget=forms.HiddenInput)
    page = forms.IntegerField(required=False, min_value=0, max_value=10_000, widget=forms.HiddenInput)

    def __init__(self, *args, origins: list[str] = (), **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["origin"].choices = [("", _("every origin"))] + [(o, o) for o in origins]

    def value(self, name: str):
        """A filter's cleaned value; a bad one is ignored (and shown as an error beside its field)."""
        return self.cleaned_data.get(name) if hasattr(self, "cleaned_data") else None


class FactForm(forms.Form):
    subject = forms.CharField(label=_("Subject"), max_length=100, initial="user")
    predicate = forms.CharField(label=_("Predicate"), max_length=60,
                                help_text=_("e.g. name, nickname, language, preference, skill"))
    value = forms.CharField(label=_("Value"), max_length=MAX_VALUE_CHARS)
    negative = forms.BooleanField(label=_("A \"don't\" (never injected)"), required=False)

    def clean_predicate(self) -> str:
        predicate = self.cleaned_data["predicate"].strip()
        if not PREDICATE_SHAPE.match(predicate):
            raise forms.ValidationError(_("Letters and _ only, starting with a letter."))
        return predicate

    def clean(self):
        data = super().clean()
        value = " ".join(str(data.get("value", "")).split())
        if data.get("predicate") == "path" and value and not is_real_path(value):
            self.add_error("value", _("A path fact needs a plausible path, like /home/me/project or ~/notes."))
        data["value"] = value
        return data


class RecallForm(forms.Form):
    q = forms.CharField(label=_("What the agent is about to answer"), required=False, max_length=4000)
    max_chars = forms.IntegerField(label=_("Budget (characters)"), min_value=0, max_value=100_000, required=False,
                                   help_text=_("Blank: the space's maxInjectChars setting."))

