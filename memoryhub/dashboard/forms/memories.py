"""Forms of a space's memory pages: notes, entry edits, the memories filter, facts, recall preview, profile."""

from __future__ import annotations

import re

from django import forms
from django.conf import settings
from django.utils.translation import gettext_lazy as _

from memoryhub.dashboard import labels
from memoryhub.dashboard.forms.fields import split_tags
from memoryhub.memories.facts.slots import MAX_VALUE_CHARS, is_real_path
from memoryhub.memories.models import CATEGORIES

CATEGORY_CHOICES = labels.choices("category", CATEGORIES)
PREDICATE_SHAPE = re.compile(r"^[A-Za-z][A-Za-z_]{0,59}$")


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
    reads = forms.ChoiceField(label=_("As an agent that"), required=False, choices=[
        ("unnamed", _("names no space (its turns land here)")), ("named", _("names this space"))])
    notebooks = forms.ChoiceField(label=_("Notebooks"), required=False, choices=[
        ("with", _("pinned first (a session's first block)")),
        ("without", _("left out (each prompt of the agent hooks)"))])


class ProfileForm(forms.Form):
    profile = forms.CharField(label=_("Profile"), required=False, max_length=4000,
                              widget=forms.Textarea(attrs={"rows": 8}),
                              help_text=_("Injected first, as written; the frame, derived from facts, follows it."))
