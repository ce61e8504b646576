"""Semantic memory: facts apart from events, resolved by slots so a changed answer replaces the old one.

Slots are (space, origin, subject, predicate): a QQ group member saying "叫我王哥" must not
rename the local user. Invalidated facts stay as history; nothing here deletes a row.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from django.db.models import Q, QuerySet
from django.utils import timezone

from memoryhub.core.ids import row_id
from memoryhub.core.redaction import redact
from memoryhub.memories.facts.rules import Claim, extract, is_real_path
from memoryhub.memories.models import Entry, Fact, Method
from memoryhub.spaces.models import MemorySpace

__all__ = [
    "MULTI_VALUED",
    "PREDICATES",
    "SINGLE_VALUED",
    "Claim",
    "FactChanges",
    "apply_claims",
    "assert_fact",
    "current_facts",
    "extract",
    "fact_to_dict",
    "invalidate_fact",
    "listing",
    "is_real_path",
    "move_to_origin",
    "overrides_explicit",
]

# The seed's predicates first, then the families of ../shared/bench/facts/README.md; any other predicate a person
# asserts by hand is kept too (multi-valued), but rules and models only ever assert these. `relation` is what a named
# someone is to the user (阿杰 · relation · 朋友): never the user's own.
SINGLE_VALUED = ("nickname", "name", "calledBy", "persona", "role", "model", "language", "location", "hometown",
                 "job", "employer", "spouse", "partner", "birthday", "age")
MULTI_VALUED = ("preference", "personality", "path", "tag", "skill", "habit", "education", "child", "parent",
                "sibling", "pet", "allergy", "diet", "health", "goal", "owns", "trait", "dislike", "relation")
PREDICATES = SINGLE_VALUED + MULTI_VALUED
OF_OTHERS = frozenset({"relation"})  # never a claim about the user (a model's `relation` of the user is dropped)
_PREDICATE_SHAPE = re.compile(r"^[A-Za-z][A-Za-z_]{0,59}$")
PREDICATE_SHAPE = _PREDICATE_SHAPE  # the dashboard's fact form tells a person which rule a predicate broke
MAX_VALUE_CHARS = 200


@dataclass
class FactChanges:
    """What one write did to the fact store."""

    asserted: list[Fact] = field(default_factory=list)
    invalidated: list[Fact] = field(default_factory=list)
    refreshed: list[Fact] = field(default_factory=list)

    def extend(self, other: FactChanges) -> None:
        self.asserted += other.asserted
        self.invalidated += other.invalidated
        self.refreshed += other.refreshed


def apply_claims(space: MemorySpace, claims: Iterable[Claim], *, source_entry: Entry | None = None,
                 origin: str = "local", method: str = Method.RULE) -> FactChanges:
    """Run claims through the slot pipeline (inside the caller's transaction); unknown predicates are dropped."""
    changes = FactChanges()
    for claim in claims:
        subject = relative_named(space, claim.subject, origin) if claim.subject.startswith("@") else claim.subject
        if claim.predicate not in PREDICATES or not subject or (subject == "user" and claim.predicate in OF_OTHERS):
            continue
        changes.extend(assert_fact(space, subject or "user", claim.predicate, claim.value,
                                   negative=claim.negative, origin=origin, method=method, source_entry=source_entry))
    return changes


def relative_named(space: MemorySpace, reference: str, origin: str = "local") -> str:
    """Whom "@spouse" (my wife's birthday, 我爱人是医生) means: the name of the user's one active spouse (child,
    parent …) of that origin, or "" while none is known or two are (two children: which one is not said)."""
    named = {_NOTE.sub("", value) for value in Fact.objects.filter(
        space=space, origin=origin, subject="user", predicate=reference[1:], status=Fact.Status.ACTIVE,
        negative=False).values_list("value", flat=True)}
    return named.pop() if len(named) == 1 else ""


_NOTE = re.compile(r"\s*\([^)]*\)$")  # "Sesame (tabby)": the name without what it is


def assert_fact(space: MemorySpace, subject: str, predicate: str, value: str, *, negative: bool = False,
                origin: str = "local", method: str = Method.MANUAL, source_entry: Entry | None = None) -> FactChanges:
    """Assert one fact: same value refreshes, a new single value replaces the old, a negative kills only its match."""
    value = " ".join(redact(str(value)).text.split())
    subject = redact(subject or "user").text.strip()[:100] or "user"
    if (not value or len(value) > MAX_VALUE_CHARS or not _PREDICATE_SHAPE.match(predicate)
            or (predicate == "path" and not is_real_path(value))):
        return FactChanges()
    now = timezone.now()
    slot = Fact.objects.filter(space=space, origin=origin, subject=subject, predicate=predicate,
                                status=Fact.Status.ACTIVE)
    key = _key(value)
    same = [f for f in slot if _key(f.value) == key]
    changes = FactChanges()
    existing = next((f for f in same if f.negative == negative), None)
    if existing:
        existing.refreshed_at = now
        existing.save(update_fields=["refreshed_at"])
        changes.refreshed.append(existing)
        return changes
    fact = Fact.objects.create(space=space, subject=subject, predicate=predicate, value=value, negative=negative,
                               origin=origin, method=method, source_entry=source_entry, created_at=now,
                               refreshed_at=now)
    changes.asserted.append(fact)
    losers = [f for f in same if f.negative != negative]
    if not negative and predicate not in MULTI_VALUED:
        losers += [f for f in slot if not f.negative and _key(f.value) != key]
    for old in losers:
        _invalidate(old, now, by=fact)
        changes.invalidated.append(old)
    return changes


def invalidate_fact(space: MemorySpace, *, fact_id: int | str | None = None, subject: str | None = None,
                    predicate: str | None = None, value: str | None = None, origin: str | None = None) -> list[Fact]:
    """Invalidate by id, or every active fact of a slot (optionally only one value), of one origin or (None)
    every origin; history is kept."""
    active = Fact.objects.filter(space=space, status=Fact.Status.ACTIVE)
    if origin is not None:
        active = active.filter(origin=origin)
    if fact_id is not None:
        if row_id(fact_id) is None:
            return []
        targets = list(active.filter(pk=row_id(fact_id)))
    elif predicate:
        targets = list(active.filter(subject=subject or "user", predicate=predicate))
        if value is not None:
            targets = [f for f in targets if _key(f.value) == _key(value)]
    else:
        return []
    now = timezone.now()
    for fact in targets:
        _invalidate(fact, now)
    return targets


def move_to_origin(space: MemorySpace, entry_ids: Iterable[int], origin: str) -> list[Fact]:
    """The facts said in re-tagged entries follow them to their new origin (inside the re-tag's transaction).

    Slots are per origin, so an invalidation that happened only because two origins were mixed up (a
    moved fact replaced by, or replacing, one that stays behind) is undone, and a moved fact may meet
    the new origin's own: of two that clash (the same value, or two values of a single-valued slot), the
    later statement stays and the earlier is invalidated by it, as if each had been said in its own
    origin at its own time. Returns the facts moved.
    """
    moving = list(Fact.objects.filter(space=space, source_entry_id__in=list(entry_ids)).exclude(origin=origin)
                  .values_list("pk", flat=True))
    if not moving:
        return []
    Fact.objects.filter(pk__in=moving).update(origin=origin)
    mixed_up = Fact.objects.filter(space=space, status=Fact.Status.INVALIDATED).filter(
        (Q(pk__in=moving) & ~Q(invalidated_by__origin=origin)) | (Q(invalidated_by__in=moving) & ~Q(origin=origin)))
    revived = list(mixed_up.values_list("pk", flat=True))
    Fact.objects.filter(pk__in=revived).update(status=Fact.Status.ACTIVE, invalidated_at=None, invalidated_by=None)
    now = timezone.now()
    for fact in Fact.objects.filter(pk__in=[*moving, *revived]).order_by("created_at", "pk"):
        if Fact.objects.filter(pk=fact.pk, status=Fact.Status.ACTIVE).exists():
            _settle(space, fact, now)
    return list(Fact.objects.filter(pk__in=moving))


def _settle(space: MemorySpace, fact: Fact, now) -> None:
    """Resolve one active fact against the other active facts of its slot: of two that clash, the older goes."""
    slot = Fact.objects.filter(space=space, origin=fact.origin, subject=fact.subject, predicate=fact.predicate,
                               status=Fact.Status.ACTIVE).exclude(pk=fact.pk)
    for other in slot:
        same = _key(other.value) == _key(fact.value)
        single = not fact.negative and not other.negative and fact.predicate not in MULTI_VALUED
        if not (same or single):
            continue
        older, newer = sorted((fact, other), key=lambda f: (f.created_at, f.pk))
        _invalidate(older, now, by=newer)
        if older is fact:
            return


def overrides_explicit(space: MemorySpace, claim: Claim, origin: str) -> bool:
    """Whether a model's claim would overturn what the user said or a person set (rule and manual facts): a
    model only ever fills gaps."""
    explicit = Fact.objects.filter(space=space, subject=claim.subject or "user", predicate=claim.predicate,
                                   status=Fact.Status.ACTIVE, negative=False, origin=origin).exclude(method=Method.LLM)
    if claim.negative:
        return any(_key(f.value) == _key(claim.value) for f in explicit)
    if claim.predicate in MULTI_VALUED:
        return False
    return any(_key(f.value) != _key(claim.value) for f in explicit)


def current_facts(space_or_spaces, origin_scope: str | None = None) -> QuerySet:
    """Active, positive facts (what may be injected) of one space or several; origin_scope narrows to one origin."""
    if isinstance(space_or_spaces, MemorySpace):
        facts = Fact.objects.filter(space=space_or_spaces)
    else:
        facts = Fact.objects.filter(space__in=space_or_spaces)
    facts = facts.filter(status=Fact.Status.ACTIVE, negative=False)
    return facts.filter(origin=origin_scope) if origin_scope else facts


def fact_to_dict(fact: Fact) -> dict:
    """A fact as agents read it (API.md's memory_facts row): whether it is a "not", whose origin, and when and
    where it was said — the turn's own time, not when the hub stored it (an import of old history keeps its
    dates); a fact asserted by hand was said when it was asserted."""
    said = fact.source_entry.at if fact.source_entry_id and fact.source_entry else fact.created_at
    return {"id": str(fact.pk), "subject": fact.subject, "predicate": fact.predicate, "value": fact.value,
            "negative": fact.negative, "origin": fact.origin, "status": fact.status,
            "said_at": timezone.localtime(said).isoformat(),
            "source": str(fact.source_entry_id) if fact.source_entry_id else None}


def listing(facts: QuerySet, *, history: bool = False) -> QuerySet:
    """What memory_facts lists: the active facts, a "not" among them flagged `negative` (a dislike, a name not
    to be called), or with `history` the invalidated ones too; with their entries, for said_at."""
    if not history:
        facts = facts.filter(status=Fact.Status.ACTIVE)
    return facts.select_related("source_entry").order_by("subject", "predicate", "-created_at")


def _invalidate(fact: Fact, now, by: Fact | None = None) -> None:
    fact.status = Fact.Status.INVALIDATED
    fact.invalidated_at = now
    fact.invalidated_by = by
    fact.save(update_fields=["status", "invalidated_at", "invalidated_by"])


def _key(value: str) -> str:
    """Values match case- and space-insensitively: "Bob" and " bob" are one slot value."""
    return " ".join(value.split()).casefold()
