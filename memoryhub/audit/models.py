"""Who did what, when: a person's changes through the dashboard and the admin, agents' vault requests and reads,
the hub's own spaces. Actions come from the registry (actions.py); `record()` is the one way to write a row."""

from django.conf import settings
from django.db import models

from memoryhub.audit.actions import Action
from memoryhub.core.redaction import redact_value


class AuditEvent(models.Model):
    at = models.DateTimeField(auto_now_add=True, db_index=True)
    actor = models.CharField(max_length=200, help_text="A username, or token:<name> for an agent.")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    action = models.CharField(max_length=60, db_index=True, help_text="A name from audit/actions.py.")
    target = models.CharField(max_length=200, blank=True)
    before = models.JSONField(null=True, blank=True, help_text="What the change found (None for a creation).")
    after = models.JSONField(null=True, blank=True, help_text="What the change left (None for a deletion).")
    detail = models.JSONField(default=dict, blank=True)

    class Meta:
        ordering = ["-at", "-id"]

    def __str__(self) -> str:
        return f"{self.at:%Y-%m-%d %H:%M} {self.actor} {self.action} {self.target}"

    @property
    def label(self) -> str:
        """The action as the registry names it; a name from before the registry stays as it was."""
        return Action(self.action).label if self.action in Action.values else self.action

    def changes(self) -> list[tuple[str, object, object]]:
        """(key, before, after) for each key either side names, for the audit page."""
        before = self.before if isinstance(self.before, dict) else {}
        after = self.after if isinstance(self.after, dict) else {}
        return [(key, before.get(key), after.get(key)) for key in dict.fromkeys([*before, *after])]


def record(actor: str, action: str, target: str = "", user=None, *, before=None, after=None,
           **detail) -> AuditEvent:
    """One event of a registered action (any other name is a ValueError, so a typo fails its first test).

    `before` and `after` are what the change found and what it left, as JSON (audit/changes.py makes them);
    `detail` holds anything else. All three are redacted: they quote what agents sent (criteria, queries)."""
    return AuditEvent.objects.create(
        actor=actor, action=Action(action), target=target, user=user, detail=redact_value(detail),
        before=None if before is None else redact_value(before), after=None if after is None else redact_value(after))
