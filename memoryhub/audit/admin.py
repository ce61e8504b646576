from django.contrib import admin

from memoryhub.audit.models import AuditEvent


@admin.register(AuditEvent)
class AuditEventAdmin(admin.ModelAdmin):
    list_display = ("at", "actor", "action", "target")
    list_filter = ("action",)
    search_fields = ("actor", "target")
    readonly_fields = ("at", "actor", "user", "action", "target", "detail")
