"""The forms that issue API tokens: the tokens page's and the connect page's.

A token's name is how every log names its agent (`token:<name>` in the op log, the audit log, a workspace's
"named by"), so two tokens never share one, revoked or not. The tokens page makes a token limited to the spaces
ticked unless the person chooses "every space" and is told what that allows.
"""

from __future__ import annotations

from django import forms
from django.utils.translation import gettext_lazy as _

from memoryhub.agents.models import ApiToken
from memoryhub.dashboard.forms.fields import DataSelect, DataSelectMultiple
from memoryhub.spaces.models import MemorySpace

UNRESTRICTED_HELP = _(
    "An unrestricted token reads and writes every open space and files requests for every vault space; a local one "
    "also names new workspaces (the hub makes their spaces), makes spaces, and reads and edits the notebooks "
    "(MEMORY.md, USER.md) injected into every session.")
ORIGIN_HELP = _("Where its conversations come from (local, qq, telegram…); memories are kept apart by origin.")


def unused_name(name: str) -> str:
    """A new token's name, refused when any token (revoked ones too) already has it."""
    name = name.strip()
    taken = ApiToken.objects.filter(name=name).order_by("-pk").first()
    if taken is not None:
        if taken.revoked_at:
            raise forms.ValidationError(
                _("A revoked token was called “%(name)s”; the logs name its agent so. Pick another name."),
                params={"name": name}, code="taken")
        raise forms.ValidationError(_("A token called “%(name)s” exists; pick another name, e.g. %(name)s-2."),
                                    params={"name": name}, code="taken")
    return name


class TokenForm(forms.Form):
    SCOPE_CHOICES = [("spaces", _("Only the spaces ticked below")),
                     ("all", _("Every space (unrestricted)"))]

    name = forms.CharField(label=_("Name"), max_length=100,
                           help_text=_("Who uses it, e.g. the agent or bot's name. Each token has its own."))
    origin = forms.SlugField(label=_("Origin"), max_length=60, initial="local", help_text=ORIGIN_HELP)
    scope = forms.ChoiceField(label=_("What it may use"), choices=SCOPE_CHOICES, initial="spaces",
                              widget=forms.RadioSelect, help_text=UNRESTRICTED_HELP)
    spaces = forms.ModelMultipleChoiceField(
        label=_("Spaces"), queryset=MemorySpace.objects.order_by("slug"), required=False,
        to_field_name="slug", help_text=_("The only spaces it may read and write."),
        widget=DataSelectMultiple(attrs={"size": 5}),
    )

    def clean_name(self) -> str:
        return unused_name(self.cleaned_data["name"])

    def clean(self):
        data = super().clean()
        if data.get("scope") == "all":
            data["spaces"] = []
        elif not data.get("spaces"):
            self.add_error("spaces", _("Tick at least one space, or choose “Every space”."))
        return data


class ConnectForm(forms.Form):
    """The connect page's token: a name, the space its snippets write to, and whether it may use only that one.

    Unrestricted by default, as a local coding agent needs it: its workspaces get spaces of their own on its first
    write. The page says what that allows beside the choice (unrestricted_help)."""

    unrestricted_help = UNRESTRICTED_HELP

    name = forms.CharField(label=_("Agent name"), max_length=100, initial="my-agent",
                           help_text=_("Who uses the token, e.g. the agent or bot's name."))
    space = forms.ModelChoiceField(
        label=_("Space"), queryset=MemorySpace.objects.filter(active=True).order_by("-is_default", "slug"),
        to_field_name="slug", empty_label=None, widget=DataSelect,
        help_text=_("Where its memories go: the snippets set MEMORYHUB_SPACE to it."))
    only_this_space = forms.BooleanField(
        label=_("Only this space"), required=False,
        help_text=_("Limit the token to this space. Left off, the token is unrestricted (what that allows is "
                    "said below)."))
    origin = forms.SlugField(label=_("Origin"), max_length=60, initial="local", help_text=ORIGIN_HELP)

    def clean_name(self) -> str:
        return unused_name(self.cleaned_data["name"])
