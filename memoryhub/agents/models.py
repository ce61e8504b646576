"""Who an agent is: API tokens (stored hashed) and agent sessions (rate windows live off the database: rates.py).

The tables keep the names they had when these models lived in the `api` app (`api_apitoken`…):
moving code between apps must not move users' data.
"""

from __future__ import annotations

import hashlib
import secrets

from django.conf import settings
from django.db import models
from django.utils import timezone

TOKEN_PREFIX = "mh_"
LOCAL_ORIGIN = "local"  # the agent runs beside the hub: it sees memories of every origin


def hash_token(raw: str) -> str:
    return hashlib.sha256(raw.encode()).hexdigest()


class ApiToken(models.Model):
    name = models.CharField(max_length=100)
    prefix = models.CharField(max_length=12, help_text="The first characters, to recognise a token without storing it.")
    token_hash = models.CharField(max_length=64, unique=True)
    origin = models.CharField(max_length=60, default=LOCAL_ORIGIN)
    spaces = models.ManyToManyField("spaces.MemorySpace", blank=True, related_name="tokens")
    created_at = models.DateTimeField(default=timezone.now)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    last_used_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)
    paused_at = models.DateTimeField(null=True, blank=True, help_text="While set, calls are refused with 403 paused; "
                                     "the token keeps its settings and resumes when cleared.")

    class Meta:
        db_table = "api_apitoken"
        ordering = ["name"]

    def __str__(self) -> str:
        return f"{self.name} ({self.prefix}…)"

    @classmethod
    def issue(cls, name: str, origin: str = LOCAL_ORIGIN, spaces=(), user=None) -> tuple["ApiToken", str]:
        """Create a token; the raw value is returned once and never stored."""
        raw = TOKEN_PREFIX + secrets.token_urlsafe(32)
        token = cls.objects.create(
            name=name, origin=origin or LOCAL_ORIGIN, prefix=raw[:10], token_hash=hash_token(raw), created_by=user
        )
        if spaces:
            token.spaces.set(spaces)
        return token, raw

    @property
    def actor(self) -> str:
        return f"token:{self.name}"


class AgentSession(models.Model):
    """One agent conversation: the unit grants and notebook snapshots are bound to."""

    session_id = models.CharField(max_length=200)
    token = models.ForeignKey(ApiToken, on_delete=models.CASCADE, related_name="sessions")
    started_at = models.DateTimeField(default=timezone.now)
    last_seen_at = models.DateTimeField(default=timezone.now)
    ended_at = models.DateTimeField(null=True, blank=True)
    snapshot = models.JSONField(default=dict, blank=True, help_text="What was frozen at the session's first context call.")

    class Meta:
        db_table = "api_agentsession"
        constraints = [models.UniqueConstraint(fields=["token", "session_id"], name="session_unique_per_token")]

    def __str__(self) -> str:
        return self.session_id
