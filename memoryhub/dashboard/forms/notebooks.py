"""The notebook page's change form: the agents' `memory` operation, one change at a time."""

from __future__ import annotations

from django.utils.translation import gettext_lazy as _

from memoryhub.dashboard.forms.rules import Rule, RuleForm


class NotebookChangeForm(RuleForm):
    """One add, replace or remove under the `memory` operation's rules (what each action needs, the caps); the
    page's URL gives the action and the notebook (`fixed=`), the person the texts."""

    operation = "memory"
    rules = {"content": Rule(_("Entry text")), "old_text": Rule(_("Entry"))}
