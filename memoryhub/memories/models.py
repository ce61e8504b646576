"""The native data plane: entries (events), facts (state), topics, persona, typed edges, op log."""

from __future__ import annotations

from django.db import models
from django.utils import timezone

from memoryhub.spaces.models import MemorySpace


class Category(models.TextChoices):
    """What a memory is about (Mnemon's categories); a topic takes its turns' weightiest one."""

    PROGRESS = "progress", "progress"
    PITFALL = "pitfall", "pitfall"
    DECISION = "decision", "decision"
    STRUCTURE = "structure", "structure"
    EXPERIENCE = "experience", "experience"
    COMPANION = "companion", "companion"
    PREFERENCE = "preference", "preference"
    FACT = "fact", "fact"
    INSIGHT = "insight", "insight"
    CONTEXT = "context", "context"
    GENERAL = "general", "general"


CATEGORIES = Category.values


class Kind(models.TextChoices):
    """How an entry came to be: a conversation turn, a note, an explicit save, a consolidation digest."""

    TURN = "turn", "turn"
    NOTE = "note", "note"
    SAVE = "save", "save"
    DIGEST = "digest", "digest"
    IMPORT = "import", "import"


class Source(models.TextChoices):
    """Who wrote an entry; an import's entries never call a model (seed 003: backfill is rule-summarised)."""

    USER = "user", "user"
    AGENT = "agent", "agent"
    EXTERNAL = "external", "external"
    IMPORT = "import", "import"


class EdgeType(models.TextChoices):
    TEMPORAL = "temporal", "temporal"
    ENTITY = "entity", "entity"
    CAUSAL = "causal", "causal"
    SEMANTIC = "semantic", "semantic"
    SUPERSEDES = "supersedes", "supersedes"


EDGE_TYPES = EdgeType.values


class Method(models.TextChoices):
    """How a fact or a digest was made: by rules, by the configured model, or by a person."""

    RULE = "rule", "rule"
    LLM = "llm", "llm"
    MANUAL = "manual", "manual"


TEST_TAG = "test"  # an entry carrying it is a test entry (Entry.is_test), never recalled automatically
ARCHIVED = "archived"  # in skipTags, the archive mark: archived by consolidation or the maxEntries cap, or merged
AUTOMATIC_SKIP = (TEST_TAG, ARCHIVED)  # what automatic recall (/context) leaves out unless skipTags says otherwise
SEARCH_SKIP = (TEST_TAG,)  # what memory_search leaves out by default: archived entries stay findable


def is_test_tagged(tags: list[str] | None) -> bool:
    """Entry.is_test follows the tags: the write gateway sets it from this on every write, edit and re-tag."""
    return TEST_TAG in (tags or [])


class EntryQuerySet(models.QuerySet):
    def live(self):
        return self.filter(deleted_at__isnull=True)

    def recallable(self):
        """What automatic recall sees: live, not archived, not test, not merged away."""
        return self.live().filter(archived=False, is_test=False, merged_into__isnull=True)


class Entry(models.Model):
    space = models.ForeignKey(MemorySpace, on_delete=models.CASCADE, related_name="entries")
    kind = models.CharField(max_length=10, choices=Kind.choices, default=Kind.NOTE)
    at = models.DateTimeField(default=timezone.now, db_index=True)
    category = models.CharField(max_length=20, choices=Category.choices, default=Category.GENERAL)
    title = models.CharField(max_length=300, blank=True)
    body = models.TextField()
    summary = models.CharField(max_length=500, blank=True)
    tags = models.JSONField(default=list, blank=True)
    entities = models.JSONField(default=list, blank=True)
    related = models.JSONField(default=list, blank=True)
    session_id = models.CharField(max_length=200, blank=True, db_index=True)
    source = models.CharField(max_length=20, choices=Source.choices, default=Source.AGENT)
    origin = models.CharField(max_length=60, default="local", db_index=True)
    channel = models.CharField(max_length=200, blank=True, help_text="Channel ids, e.g. group 123#u456.")
    chat = models.JSONField(default=dict, blank=True, help_text="The bridged chat the turn came from (channels.py).")
    provenance = models.JSONField(default=dict, blank=True,
                                  help_text="Where an imported or copied memory came from: the system, its id there and "
                                            "the metadata it had (maintenance/importers, copies.py).")
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
            models.Index(fields=["space", "origin", "idempotency_key"], name="entry_space_origin_idempotency"),
            models.Index(fields=["space", "content_hash"], name="entry_space_content_hash"),
            models.Index(fields=["space", "origin"], name="entry_space_origin"),  # the dashboard's origin filter
            models.Index(fields=["space", "at"], condition=models.Q(enrich_pending=True), name="entry_enrich_pending"),
        ]
        constraints = [
            # Keys are kept per origin: a key another origin used must not answer with its entry.
            models.UniqueConstraint(
                fields=["space", "origin", "idempotency_key"],
                condition=~models.Q(idempotency_key=""),
                name="entry_unique_origin_idempotency_key",
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
    """A run of one session's turns on one subject; only turns of its own origin join it (its title is theirs)."""

    space = models.ForeignKey(MemorySpace, on_delete=models.CASCADE, related_name="topics")
    origin = models.CharField(max_length=60, default="local")
    session_id = models.CharField(max_length=200, blank=True, db_index=True)
    title = models.CharField(max_length=300, blank=True)
    kind = models.CharField(max_length=20, choices=Category.choices, default=Category.GENERAL)
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

    class Status(models.TextChoices):
        ACTIVE = "active", "active"
        INVALIDATED = "invalidated", "invalidated"

    space = models.ForeignKey(MemorySpace, on_delete=models.CASCADE, related_name="facts")
    subject = models.CharField(max_length=100, default="user")
    predicate = models.CharField(max_length=60)
    value = models.CharField(max_length=500)
    negative = models.BooleanField(default=False, help_text="A 'don't' statement: never injected.")
    status = models.CharField(max_length=12, choices=Status.choices, default=Status.ACTIVE, db_index=True)
    origin = models.CharField(max_length=60, default="local")
    source_entry = models.ForeignKey(Entry, null=True, blank=True, on_delete=models.SET_NULL, related_name="facts")
    method = models.CharField(max_length=10, choices=Method.choices, default=Method.RULE)
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
    """Who the user is, per space and origin: a group chat's frame and profile never reach a private session."""

    space = models.ForeignKey(MemorySpace, on_delete=models.CASCADE, related_name="personas")
    origin = models.CharField(max_length=60, default="local")
    profile = models.TextField(blank=True, help_text="Written by a person or the agent.")
    frame = models.TextField(blank=True, help_text="Derived from facts and stable events.")
    events = models.JSONField(default=list, blank=True, help_text="Long-term constraints kept by the rebuild.")
    rebuilt_at = models.DateTimeField(null=True, blank=True)
    entries_since_rebuild = models.PositiveIntegerField(default=0)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["space", "origin"], name="persona_unique_origin")]

    def __str__(self) -> str:
        return f"persona of {self.space} ({self.origin})"


class Edge(models.Model):
    source = models.ForeignKey(Entry, on_delete=models.CASCADE, related_name="edges_out")
    target = models.ForeignKey(Entry, on_delete=models.CASCADE, related_name="edges_in")
    edge_type = models.CharField(max_length=12, choices=EdgeType.choices)
    weight = models.FloatField(default=1.0)
    metadata = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["source", "target", "edge_type"], name="edge_unique")]
        indexes = [models.Index(fields=["target", "edge_type"], name="edge_target_type")]

    def __str__(self) -> str:
        return f"{self.source_id} -{self.edge_type}-> {self.target_id}"


class OpLog(models.Model):
    """The last operations on a space (a ring of OPLOG_KEEP rows per space).

    `seq` numbers a space's operations 1, 2, 3 …, so a write trims its own space's log with one
    indexed DELETE (seq ≤ newest − OPLOG_KEEP) instead of counting it.
    """

    space = models.ForeignKey(MemorySpace, on_delete=models.CASCADE, related_name="oplog")
    seq = models.PositiveBigIntegerField(default=0, editable=False)
    operation = models.CharField(max_length=30)
    entry_id = models.CharField(max_length=40, blank=True)
    detail = models.TextField(blank=True)
    actor = models.CharField(max_length=200, blank=True)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["-id"]
        indexes = [models.Index(fields=["space", "-id"], name="oplog_space_id"),
                   models.Index(fields=["space", "seq"], name="oplog_space_seq")]

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

    class State(models.TextChoices):
        """A provider receipt's states (providers.base.RECEIPT_STATES)."""

        COMMITTED = "committed", "committed"
        ACCEPTED = "accepted", "accepted"
        PENDING_VERIFICATION = "pending_verification", "pending_verification"
        UNKNOWN = "unknown", "unknown"
        FAILED = "failed", "failed"

    space = models.ForeignKey(MemorySpace, on_delete=models.CASCADE, related_name="remote_writes")
    state = models.CharField(max_length=24, choices=State.choices, db_index=True)
    provider_id = models.CharField(max_length=500, blank=True)
    uri = models.CharField(max_length=1000, blank=True)
    detail = models.JSONField(default=dict, blank=True)
    error = models.TextField(blank=True)
    title = models.CharField(max_length=300, blank=True)
    body = models.TextField()
    category = models.CharField(max_length=20, default=Category.GENERAL)
    session_id = models.CharField(max_length=200, blank=True)
    origin = models.CharField(max_length=60, default="local")
    idempotency_key = models.CharField(max_length=200, blank=True)  # as stored (drafts.stored_key): one write per key
    created_at = models.DateTimeField(default=timezone.now)
    checked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.UniqueConstraint(fields=["space", "origin", "idempotency_key"],
                                    condition=~models.Q(idempotency_key=""), name="remotewrite_unique_key"),
        ]

    def __str__(self) -> str:
        return f"{self.space_id} {self.state} {self.provider_id or self.uri}"

    @property
    def needs_check(self) -> bool:
        return self.state in (self.State.PENDING_VERIFICATION, self.State.UNKNOWN)


class RemoteRecord(models.Model):
    """Which origin wrote a third-party record through the hub: the engines keep no origin, so the hub does.

    One row per id the hub handed out (a write's receipt id) or learnt (the records an async write
    became). A record without a row was not written through the hub and counts as local (seed 003).
    """

    space = models.ForeignKey(MemorySpace, on_delete=models.CASCADE, related_name="+")
    record_id = models.CharField(max_length=500)
    origin = models.CharField(max_length=60)
    write = models.ForeignKey(RemoteWrite, null=True, blank=True, on_delete=models.SET_NULL, related_name="records")

    class Meta:
        constraints = [models.UniqueConstraint(fields=["space", "record_id"], name="remoterecord_unique_id")]

    def __str__(self) -> str:
        return f"{self.space_id}:{self.record_id} ({self.origin})"


class ConsolidationRun(models.Model):
    """What one consolidation run marked and created, exactly, so it can be undone."""

    class Status(models.TextChoices):
        APPLIED = "applied", "applied"
        UNDONE = "undone", "undone"

    space = models.ForeignKey(MemorySpace, on_delete=models.CASCADE, related_name="consolidation_runs")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.APPLIED)
    counts = models.JSONField(default=dict, blank=True)
    merged = models.JSONField(default=dict, blank=True, help_text="{loser id: winner id}")
    digested = models.JSONField(default=dict, blank=True, help_text="{digest id: [turn ids]}")
    archived = models.JSONField(default=list, blank=True, help_text="Entry ids this run archived.")
    method = models.CharField(max_length=10, choices=Method.choices, default=Method.RULE,
                              help_text="How digests were written.")
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

    class Target(models.TextChoices):
        MEMORY = "memory", "MEMORY.md"
        USER = "user", "USER.md"

    workspace = models.ForeignKey("spaces.Workspace", null=True, blank=True, on_delete=models.CASCADE,
                                  related_name="notebooks")
    target = models.CharField(max_length=10, choices=Target.choices)
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


class SpaceCopy(models.Model):
    """A person's copy of one space's memories into another (maintenance/copies.py), kept with a receipt per memory
    so a second run sends only what has not arrived, and the source loses nothing until the person says so."""

    source = models.ForeignKey(MemorySpace, on_delete=models.CASCADE, related_name="copies_out")
    target = models.ForeignKey(MemorySpace, on_delete=models.CASCADE, related_name="copies_in")
    created_by = models.CharField(max_length=200, blank=True)
    created_at = models.DateTimeField(default=timezone.now)
    forgotten_at = models.DateTimeField(null=True, blank=True,
                                        help_text="When a person last removed the copied memories from the source.")

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [models.UniqueConstraint(fields=["source", "target"], name="spacecopy_unique_pair")]

    def __str__(self) -> str:
        return f"{self.source} → {self.target}"


class CopyReceipt(models.Model):
    """What became of one source memory in the target: the target's receipt state (RemoteWrite.State), its id there,
    and whether the person has since removed it from the source."""

    copy = models.ForeignKey(SpaceCopy, on_delete=models.CASCADE, related_name="receipts")
    source_id = models.CharField(max_length=500, help_text="The entry's id, or the engine's record id.")
    state = models.CharField(max_length=24, choices=RemoteWrite.State.choices, db_index=True)
    target_id = models.CharField(max_length=1000, blank=True, help_text="The entry, record id or URI in the target.")
    error = models.TextField(blank=True)
    attempts = models.PositiveIntegerField(default=1)
    source_forgotten = models.BooleanField(default=False)
    updated_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["id"]
        constraints = [models.UniqueConstraint(fields=["copy", "source_id"], name="copyreceipt_unique_source")]

    def __str__(self) -> str:
        return f"{self.copy_id}:{self.source_id} {self.state}"
