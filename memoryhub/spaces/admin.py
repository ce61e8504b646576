from django.contrib import admin

from memoryhub.spaces.models import MemorySpace, ProviderService, Workspace


@admin.register(Workspace)
class WorkspaceAdmin(admin.ModelAdmin):
    list_display = ("slug", "name", "path", "export_memory_md", "export_vault", "created_by", "created_at")
    list_filter = ("export_memory_md", "export_vault")
    search_fields = ("slug", "name", "path")


@admin.register(ProviderService)
class ProviderServiceAdmin(admin.ModelAdmin):
    """Secrets are never here: they live in the secrets file, not the database."""

    list_display = ("kind", "enabled", "last_checked", "last_error")
    list_filter = ("enabled", "kind")
    search_fields = ("kind", "last_error")


@admin.register(MemorySpace)
class MemorySpaceAdmin(admin.ModelAdmin):
    list_display = ("slug", "name", "provider", "access", "active", "workspace", "last_write_at")
    list_filter = ("provider", "access", "active", "is_default")
    search_fields = ("slug", "name", "description")
