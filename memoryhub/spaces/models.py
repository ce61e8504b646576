"""Where memories live: workspaces, provider services (shared config) and memory spaces."""

from __future__ import annotations

import hashlib
import re
from pathlib import PurePosixPath

from django.db import models
from django.utils import timezone

from memoryhub.core.redaction import redact
from providers.registry import PROVIDERS

PROVIDER_KINDS = [(kind, kind) for kind in PROVIDERS]  # the registry is the list; no second copy of it here
SLUG_RE = re.compile(r"^[a-z0-9][a-z0-9_-]{0,79}$")


def workspace_slug_for_path(path: str) -> str:
    """Directory name + first 8 hex of sha1 of the absolute path: moving a directory never mixes stores.

    A secret in the name (a key pasted as a directory name) is redacted: slugs show up in job labels and URLs."""
    name = redact(PurePosixPath(path).name).text or "root"
    name = re.sub(r"[^a-z0-9_-]+", "-", name.lower()).strip("-") or "ws"
    return f"{name[:60]}-{hashlib.sha1(path.encode()).hexdigest()[:8]}"


class Workspace(models.Model):
    """An agent's working directory. Agents may name one, but the hub writes into it only once a person said so."""

    slug = models.SlugField(max_length=80, unique=True)
    name = models.CharField(max_length=200)
    path = models.CharField(max_length=1000, blank=True, help_text="The agent's working directory, if known.")
    export_memory_md = models.BooleanField(
        default=False, help_text="Write MEMORY.md into the directory. Off until a person switches it on: an agent "
                                 "naming a path must not make the hub write files there.")
    export_vault = models.BooleanField(
        default=False, help_text="Include vault spaces in MEMORY.md (off: the file would leak what agents may not read)."
    )
    created_by = models.CharField(max_length=200, blank=True, help_text="Who first named it (an agent's token, or hub).")
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


class ProviderService(models.Model):
    """Service-level config of one provider kind, shared by all its spaces. Secrets live in the secrets file."""

    kind = models.CharField(max_length=20, choices=PROVIDER_KINDS, unique=True)
    config = models.JSONField(default=dict, blank=True)
    enabled = models.BooleanField(default=True)
    last_error = models.TextField(blank=True)
    last_checked = models.DateTimeField(null=True, blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["kind"]

    def __str__(self) -> str:
        return self.kind


class MemorySpace(models.Model):
    NATIVE = "native"  # the provider kind of the hub's own store

    class Access(models.TextChoices):
        OPEN = "open", "open"  # agents read and write
        VAULT = "vault", "vault"  # agents write; reading needs a person's approval

    slug = models.SlugField(max_length=80, unique=True)
    name = models.CharField(max_length=200)
    description = models.TextField(blank=True, help_text="What belongs here; also the routing boundary for smart selection.")
    workspace = models.ForeignKey(Workspace, null=True, blank=True, on_delete=models.CASCADE, related_name="spaces")
    provider = models.CharField(max_length=20, choices=PROVIDER_KINDS, default=NATIVE)
    config = models.JSONField(default=dict, blank=True, help_text="The provider's space fields.")
    access = models.CharField(max_length=10, choices=Access.choices, default=Access.OPEN)
    active = models.BooleanField(default=True)
    is_default = models.BooleanField(default=False, help_text="Where writes go when none is named.")
    settings = models.JSONField(default=dict, blank=True, help_text="Per-space overrides of the global defaults.")
    selection = models.JSONField(default=dict, blank=True, help_text="How the provider was chosen (manual, rules, llm).")
    created_at = models.DateTimeField(default=timezone.now)
    last_write_at = models.DateTimeField(null=True, blank=True)
    last_error = models.TextField(blank=True)
    last_seen_at = models.DateTimeField(null=True, blank=True, help_text="When a person last looked at it.")
    cap_check_from = models.BigIntegerField(
        default=0, editable=False,
        help_text="maxEntries is next counted at the first entry id at or above this (ids only grow).")
    enrich_queued_at = models.DateTimeField(
        null=True, blank=True, editable=False, help_text="When a worker run for its pending entries was queued.")

    class Meta:
        ordering = ["slug"]

    def recount_cap(self) -> None:
        """Entries came back (unarchived, undone) or maxEntries changed: count at the next write."""
        MemorySpace.objects.filter(pk=self.pk).update(cap_check_from=0)
        self.cap_check_from = 0

    def __str__(self) -> str:
        return self.slug

    @property
    def is_vault(self) -> bool:
        return self.access == self.Access.VAULT

    @property
    def is_native(self) -> bool:
        return self.provider == self.NATIVE
