"""The native data plane in the admin, read-only (core/readonly_admin.py): entries change through the write
gateway (the dashboard's memory pages), facts and persona through their tabs, consolidation through Maintenance."""

from django.contrib import admin

from memoryhub.core.readonly_admin import ReadOnlyAdmin
from memoryhub.memories.models import (ConsolidationRun, CopyReceipt, Edge, EntityRef, Entry, EntryVector, Fact, Notebook,
                                       OpLog, Persona, RemoteRecord, RemoteWrite, SpaceCopy, Topic)


@admin.register(Entry)
class EntryAdmin(ReadOnlyAdmin):
    list_display = ("id", "space", "kind", "category", "title", "at", "origin", "archived", "deleted_at")
    list_filter = ("category", "kind", "origin", "archived", "is_test", "space")
    search_fields = ("title", "summary", "body", "session_id")
    raw_id_fields = ("digest", "merged_into", "topic")
    date_hierarchy = "at"


@admin.register(Fact)
class FactAdmin(ReadOnlyAdmin):
    list_display = ("subject", "predicate", "value", "status", "negative", "space", "created_at")
    list_filter = ("status", "negative", "predicate", "method", "space")
    search_fields = ("subject", "predicate", "value")
    raw_id_fields = ("source_entry", "invalidated_by")


@admin.register(Topic)
class TopicAdmin(ReadOnlyAdmin):
    list_display = ("title", "space", "origin", "kind", "started_at", "ended_at", "turn_count")
    list_filter = ("kind", "space")
    search_fields = ("title", "session_id")


@admin.register(Persona)
class PersonaAdmin(ReadOnlyAdmin):
    list_display = ("space", "origin", "rebuilt_at", "entries_since_rebuild")
    search_fields = ("profile", "frame")


@admin.register(Edge)
class EdgeAdmin(ReadOnlyAdmin):
    list_display = ("source", "edge_type", "target", "weight", "created_at")
    list_filter = ("edge_type",)
    raw_id_fields = ("source", "target")


@admin.register(EntryVector)
class EntryVectorAdmin(ReadOnlyAdmin):
    """Derived data (the worker embeds each entry again when its text changes); the numbers are not shown."""

    list_display = ("entry", "space", "model", "dims", "created_at")
    list_filter = ("model", "space")
    raw_id_fields = ("entry", "space")
    exclude = ("data",)


@admin.register(OpLog)
class OpLogAdmin(ReadOnlyAdmin):
    list_display = ("created_at", "space", "operation", "entry_id", "actor")
    list_filter = ("operation", "space")
    search_fields = ("detail", "entry_id")


@admin.register(EntityRef)
class EntityRefAdmin(ReadOnlyAdmin):
    list_display = ("name", "entry", "space")
    list_filter = ("space",)
    search_fields = ("name",)
    raw_id_fields = ("entry",)


@admin.register(ConsolidationRun)
class ConsolidationRunAdmin(ReadOnlyAdmin):
    list_display = ("id", "space", "status", "method", "created_at", "undone_at")
    list_filter = ("status", "space")


@admin.register(RemoteWrite)
class RemoteWriteAdmin(ReadOnlyAdmin):
    list_display = ("created_at", "space", "state", "provider_id", "checked_at")
    list_filter = ("state", "space")
    search_fields = ("title", "body", "provider_id", "uri", "error")


@admin.register(RemoteRecord)
class RemoteRecordAdmin(ReadOnlyAdmin):
    list_display = ("record_id", "space", "origin", "write")
    list_filter = ("origin", "space")
    search_fields = ("record_id",)
    raw_id_fields = ("write",)


@admin.register(Notebook)
class NotebookAdmin(ReadOnlyAdmin):
    list_display = ("__str__", "updated_at", "updated_by")
    list_filter = ("target",)


@admin.register(SpaceCopy)
class SpaceCopyAdmin(ReadOnlyAdmin):
    list_display = ("__str__", "created_by", "created_at", "forgotten_at")
    raw_id_fields = ("source", "target")


@admin.register(CopyReceipt)
class CopyReceiptAdmin(ReadOnlyAdmin):
    list_display = ("__str__", "state", "attempts", "source_forgotten", "updated_at")
    list_filter = ("state",)
    search_fields = ("source_id", "target_id")
    raw_id_fields = ("copy",)
