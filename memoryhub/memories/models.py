"""The native data plane: entries (events), facts (state), topics, persona, typed edges, op log."""

from __future__ import annotations

from django.db import models
from django.utils import timezone

from memoryhub.spaces.models import MemorySpace

CATEGORIES = [
    "progress", "pitfall", "decision", "structure", "experience", "companion",
    "preference", "fact", "insight", "context", "general",
]
CATEGORY_CHOICES = [(c, c) for c in CATEGORIES]
EDGE_TYPES = ["temporal", "entity", "causal", "semantic", "supersedes"]


class EntryQuerySet(models.QuerySet):
    def live(self):
        return self.filter(deleted_at__isnull=True)

    def recallable(self):
        """What automatic recall sees: live, not archived, not test, not merged away."""
        return self.live().filter(archived=False, is_test=False, merged_into__isnull=True)


class Entry(models.Model):
    KIND_CHOICES = [("turn", "turn"), ("note", "note"), ("save", "save"), ("digest", "digest"), ("import", "import")]

    space = models.ForeignKey(MemorySpace, on_delete=models.CASCADE, related_name="entries")
    kind = models.CharField(max_length=10, choices=KIND_CHOICES, default="note")
    at = models.DateTimeField(default=timezone.now, db_index=True)
    category = models.CharField(max_length=20, choices=CATEGORY_CHOICES, default="general")
    title = models.CharField(max_length=300, blank=True)
    body = models.TextField()
    summary = models.CharField(max_length=500, blank=True)
    tags = models.JSONField(default=list, blank=True)
    entities = models.JSONField(default=list, blank=True)
    related = models.JSONField(default=list, blank=True)
    session_id = models.CharField(max_length=200, blank=True, db_index=True)
    source = models.CharField(max_length=20, default="agent", help_text="user | agent | external | import")
    origin = models.CharField(max_length=60, default="local", db_index=True)
    channel = models.CharField(max_length=200, blank=True, help_text="Channel ids, e.g. group 123#u456.")
    importance = models.PositiveSmallIntegerField(default=3)
    hits = models.PositiveIntegerField(default=0)
    last_accessed_at = models.DateTimeField(null=True, blank=True)
    archived = models.BooleanField(default=False)
    is_test = models.BooleanField(default=False)
    digest = models.ForeignKey("self", null=True, blank=True, on_delete=models.SET_NULL, related_name="digested")
    merged_into = models.ForeignKey("self", null=True, blank=True, on_delete=models.SET_NULL, related_name="merged")
    topic = models.ForeignKey("memories.Topic", null=True, blank=True, on_delete=models.SET_NULL, related_name="entries")
    content_hash = models.CharField(max_length=64, db_index=True)
    idempotency_key = models.CharField(max_length=200, blank=True)
    redactions = models.PositiveIntegerField(default=0)
    created_at = models.DateTimeField(default=timezone.now)
    updated_at = models.DateTimeField(auto_now=True)
    deleted_at = models.DateTimeField(null=True, blank=True, db_index=True)
    # Waiting for the worker to add its edges and topic (enrich.py); a write only marks it.
    enrich_pending = models.BooleanField(default=False, editable=False)

    objects = EntryQuerySet.as_manager()

    class Meta:
        ordering = ["-at", "-id"]
        verbose_name_plural = "entries"
        indexes = [
            models.Index(fields=["space", "deleted_at", "-at"], name="entry_space_live_at"),
            models.Index(fields=["space", "session_id", "at"], name="entry_space_session_at"),
            # Every write looks for a repeated key and a byte-identical entry first.
            models.Index(fields=["space", "idempotency_key"], name="entry_space_idempotency"),
            models.Index(fields=["space", "content_hash"], name="entry_space_content_hash"),
            models.Index(fields=["space", "origin"], name="entry_space_origin"),  # the dashboard's origin filter
            models.Index(fields=["space", "at"], condition=models.Q(enrich_pending=True), name="entry_enrich_pending"),
        ]
        constraints = [
            models.UniqueConstraint(
                fields=["space", "idempotency_key"],
                condition=~models.Q(idempotency_key=""),
                name="entry_unique_idempotency_key",
            )
        ]

    def __str__(self) -> str:
        return f"{self.pk} {self.title or self.summary[:60]}"

    @property
    def at_iso(self) -> str:
        return timezone.localtime(self.at).isoformat()

    @property
    def at_minute(self) -> str:
        """"2026-11-30 14:05" in the hub's time zone (the list shows 50 of these; the date filter is slower)."""
        return timezone.localtime(self.at).strftime("%Y-%m-%d %H:%M")

    @property
    def headline(self) -> str:
        """The title, or else the summary, cut to 160 characters for one line of a list."""
        text = self.title or self.summary
        return text if len(text) <= 160 else text[:159] + "…"


class EntryVector(models.Model):
    """An entry's embedding from the configured model: float32, unit length (vectors.py).

    A new row id for every (re)embedding lets each process notice what changed since it last read.
    On PostgreSQL with pgvector the same vector is also kept in an `embedding` column with an HNSW index.
    """

    entry = models.OneToOneField(Entry, on_delete=models.CASCADE, related_name="vector")
    space = models.ForeignKey(MemorySpace, on_delete=models.CASCADE, related_name="+")
    model = models.CharField(max_length=200)
    dims = models.PositiveSmallIntegerField()
    data = models.BinaryField()
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        indexes = [models.Index(fields=["space", "model", "id"], name="entryvector_space_model")]

    def __str__(self) -> str:
        return f"{self.entry_id} {self.model} ({self.dims})"


class Topic(models.Model):
    space = models.ForeignKey(MemorySpace, on_delete=models.CASCADE, related_name="topics")
    session_id = models.CharField(max_length=200, blank=True, db_index=True)
    title = models.CharField(max_length=300, blank=True)
    kind = models.CharField(max_length=20, choices=CATEGORY_CHOICES, default="general")
    started_at = models.DateTimeField()
    ended_at = models.DateTimeField()
    turn_count = models.PositiveIntegerField(default=0)
    entities = models.JSONField(default=list, blank=True)
    keywords = models.JSONField(default=list, blank=True)
    # Running counts behind entities/keywords/title, so a new turn folds in without re-reading the topic.
    signal = models.JSONField(default=dict, blank=True, editable=False)

    class Meta:
        ordering = ["-ended_at", "-id"]

    def __str__(self) -> str:
        return self.title


class Fact(models.Model):
    """A stable piece of state (subject, predicate, value) with slot-based conflict resolution."""

    STATUS_CHOICES = [("active", "active"), ("invalidated", "invalidated")]

    space = models.ForeignKey(MemorySpace, on_delete=models.CASCADE, related_name="facts")
    subject = models.CharField(max_length=100, default="user")
    predicate = models.CharField(max_length=60)
    value = models.CharField(max_length=500)
    negative = models.BooleanField(default=False, help_text="A 'don't' statement: never injected.")
    status = models.CharField(max_length=12, choices=STATUS_CHOICES, default="active", db_index=True)
    origin = models.CharField(max_length=60, default="local")
    source_entry = models.ForeignKey(Entry, null=True, blank=True, on_delete=models.SET_NULL, related_name="facts")
    method = models.CharField(max_length=10, default="rule", help_text="rule | llm | manual")
    confidence = models.FloatField(default=1.0)
    created_at = models.DateTimeField(default=timezone.now)
    refreshed_at = models.DateTimeField(default=timezone.now)
    invalidated_at = models.DateTimeField(null=True, blank=True)
    invalidated_by = models.ForeignKey("self", null=True, blank=True, on_delete=models.SET_NULL, related_name="invalidated")

    class Meta:
        ordering = ["subject", "predicate", "-created_at"]
        indexes = [models.Index(fields=["space", "status", "subject", "predicate"], name="fact_slot")]

    def __str__(self) -> str:
        return f"{self.subject}/{self.predicate} = {self.value} ({self.status})"


class Persona(models.Model):
    space = models.OneToOneField(MemorySpace, on_delete=models.CASCADE, related_name="persona")
    profile = models.TextField(blank=True, help_text="Written by a person or the agent.")
    frame = models.TextField(blank=True, help_text="Derived from facts and stable events.")
    events = models.JSONField(default=list, blank=True, help_text="Long-term constraints kept by the rebuild.")
    rebuilt_at = models.DateTimeField(null=True, blank=True)
    entries_since_rebuild = models.PositiveIntegerField(default=0)

    def __str__(self) -> str:
        return f"persona of {self.space}"


class Edge(models.Model):
    source = models.ForeignKey(Entry, on_delete=models.CASCADE, related_name="edges_out")
    target = models.ForeignKey(Entry, on_delete=models.CASCADE, related_name="edges_in")
    edge_type = models.CharField(max_length=12, choices=[(t, t) for t in EDGE_TYPES])
    weight = models.FloatField(default=1.0)
    metadata = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["source", "target", "edge_type"], name="edge_unique")]
        indexes = [models.Index(fields=["target", "edge_type"], name="edge_target_type")]

    def __str__(self) -> str:
        return f"{self.source_id} -{self.edge_type}-> {self.target_id}"


class OpLog(models.Model):
    """The last operations on a space (a ring of OPLOG_KEEP rows per space)."""

    space = models.ForeignKey(MemorySpace, on_delete=models.CASCADE, related_name="oplog")
    operation = models.CharField(max_length=30)
    entry_id = models.CharField(max_length=40, blank=True)
    detail = models.TextField(blank=True)
    actor = models.CharField(max_length=200, blank=True)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["-id"]
        indexes = [models.Index(fields=["space", "-id"], name="oplog_space_id")]

    def __str__(self) -> str:
        return f"{self.operation} {self.entry_id}"


class EntityRef(models.Model):
    """Which live entries mention an entity: the index behind entity edges and top entities."""

    space = models.ForeignKey(MemorySpace, on_delete=models.CASCADE, related_name="entity_refs")
    entry = models.ForeignKey(Entry, on_delete=models.CASCADE, related_name="entity_refs")
    name = models.CharField(max_length=200)

    class Meta:
        indexes = [models.Index(fields=["space", "name"], name="entityref_space_name")]
        constraints = [models.UniqueConstraint(fields=["entry", "name"], name="entityref_unique")]

    def __str__(self) -> str:
        return self.name


class RemoteWrite(models.Model):
    """A write sent to a third-party provider, kept locally with its receipt.

    Nothing is lost when a provider is slow or down, and writes whose outcome is not yet
    proven (OpenViking verification, timeouts) stay visible as "pending check".
    """

    STATES = [(s, s) for s in ("committed", "accepted", "pending_verification", "unknown", "failed")]

    space = models.ForeignKey(MemorySpace, on_delete=models.CASCADE, related_name="remote_writes")
    state = models.CharField(max_length=24, choices=STATES, db_index=True)
    provider_id = models.CharField(max_length=500, blank=True)
    uri = models.CharField(max_length=1000, blank=True)
    detail = models.JSONField(default=dict, blank=True)
    error = models.TextField(blank=True)
    title = models.CharField(max_length=300, blank=True)
    body = models.TextField()
    category = models.CharField(max_length=20, default="general")
    session_id = models.CharField(max_length=200, blank=True)
    origin = models.CharField(max_length=60, default="local")
    created_at = models.DateTimeField(default=timezone.now)
    checked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"{self.space_id} {self.state} {self.provider_id or self.uri}"

    @property
    def needs_check(self) -> bool:
        return self.state in ("pending_verification", "unknown")


class ConsolidationRun(models.Model):
    """What one consolidation run marked and created, exactly, so it can be undone."""

    STATUS_CHOICES = [("applied", "applied"), ("undone", "undone")]

    space = models.ForeignKey(MemorySpace, on_delete=models.CASCADE, related_name="consolidation_runs")
    status = models.CharField(max_length=10, choices=STATUS_CHOICES, default="applied")
    counts = models.JSONField(default=dict, blank=True)
    merged = models.JSONField(default=dict, blank=True, help_text="{loser id: winner id}")
    digested = models.JSONField(default=dict, blank=True, help_text="{digest id: [turn ids]}")
    archived = models.JSONField(default=list, blank=True, help_text="Entry ids this run archived.")
    method = models.CharField(max_length=10, default="rule", help_text="How digests were written: rule | llm")
    actor = models.CharField(max_length=200, blank=True)
    created_at = models.DateTimeField(default=timezone.now)
    undone_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-id"]

    def __str__(self) -> str:
        return f"consolidation #{self.pk} of {self.space} ({self.status})"


class Notebook(models.Model):
    """One hot-memory file (MEMORY.md or USER.md) of a workspace, or of the hub when workspace is empty.

    The row is the source of truth; the files under the data dir are written from it.
    """

    TARGET_CHOICES = [("memory", "MEMORY.md"), ("user", "USER.md")]

    workspace = models.ForeignKey("spaces.Workspace", null=True, blank=True, on_delete=models.CASCADE,
                                  related_name="notebooks")
    target = models.CharField(max_length=10, choices=TARGET_CHOICES)
    entries = models.JSONField(default=list, blank=True)
    updated_at = models.DateTimeField(default=timezone.now)
    updated_by = models.CharField(max_length=200, blank=True)

    class Meta:
        ordering = ["workspace_id", "target"]
        constraints = [
            models.UniqueConstraint(fields=["workspace", "target"], condition=models.Q(workspace__isnull=False),
                                    name="notebook_unique_per_workspace"),
            models.UniqueConstraint(fields=["target"], condition=models.Q(workspace__isnull=True),
                                    name="notebook_unique_global"),
        ]

    def __str__(self) -> str:
        return f"{self.workspace.slug if self.workspace_id else 'global'}/{self.get_target_display()}"
