"""Tokens and agent sessions in the admin, read-only: tokens are issued, paused and revoked on the API tokens
page (hashed, audited, the token cache told); a session ends through agents/sessions (its grants end with it)."""

from django.contrib import admin

from memoryhub.agents.models import AgentSession, ApiToken
from memoryhub.core.readonly_admin import ReadOnlyAdmin


@admin.register(ApiToken)
class ApiTokenAdmin(ReadOnlyAdmin):
    """The hash is not shown: it is useless to a person and only helps an attacker."""

    list_display = ("name", "prefix", "origin", "created_at", "last_used_at", "paused_at", "revoked_at")
    list_filter = ("origin",)
    search_fields = ("name", "prefix")
    exclude = ("token_hash",)
    readonly_fields = ("prefix", "created_at", "last_used_at")


@admin.register(AgentSession)
class AgentSessionAdmin(ReadOnlyAdmin):
    list_display = ("session_id", "token", "started_at", "last_seen_at", "ended_at")
    list_filter = ("ended_at",)
    search_fields = ("session_id",)

