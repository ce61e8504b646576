"""The audit log in the admin, read-only like everywhere."""

from django.contrib import admin

from memoryhub.audit.models import AuditEvent
from memoryhub.core.readonly_admin import ReadOnlyAdmin


@admin.register(AuditEvent)
class AuditEventAdmin(ReadOnlyAdmin):
    """An audit record that can be added, edited or deleted proves nothing."""

    list_display = ("at", "actor", "action", "target")
    list_filter = ("action",)
    search_fields = ("actor", "target")
    readonly_fields = ("at", "actor", "user", "action", "target", "before", "after", "detail")
