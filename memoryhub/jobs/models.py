"""A Job row mirrors each background task, so the dashboard never depends on broker internals."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone


class Job(models.Model):
    class Status(models.TextChoices):
        QUEUED = "queued", "queued"
        RUNNING = "running", "running"
        SUCCEEDED = "succeeded", "succeeded"
        FAILED = "failed", "failed"
        CANCELLED = "cancelled", "cancelled"

    kind = models.CharField(max_length=40, db_index=True)
    label = models.CharField(max_length=200, blank=True)
    space = models.ForeignKey("spaces.MemorySpace", null=True, blank=True, on_delete=models.CASCADE, related_name="jobs")
    params = models.JSONField(default=dict, blank=True)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.QUEUED, db_index=True)
    progress = models.PositiveSmallIntegerField(default=0)
    message = models.CharField(max_length=300, blank=True)
    result = models.JSONField(default=dict, blank=True)
    error = models.TextField(blank=True)
    task_id = models.CharField(max_length=64, blank=True)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    created_at = models.DateTimeField(default=timezone.now)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    heartbeat_at = models.DateTimeField(null=True, blank=True, help_text="Last sign of life from the worker.")
    worker = models.CharField(max_length=100, blank=True, help_text="host:pid of the worker process running it.")
    log = models.JSONField(default=list, blank=True, editable=False,
                           help_text="Progress lines: {at, progress, message (untranslated), args}.")
    cancel_requested_at = models.DateTimeField(null=True, blank=True,
                                               help_text="A person cancelled it; it stops at its next progress point.")

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"{self.kind} #{self.pk} {self.status}"

    @property
    def problems(self) -> list[str]:
        """What went wrong in work that still finished (a model that failed, so rules stood in; unreadable lines of
        an import): the result's `error`, `errors` or `problems`. A succeeded job with any reads "finished with
        problems", never just "succeeded"."""
        result = self.result if isinstance(self.result, dict) else {}
        found = [str(result["error"])] if result.get("error") else []
        for key in ("errors", "problems"):
            if isinstance(result.get(key), list):
                found += [str(item) for item in result[key] if item]
        return found

    @property
    def duration(self):
        if self.started_at and self.finished_at:
            return self.finished_at - self.started_at
        return None


class Handoff(models.Model):
    """A task that must not be lost (registry.task(..., durable=True)): written in the transaction of the change
    that asks for it and deleted once the task has run. `task_id` stays blank while no broker has taken it (Redis
    was down), and `runner.dispatch_lost` hands it over again, as it does a Job; `error` keeps a failed run's
    reason (django-q2 keeps its traceback), and such a row is not sent again."""

    name = models.CharField(max_length=60, help_text="The registered task it runs.")
    args = models.JSONField(default=list, blank=True)
    label = models.CharField(max_length=200, blank=True)
    created_at = models.DateTimeField(default=timezone.now)
    task_id = models.CharField(max_length=64, blank=True)
    error = models.TextField(blank=True)

    class Meta:
        indexes = [models.Index(fields=["created_at"], condition=models.Q(task_id="", error=""),
                                name="handoff_unsent")]

    def __str__(self) -> str:
        return f"{self.name} #{self.pk}"
