"""Forms of one memory's actions agents also have: link two memories, a trust verdict, forget a provider's record."""

from __future__ import annotations

from django.utils.translation import gettext_lazy as _

from memoryhub.dashboard.forms.rules import Rule, RuleForm, argument_schema

RECORD_ID = argument_schema("memory_link", "from")["maxLength"]  # a memory id's cap, where a page reads one


class LinkForm(RuleForm):
    """memory_link, as the person's link picker posts it (the memory, the one picked, the link's kind)."""

    operation = "memory_link"
    rules = {"from": Rule(_("Memory")), "to": Rule(_("Link to")), "kind": Rule(_("Kind"), labels="link")}


class FeedbackForm(RuleForm):
    """memory_feedback's rules; `id` is the provider's own id of a record on this space's page (an agent's is
    prefixed with the space's slug), under the same rule."""

    rules = {"id": Rule(_("Memory"), "memory_feedback"), "verdict": Rule(_("Verdict"), "memory_feedback")}


class RecordForm(RuleForm):
    """A third-party record to forget: its provider's id under memory_forget's rule for `id`."""

    rules = {"id": Rule(_("Memory"), "memory_forget")}
