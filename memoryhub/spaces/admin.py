"""Workspaces, provider services and spaces in the admin, read-only: the space service, the Providers page
(validated config, secrets in their file) and the Workspaces page (the MEMORY.md switch, audited) change them."""

from django.contrib import admin

from memoryhub.core.readonly_admin import ReadOnlyAdmin
from memoryhub.spaces.models import MemorySpace, ProviderService, Workspace


@admin.register(Workspace)
class WorkspaceAdmin(ReadOnlyAdmin):
    list_display = ("slug", "name", "path", "export_memory_md", "export_vault", "created_by", "created_at")
    list_filter = ("export_memory_md", "export_vault")
    search_fields = ("slug", "name", "path")


@admin.register(ProviderService)
class ProviderServiceAdmin(ReadOnlyAdmin):
    """Secrets are never here: they live in the secrets file, not the database."""

    list_display = ("kind", "enabled", "last_checked", "last_error")
    list_filter = ("enabled", "kind")
    search_fields = ("kind", "last_error")


@admin.register(MemorySpace)
class MemorySpaceAdmin(ReadOnlyAdmin):
    list_display = ("slug", "name", "provider", "access", "active", "workspace", "last_write_at")
    list_filter = ("provider", "access", "active", "is_default")
    search_fields = ("slug", "name", "description")
