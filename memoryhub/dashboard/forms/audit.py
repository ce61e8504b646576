"""The audit log's filters; they live in the URL so a filtered view can be bookmarked or shared."""

from __future__ import annotations

from django import forms
from django.utils.translation import gettext_lazy as _

from memoryhub.audit.actions import Action


class AuditFilterForm(forms.Form):
    actor = forms.CharField(label=_("Who"), required=False, max_length=200)
    action = forms.ChoiceField(label=_("Action"), required=False)
    target = forms.CharField(label=_("Target contains"), required=False, max_length=200)
    since = forms.DateField(label=_("From"), required=False, widget=forms.DateInput(attrs={"type": "date"}))
    until = forms.DateField(label=_("To"), required=False, widget=forms.DateInput(attrs={"type": "date"}))
    before = forms.IntegerField(required=False, min_value=1, widget=forms.HiddenInput)

    def __init__(self, *args, actions: list[str] = (), **kwargs):
        super().__init__(*args, **kwargs)
        labels = dict(Action.choices)
        self.fields["action"].choices = [("", _("every action"))] + [(a, labels.get(a, a)) for a in actions]

    def value(self, name: str):
        """A filter's cleaned value; a bad one is ignored (and shown as an error beside its field)."""
        return self.cleaned_data.get(name) if hasattr(self, "cleaned_data") else None
