"""The write pipeline of every agent or person write: redact → space policy → provider → native extras → op log."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from memoryhub.core import sql
from memoryhub.jobs import runner
from memoryhub.memories.growth import facts, persona
from memoryhub.memories.maintenance import gc
from memoryhub.memories.write import store
from memoryhub.memories.models import Entry, RemoteWrite
from memoryhub.memories.text import classify, clip, first_sentence
from memoryhub.spaces import space_settings
from memoryhub.spaces.models import MemorySpace
from memoryhub.spaces.services import provider_for, record_space_error
from memoryhub.memories.notebooks import export
from memoryhub.core.redaction import redact, redact_all
from providers.base import ProviderError, Receipt


@dataclass
class Written:
    """What one write produced, in the shape the API answers with."""

    space: MemorySpace
    entry: Entry | None = None
    receipt: Receipt | None = None
    created: bool = True
    redactions: int = 0
    facts: dict[str, list] = field(default_factory=lambda: {"asserted": [], "invalidated": []})

    @property
    def id(self) -> str:
        if self.entry is not None:
            return str(self.entry.pk)
        return f"{self.space.slug}:{self.receipt.provider_id or self.receipt.uri}" if self.receipt else ""


def write(space: MemorySpace, draft: store.Draft, *, actor: str = "", fact_text: str | None = None) -> Written:
    """Write a redacted draft to its space: natively in one transaction, or through the space's provider."""
    if not space.is_native:
        return write_remote(space, draft)
    # Pure work first, so the transaction holds SQLite's one write lock only for the statements.
    claims = facts.extract(fact_text if fact_text is not None else draft.body) if draft.kind in ("turn", "note") else []
    prepared = store.prepare(space, draft)
    with sql.one_writer(), transaction.atomic():
        entry, created = store.write(space, draft, actor=actor, prepared=prepared)
        result = Written(space, entry=entry, created=created, redactions=draft.redactions)
        if created:
            grow(entry, result, claims)
            export.schedule(space)
    return result


def write_remote(space: MemorySpace, draft: store.Draft) -> Written:
    """Send a write to the space's provider and keep it locally with its receipt, whatever happens.

    A receipt waiting for verification (OpenViking) gets a verification job; an error is
    recorded as a failed or unknown write (a timeout never proves there was no write) and raised.
    """
    local = RemoteWrite(space=space, title=draft.title, body=draft.body, category=draft.category,
                        session_id=draft.session_id, origin=draft.origin)
    provider = None
    try:
        provider = provider_for(space)
        receipt = provider.remember(draft.body, title=draft.title, category=draft.category, tags=draft.tags,
                                    at=draft.at.isoformat() if draft.at else "")
    except ProviderError as exc:
        local.state, local.error, local.uri = ("unknown" if exc.timeout else "failed"), exc.message, exc.uri
        local.save()
        record_space_error(space, exc)
        raise
    finally:
        if provider is not None:
            provider.close()
    local.state, local.provider_id, local.uri = receipt.state, receipt.provider_id, receipt.uri
    local.detail, local.error = receipt.detail, receipt.error
    local.save()
    MemorySpace.objects.filter(pk=space.pk).update(last_write_at=timezone.now(), last_error=receipt.error[:2000])
    if receipt.state == "pending_verification" and provider.verifies_writes:
        runner.enqueue("verify_write", space=space, params={"write": local.pk})
    if receipt.state in ("failed", "unknown"):
        outcome = "was refused" if receipt.state == "failed" else "has an unknown outcome (kept as pending check)"
        raise ProviderError(f"the write to {space.slug} {outcome}: {receipt.error or 'no detail'}",
                            timeout="timed out" in receipt.error, uri=receipt.uri)
    return Written(space, receipt=receipt, redactions=draft.redactions)


def grow(entry: Entry, result: Written, claims: list[facts.Claim]) -> None:
    """Native extras after a new entry: facts from what the user said, the persona counter, the cap.

    Edges and the turn's topic come later, from the worker (enrich.py)."""
    if entry.kind in ("turn", "note"):
        changes = facts.apply_claims(entry.space, claims, source_entry=entry, origin=entry.origin)
        result.facts = {"asserted": [facts.fact_to_dict(f) for f in changes.asserted],
                        "invalidated": [facts.fact_to_dict(f) for f in changes.invalidated]}
    config = space_settings.effective(entry.space)
    if entry.kind == "turn":
        if config["autoSummarize"] and settings.MEMORYHUB["LLM_BASE_URL"]:
            runner.enqueue("summarize", space=entry.space, params={"entry": entry.pk})
    if persona.note_new_entry(entry.space):
        # Agents writing fast reach personaEvery faster than rebuilds run: one waiting rebuild covers them all.
        runner.enqueue_unless_waiting("persona_rebuild", space=entry.space)
    if config["maxEntries"]:
        gc.enforce_cap(entry, config["maxEntries"])


def turn_draft(user: str, assistant: str, *, session_id: str, at: datetime | None, origin: str,
               idempotency_key: str = "", channel: str = "", tags: list[str] | None = None) -> tuple[store.Draft, str]:
    """A finished turn as one entry: both sides kept in full, a one-line summary for cards."""
    (user, assistant), count = redact_all(user, assistant)
    body = f"User: {user}\n\nAssistant: {assistant}".strip()
    question = first_sentence(user, 120)
    answer = first_sentence(assistant, 120)
    summary = clip(f"{question} → {answer}" if question and answer else question or answer, 240)
    draft = store.Draft(
        body=body, kind="turn", title=clip(question, 200), summary=summary, category=classify(f"{user}\n{assistant}"),
        at=at, session_id=session_id, source="agent", origin=origin, idempotency_key=idempotency_key,
        channel=channel, tags=tags or [], redactions=count,
    )
    return draft, user


def save_draft(*, category: str, title: str, body: str, tags: list[str], related: list[str], at: datetime | None,
               session_id: str, origin: str, kind: str = "save", source: str = "agent", **extra: Any) -> store.Draft:
    """An explicit memory (memory_save, a person's note): redacted, tags included."""
    (title, body), count = redact_all(title, body)
    clean_tags = []
    for tag in tags:
        r = redact(tag)
        count += r.count
        clean_tags.append(r.text)
    return store.Draft(
        body=body, kind=kind, title=title, category=category, tags=clean_tags, related=related, at=at,
        session_id=session_id, origin=origin, source=source, redactions=count, **extra,
    )
