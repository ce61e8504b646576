from django.contrib import admin

from memoryhub.agents.models import AgentSession, ApiToken, RateWindow


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin):
    """The hash is not shown: it is useless to a person and only helps an attacker."""

    list_display = ("name", "prefix", "origin", "created_at", "last_used_at", "revoked_at")
    list_filter = ("origin",)
    search_fields = ("name", "prefix")
    exclude = ("token_hash",)
    readonly_fields = ("prefix", "created_at", "last_used_at")


@admin.register(AgentSession)
class AgentSessionAdmin(admin.ModelAdmin):
    list_display = ("session_id", "token", "started_at", "last_seen_at", "ended_at")
    list_filter = ("ended_at",)
    search_fields = ("session_id",)


@admin.register(RateWindow)
class RateWindowAdmin(admin.ModelAdmin):
    """Per-minute request counts; deleting a row lifts that token's limit for the rest of the minute."""

    list_display = ("token", "minute", "count")
    readonly_fields = ("token", "minute", "count")
