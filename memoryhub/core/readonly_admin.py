"""The Django admin's view of the hub's own rows: look, never add, change or delete.

Every row the hub keeps has one door that keeps its promises: the write gateway (redaction, the search
index, the op log), the space service (checks, the audit log), the vault's grants (a person's decision,
audited), the token service (hashing, the token cache), the job runner (cancel stops the work). The
admin writes rows directly and would go around each of them, so every model of ours is read-only there;
the dashboard is where a person changes things.
"""

from __future__ import annotations

from django.contrib import admin


class ReadOnlyAdmin(admin.ModelAdmin):
    actions = None  # no bulk delete, and no action of a third-party admin that would change rows

    def has_add_permission(self, request, obj=None) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False
