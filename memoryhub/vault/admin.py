"""Vault requests and grants in the admin, read-only: a person decides on the dashboard's vault pages (audited)."""

from django.contrib import admin

from memoryhub.core.readonly_admin import ReadOnlyAdmin
from memoryhub.vault.models import AccessRequest, Grant


@admin.register(AccessRequest)
class AccessRequestAdmin(ReadOnlyAdmin):
    list_display = ("id", "session_id", "matched", "status", "created_at", "decided_at")
    list_filter = ("status",)
    search_fields = ("id", "session_id")


@admin.register(Grant)
class GrantAdmin(ReadOnlyAdmin):
    list_display = ("request", "session_id", "created_at", "ended_at", "revoked_at")
    list_filter = ("revoked_at", "ended_at")
    search_fields = ("session_id", "request__id")
    raw_id_fields = ("entries",)
