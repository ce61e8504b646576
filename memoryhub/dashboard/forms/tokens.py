"""The forms that issue API tokens: the tokens page's and the connect page's."""

from __future__ import annotations

from django import forms
from django.utils.translation import gettext_lazy as _

from memoryhub.spaces.models import MemorySpace


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
