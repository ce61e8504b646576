from django.apps import AppConfig
from django.utils.translation import gettext_noop


class MemoriesConfig(AppConfig):
    name = "memoryhub.memories"
    label = "memories"

    def ready(self) -> None:
        """Register the worker's jobs and tasks, and the follow-ups that listen to the write gateway and to spaces."""
        from django.db.models.signals import pre_delete

        from memoryhub.jobs import registry
        from memoryhub.memories import tasks
        from memoryhub.memories.growth import enrich, topics
        from memoryhub.memories.maintenance import copies, gc
        from memoryhub.memories.notebooks import export
        from memoryhub.memories.search import fulltext, vectors
        from memoryhub.memories.write import events, gateway
        from memoryhub.spaces.models import MemorySpace

        registry.job("persona_rebuild", gettext_noop("Persona rebuild"), tasks.persona_rebuild)
        registry.job("verify_write", gettext_noop("Verify a remote write"), tasks.verify_write)
        registry.job("summarize", gettext_noop("Summarise a turn"), tasks.summarize_entry)
        registry.job("consolidate", gettext_noop("Consolidation"), tasks.consolidate_space)
        registry.job("consolidate_undo", gettext_noop("Undo consolidation"), tasks.consolidate_undo)
        registry.job("consolidation_preview", gettext_noop("Consolidation preview"), tasks.consolidation_preview)
        registry.job("compact", gettext_noop("Storage compaction"), tasks.compact_storage)
        registry.job("enforce_cap", gettext_noop("maxEntries cap"), tasks.enforce_cap)
        registry.job("import_history", gettext_noop("History import"), tasks.import_history)
        registry.job("retag_origin", gettext_noop("Origin re-tag"), tasks.retag_origin)
        registry.job("embed", gettext_noop("Embedding"), tasks.embed_space)
        registry.job("memory_md", gettext_noop("MEMORY.md export"), export.regenerate_job)
        registry.job("space_copy", gettext_noop("Space copy"), copies.run_job)
        registry.job("copy_forget", gettext_noop("Copied memories removed from the source"), copies.forget_job)

        # Tasks without a Job row; the schedules (migrations 0004, 0010–0012, 0014) store these paths.
        registry.task("enrich", enrich.run)
        registry.task("enrich_sweep", enrich.sweep)
        registry.task("embed_sweep", vectors.sweep)
        registry.task("recount_words", fulltext.recount_words)
        registry.task("daily_consolidation", tasks.daily_consolidation)
        # A vault's facts, after the write answered: durable, as no sweep could find them again.
        registry.task("vault_facts", gateway.vault_facts, durable=True)

        # What follows a change, in this order, inside the change's transaction (write/events.py).
        events.entry_written.connect(tasks.on_entry_written, dispatch_uid="memories.tasks")  # summary, persona
        events.entry_written.connect(gc.on_entry_written, dispatch_uid="memories.gc")  # the maxEntries cap
        events.entries_changed.connect(enrich.on_entries_changed, dispatch_uid="memories.enrich")  # edges, topic
        events.entries_changed.connect(topics.on_entries_changed, dispatch_uid="memories.topics")  # recount cards
        events.entries_changed.connect(export.on_entries_changed, dispatch_uid="memories.export")  # MEMORY.md
        # A deleted space's entries leave the search index (the dashboard, the admin, a cascade alike).
        pre_delete.connect(fulltext.unindex_space, sender=MemorySpace, dispatch_uid="memories.unindex_space")
