from django.contrib import admin

from memoryhub.agents.models import AgentSession, ApiToken


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin):
    """The hash is not shown: it is useless to a person and only helps an attacker."""

    list_display = ("name", "prefix", "origin", "created_at", "last_used_at", "paused_at", "revoked_at")
    list_filter = ("origin",)
    search_fields = ("name", "prefix")
    exclude = ("token_hash",)
    readonly_fields = ("prefix", "created_at", "last_used_at")


@admin.register(AgentSession)
class AgentSessionAdmin(admin.ModelAdmin):
    list_display = ("session_id", "token", "started_at", "last_seen_at", "ended_at")
    list_filter = ("ended_at",)
    search_fields = ("session_id",)

