from django.contrib import admin

from memoryhub.audit.models import AuditEvent


@admin.register(AuditEvent)
class AuditEventAdmin(admin.ModelAdmin):
    """Read-only: an audit record that can be added, edited or deleted proves nothing."""

    list_display = ("at", "actor", "action", "target")
    list_filter = ("action",)
    search_fields = ("actor", "target")
    readonly_fields = ("at", "actor", "user", "action", "target", "detail")

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False
