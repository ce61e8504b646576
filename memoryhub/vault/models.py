"""Vault access: an agent files a request; a person approves exactly which entries; the grant dies with the session."""

from __future__ import annotations

import secrets

from django.conf import settings
from django.db import models
from django.utils import timezone


def new_request_id() -> str:
    return "req_" + secrets.token_hex(8)


class AccessRequest(models.Model):
    class Status(models.TextChoices):
        PENDING = "pending", "pending"
        APPROVED = "approved", "approved"
        DENIED = "denied", "denied"
        CLOSED = "closed", "closed"  # the session ended before a decision

    id = models.CharField(primary_key=True, max_length=40, default=new_request_id, editable=False)
    token = models.ForeignKey("agents.ApiToken", null=True, on_delete=models.SET_NULL, related_name="requests")
    session_id = models.CharField(max_length=200, db_index=True)
    spaces = models.ManyToManyField("spaces.MemorySpace", related_name="access_requests")
    criteria = models.JSONField(default=dict)
    matched = models.PositiveIntegerField(default=0, help_text="How many entries matched: for the person deciding, "
                                                               "never told to the agent (grants.MATCHED_FOR_AGENTS).")
    entries = models.ManyToManyField(
        "memories.Entry", blank=True, related_name="access_requests",
        help_text="The entries that matched when the request was filed: an approval can never reach beyond them.",
    )
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING, db_index=True)
    created_at = models.DateTimeField(default=timezone.now)
    decided_at = models.DateTimeField(null=True, blank=True)
    decided_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return self.id

    @property
    def criteria_text(self) -> list[tuple[str, str]]:
        """The criteria as (name, text) pairs for people to read."""
        return [(k, ", ".join(v) if isinstance(v, list) else str(v)) for k, v in self.criteria.items()]


class Grant(models.Model):
    """Exactly the approved entries, for one session, until it ends or is revoked."""

    request = models.OneToOneField(AccessRequest, on_delete=models.CASCADE, related_name="grant")
    session_id = models.CharField(max_length=200, db_index=True)
    entries = models.ManyToManyField("memories.Entry", related_name="grants")
    created_at = models.DateTimeField(default=timezone.now)
    ended_at = models.DateTimeField(null=True, blank=True, help_text="Session ended or went idle.")
    revoked_at = models.DateTimeField(null=True, blank=True)
    revoked_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    last_read_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"grant {self.request_id}"

    @property
    def live(self) -> bool:
        return self.ended_at is None and self.revoked_at is None
