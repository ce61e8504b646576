"""Consolidation: merge near-duplicates, digest finished topics, archive what nobody recalls.

Reversible by construction: a run only sets marks (merged_into, digest, archived) and adds
digest entries, and records exactly which ones in a ConsolidationRun, so undo can put
every mark back. Original text is never touched.
"""

from __future__ import annotations

import logging
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from django.db import transaction
from django.db.models.functions import Length
from django.utils import timezone
from django.utils.translation import gettext_noop

from memoryhub.core import llm
from memoryhub.memories.models import Category, ConsolidationRun, Entry, Fact, Kind, Method, Topic
from memoryhub.memories.text.prose import clip
from memoryhub.memories.text.tokens import overlap, token_set, tokenize
from memoryhub.memories.write import gateway, marks, oplog
from memoryhub.spaces import space_settings
from memoryhub.spaces.models import MemorySpace

log = logging.getLogger(__name__)

MIN_MERGE_TOKENS = 3
DIGEST_MIN_TURNS = 5
DIGEST_POINTS = 8
Progress = Callable[..., None]  # (percent, untranslated message, **its args)
_SENTENCE_BREAK = re.compile(r"(?<=[.!?。！？])\s+|(?<=[。！？])|\n+")
_LABEL = re.compile(r"^(User|Assistant):\s*")


@dataclass
class Thresholds:
    min_age_days: int
    digest_age_days: int
    merge_similarity: float


def thresholds(space: MemorySpace) -> Thresholds:
    """The space's own settings where it has them, else the hub's defaults."""
    conf = space_settings.effective(space)
    return Thresholds(min_age_days=int(conf["consolidateMinAgeDays"]),
                      digest_age_days=int(conf["consolidateDigestAgeDays"]),
                      merge_similarity=float(conf["mergeSimilarity"]))


def auto_consolidate(space: MemorySpace) -> bool:
    return bool(space_settings.effective(space)["autoConsolidate"])


@dataclass
class MergeGroup:
    keep: Entry
    merged: list[Entry]
    similarity: float


@dataclass
class DigestGroup:
    topic: Topic
    turns: list[Entry]


@dataclass
class Plan:
    space: MemorySpace
    merges: list[MergeGroup] = field(default_factory=list)
    digests: list[DigestGroup] = field(default_factory=list)
    archives: list[Entry] = field(default_factory=list)

    @property
    def counts(self) -> dict[str, int]:
        return {
            "merge_groups": len(self.merges),
            "merged": sum(len(g.merged) for g in self.merges),
            "digests": len(self.digests),
            "digested_turns": sum(len(g.turns) for g in self.digests),
            "archived": len(self.archives),
        }

    @property
    def empty(self) -> bool:
        return not (self.merges or self.digests or self.archives)


def plan(space: MemorySpace, now: datetime | None = None) -> Plan:
    """What a run would do right now; changes nothing."""
    now = now or timezone.now()
    limits = thresholds(space)
    result = Plan(space)
    active = Entry.objects.recallable().filter(space=space)
    result.merges = _merge_groups(active, limits.merge_similarity)
    losers = {e.pk for g in result.merges for e in g.merged}
    result.digests = _digest_groups(space, active, now - timedelta(days=limits.digest_age_days), losers)
    # What the user said about themselves stays in recall while it is still true: a turn that gave a fact
    # still active is never archived by age (its facts stay current either way: archiving only marks the turn).
    said_facts = Fact.objects.filter(space=space, status=Fact.Status.ACTIVE, source_entry__isnull=False)
    result.archives = list(
        active.filter(at__lte=now - timedelta(days=limits.min_age_days), hits=0)
        .exclude(category=Category.DECISION).exclude(kind=Kind.DIGEST).exclude(pk__in=losers)
        .exclude(pk__in=said_facts.values("source_entry_id")).order_by("at", "id")
        .only("id", "at", "summary")  # the marks need ids, a preview the time and summary
    )
    return result


def _completeness(entry: Entry) -> tuple:
    return (entry.body_length, len(entry.summary), entry.at, entry.pk)


def _merge_groups(active, similarity: float) -> list[MergeGroup]:
    """Within each topic, summaries at least `similarity` alike join the most complete one.

    One query for every topic's entries, without their bodies (only their length: the most complete keeps);
    an entry without a summary is compared by its body, read for those alone."""
    by_topic: dict[int, list[Entry]] = {}
    candidates = (active.filter(topic__isnull=False).exclude(kind=Kind.DIGEST)
                  .only("id", "topic_id", "summary", "at").annotate(body_length=Length("body")))
    for entry in candidates:
        by_topic.setdefault(entry.topic_id, []).append(entry)
    bodies = dict(active.filter(pk__in=[e.pk for group in by_topic.values() for e in group if not e.summary])
                  .values_list("id", "body"))
    groups: list[MergeGroup] = []
    for entries in by_topic.values():
        clusters: list[tuple[Entry, set[str], list[tuple[Entry, float]]]] = []
        for entry in sorted(entries, key=_completeness, reverse=True):
            tokens = token_set(entry.summary or bodies.get(entry.pk, ""))
            if len(tokens) < MIN_MERGE_TOKENS:
                continue
            for keep, keep_tokens, members in clusters:
                score = overlap(tokens, keep_tokens)
                if score >= similarity:
                    members.append((entry, score))
                    break
            else:
                clusters.append((entry, tokens, []))
        for keep, _, members in clusters:
            if members:
                groups.append(MergeGroup(keep, [m for m, _ in members], round(min(s for _, s in members), 3)))
    return groups


def _digest_groups(space: MemorySpace, active, ended_before: datetime, losers: set[int]) -> list[DigestGroup]:
    """Topics of five or more undigested turns that ended long enough ago: the turns of every such topic in one
    query (one per topic took 32 s at 20,000 entries), grouped here, with only what a preview shows; apply
    reads each group's turns in full when it digests them."""
    old = Topic.objects.filter(space=space, ended_at__lte=ended_before, turn_count__gte=DIGEST_MIN_TURNS)
    topics = {topic.pk: topic for topic in old}
    by_topic: dict[int, list[Entry]] = {}
    for turn in (active.filter(topic__in=old.values("pk"), kind=Kind.TURN, digest__isnull=True)
                 .order_by("topic_id", "at", "id").only("id", "topic_id", "at", "summary")):  # apply reads the rest
        if turn.pk not in losers:
            by_topic.setdefault(turn.topic_id, []).append(turn)
    return [DigestGroup(topics[topic_id], turns) for topic_id, turns in by_topic.items()
            if len(turns) >= DIGEST_MIN_TURNS and topic_id in topics]


def _sentences(turn: Entry) -> list[str]:
    """A turn's sentences without the User:/Assistant: labels (a dot inside a file name does not split)."""
    found = []
    for part in _SENTENCE_BREAK.split(turn.body):
        part = _LABEL.sub("", " ".join(part.split()))
        if len(tokenize(part)) >= 2:
            found.append(clip(part, 200))
    return found


def rule_digest(topic: Topic, turns: list[Entry]) -> str:
    """The best sentences: those carrying most of the topic's frequent words, in the order they were said."""
    ordered = [s for turn in turns for s in _sentences(turn)]
    counts = Counter(t for s in ordered for t in set(tokenize(s)))

    def weight(sentence: str) -> float:
        words = set(tokenize(sentence))
        return sum(counts[w] for w in words) / (1 + len(words)) ** 0.5

    best = set(sorted(dict.fromkeys(ordered), key=weight, reverse=True)[:DIGEST_POINTS])
    picked = [s for s in dict.fromkeys(ordered) if s in best]
    return "\n".join(f"- {s}" for s in picked)


def summary_client(space: MemorySpace) -> llm.LLMClient | None:
    """The model that writes this space's summaries (summarizeProvider, summaryModel), or None: rules only,
    always so when the space's autoSummarize is off (it promises zero model calls)."""
    config = space_settings.effective(space)
    if not config["autoSummarize"]:
        return None
    try:
        return llm.get_client(config["summarizeProvider"], model=config["summaryModel"])
    except llm.LLMError as exc:
        log.warning("consolidating %s by rules: %s", space.slug, exc)
        return None


def llm_digest(client: llm.LLMClient, topic: Topic, turns: list[Entry]) -> str:
    """A real summary of the topic from the configured model (raises LLMError on failure)."""
    transcript = "\n\n".join(f"[{timezone.localtime(t.at):%Y-%m-%d %H:%M}] {clip(t.body, 1200)}" for t in turns)
    answer = client.complete([
        {"role": "system", "content": "Summarise this conversation for a long-term memory in at most 8 short "
                                      "bullet points: decisions, facts, problems and their fixes. Use the "
                                      "conversation's language. Output only the bullets."},
        {"role": "user", "content": f"Topic: {topic.title}\n\n{clip(transcript, 12000)}"},
    ])
    text = answer.strip()
    if not text:
        raise llm.LLMError("empty summary")
    return text[:4000]


def _digest_draft(topic: Topic, turns: list[Entry], text: str, run: ConsolidationRun) -> gateway.Draft:
    first, last = timezone.localtime(turns[0].at), timezone.localtime(turns[-1].at)
    span = f"{first:%Y-%m-%d %H:%M}~{last:%H:%M}" if first.date() == last.date() else f"{first:%Y-%m-%d}~{last:%Y-%m-%d}"
    body = f"{span} · {len(turns)} turns\n\n{text}"
    return gateway.Draft(
        kind=Kind.DIGEST, category=topic.kind, title=clip(f"Digest: {topic.title}", 300), body=body,
        tags=["digest"], related=[str(t.pk) for t in turns], at=turns[-1].at, session_id=topic.session_id,
        origin=turns[0].origin, channel=turns[0].channel,
        importance=max(t.importance for t in turns), idempotency_key=f"digest:{run.pk}:{topic.pk}",
    )


def apply(space: MemorySpace, *, actor: str = "", progress: Progress | None = None,
          now: datetime | None = None) -> ConsolidationRun:
    """Plan afresh and carry it out, recording each mark it really set (a mark already set is left alone).

    Each step commits on its own; a run stopped half-way (a person cancelled its job) keeps the record
    of the steps it finished, so undo still restores the state before it.
    """
    report = progress or (lambda pct, msg, **args: None)
    current = plan(space, now)
    run = ConsolidationRun.objects.create(space=space, actor=actor)
    client = summary_client(space) if current.digests else None
    total = max(1, len(current.digests))
    try:
        for i, group in enumerate(current.digests):
            report(10 + 70 * i // total, gettext_noop("digesting topic %(title)s"), title=group.topic.title[:60])
            group.turns = list(Entry.objects.filter(pk__in=[t.pk for t in group.turns]).order_by("at", "id"))
            text = None
            if client is not None:
                try:
                    text, run.method = llm_digest(client, group.topic, group.turns), Method.LLM
                except llm.LLMError:
                    text = None
            with transaction.atomic():
                draft = _digest_draft(group.topic, group.turns, text or rule_digest(group.topic, group.turns), run)
                digest = gateway.write(space, draft, actor=actor).entry
                marked = marks.digest(space, digest, [t.pk for t in group.turns], topic_id=group.topic.pk,
                                        actor=actor)
                run.digested[str(digest.pk)] = marked
        report(85, gettext_noop("merging near-duplicates"))
        with transaction.atomic():
            for group in current.merges:
                for loser in marks.merge(space, [e.pk for e in group.merged], group.keep.pk, actor=actor):
                    run.merged[str(loser)] = group.keep.pk
        report(92, gettext_noop("archiving what nobody recalls"))
        run.archived = marks.archive(space, [e.pk for e in current.archives], actor=actor)
        run.counts = current.counts
    except BaseException:
        run.counts = {"merged": len(run.merged), "digests": len(run.digested),
                      "digested_turns": sum(len(t) for t in run.digested.values()), "archived": len(run.archived),
                      "stopped": 1}
        raise
    finally:
        if client is not None:
            client.close()
        run.save()
        oplog.log_op(space, "consolidate", str(run.pk), " ".join(f"{k}={v}" for k, v in run.counts.items()),
                       actor)
    return run


def undo(run: ConsolidationRun, *, actor: str = "") -> list[ConsolidationRun]:
    """Restore the state before `run`: it and every later applied run of its space are undone, newest first."""
    space = run.space
    runs = list(ConsolidationRun.objects.filter(space=space, status=ConsolidationRun.Status.APPLIED, pk__gte=run.pk)
                .order_by("-pk"))
    for each in runs:
        with transaction.atomic():
            marks.archive(space, each.archived, archived=False, actor=actor)
            marks.unmerge(space, {int(loser): winner for loser, winner in each.merged.items()}, actor=actor)
            for digest_id, turn_ids in each.digested.items():
                marks.undigest(space, int(digest_id), turn_ids, actor=actor)
                digest = Entry.objects.live().filter(pk=int(digest_id)).first()
                if digest:
                    gateway.forget(digest, actor=actor)
            each.status, each.undone_at = ConsolidationRun.Status.UNDONE, timezone.now()
            each.save(update_fields=["status", "undone_at"])
            oplog.log_op(space, "consolidate-undo", str(each.pk), "", actor)
    return runs

