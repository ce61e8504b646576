"""Who did what, when: approvals, revocations, reads, settings changes."""

from django.conf import settings
from django.db import models

from memoryhub.core.redaction import redact_value


class AuditEvent(models.Model):
    at = models.DateTimeField(auto_now_add=True, db_index=True)
    actor = models.CharField(max_length=200, help_text="A username, or token:<name> for an agent.")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    action = models.CharField(max_length=60, db_index=True)
    target = models.CharField(max_length=200, blank=True)
    detail = models.JSONField(default=dict, blank=True)

    class Meta:
        ordering = ["-at", "-id"]

    def __str__(self) -> str:
        return f"{self.at:%Y-%m-%d %H:%M} {self.actor} {self.action} {self.target}"


def record(actor: str, action: str, target: str = "", user=None, **detail) -> AuditEvent:
    """One event; its detail is redacted (it quotes what agents sent: criteria, queries, paths)."""
    return AuditEvent.objects.create(actor=actor, action=action, target=target, user=user, detail=redact_value(detail))
