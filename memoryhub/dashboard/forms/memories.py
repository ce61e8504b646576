"""Forms of a space's memory pages: notes, entry edits, the memories filter, facts, recall preview, profile."""

from __future__ import annotations

from django import forms
from django.utils.translation import gettext_lazy as _

from memoryhub.dashboard import labels
from memoryhub.dashboard.forms.rules import Rule, RuleForm
from memoryhub.memories.facts.slots import PREDICATE_SHAPE, is_real_path
from memoryhub.memories.models import CATEGORIES

CATEGORY_CHOICES = labels.choices("category", CATEGORIES)


class NoteForm(RuleForm):
    """A person's note: its text under memory_note's rule, its title, category and tags under memory_save's.

    Unlike an agent's memory_save, the title and the category may be left out: the hub derives a title from the
    text and guesses the category (a person noting something down should not have to classify it first)."""

    rules = {
        "text": Rule(_("Note"), "memory_note", widget=forms.Textarea(
            attrs={"rows": 3, "placeholder": _("Something the agents should remember")})),
        "title": Rule(_("Title"), "memory_save", required=False),
        "category": Rule(_("Category"), "memory_save", required=False, labels="category",
                         blank=_("guess from the text")),
        "tags": Rule(_("Tags"), "memory_save", help_text=_("Comma-separated.")),
    }


class EntryForm(RuleForm):
    """A person's correction of an entry (agents have no edit): the fields an agent's memory_save has, under its
    rules; the title may be blank, as the entry then shows its text's first line."""

    rules = {
        "title": Rule(_("Title"), "memory_save", required=False),
        "body": Rule(_("Text"), "memory_save", widget=forms.Textarea(attrs={"rows": 8})),
        "category": Rule(_("Category"), "memory_save", labels="category"),
        "tags": Rule(_("Tags"), "memory_save", help_text=_("Comma-separated.")),
    }


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


class FactForm(RuleForm):
    """Assert a fact by hand: memory_facts' assert, under its rules (a blank subject is `user`, as for agents).

    A person may also assert a "don't" (negative), which agents cannot: it is the owner's correction of what the
    hub heard. The predicate's shape and a path's plausibility are the fact store's own rules (facts/slots.py),
    checked here to say which one failed instead of the agents' "not a fact the hub can keep"."""

    operation, fixed = "memory_facts", {"action": "assert"}
    rules = {
        "subject": Rule(_("Subject"), initial="user"),
        "predicate": Rule(_("Predicate"), help_text=_("e.g. name, nickname, language, preference, skill"),
                          required=True, widget=forms.TextInput(attrs={"list": "predicates"})),
        "value": Rule(_("Value"), required=True),
    }
    negative = forms.BooleanField(label=_("A \"don't\" (never injected)"), required=False)

    def clean(self):
        data = super().clean()
        predicate, value = data.get("predicate") or "", " ".join(str(data.get("value") or "").split())
        if predicate and not self.has_error("predicate") and not PREDICATE_SHAPE.match(predicate):
            self.add_error("predicate", _("Letters and _ only, starting with a letter."))
        elif predicate == "path" and value and not is_real_path(value):
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


class ProfileForm(RuleForm):
    """The persona tab's profile: memory_profile's `set`, run as the person (redacted and logged as an agent's)."""

    operation, fixed = "memory_profile", {"action": "set"}
    rules = {"profile": Rule(_("Profile"), widget=forms.Textarea(attrs={"rows": 8}),
                             help_text=_("Injected first, as written; the frame, derived from facts, follows it."))}
