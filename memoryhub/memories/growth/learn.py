"""Facts a model reads from new turns, beside the rules: the worker asks the configured model about each batch
of turns it enriches, and what it claims goes through the same slots as the rule facts.

The model is asked for JSON: claims about the user, each naming the turns that say it (evidence ids). An answer
is validated claim by claim: a known predicate, a short value in words the cited turns' user side contains, ids
of the batch; anything else is dropped and counted. A model's claim never overturns what the rules or a person
set (it only fills gaps). A model that fails, times out or answers nonsense changes nothing (the rule facts are
already there) and its message stays on the space (`last_error`, shown on its pages) until a run succeeds.
No model is asked for imported history (seed 003), for a vault space, or where autoSummarize is off (zero model
calls).
"""

from __future__ import annotations

import logging

from django.db import transaction

from memoryhub.core import llm
from memoryhub.memories.facts.rules import Claim
from memoryhub.memories.facts.slots import PREDICATES, apply_claims, overrides_explicit
from memoryhub.memories.models import Entry, Kind, Method, Source
from memoryhub.memories.text.tokens import tokenize
from memoryhub.spaces import space_settings
from memoryhub.spaces.models import MemorySpace

log = logging.getLogger(__name__)

ERROR_PREFIX = "fact extraction: "
BATCH = 20            # turns per model call
TURN_CHARS = 1200     # of each turn's text in the prompt
MAX_CLAIMS = 40       # read from one answer
ATTEMPTS = 2          # a worker run must not wait five retries on a model that is down
GROUNDED = 0.5        # share of a value's words the cited turns must contain

SYSTEM_PROMPT = """You read conversation turns and list stable facts the USER states about themselves.
Answer with JSON only: {"facts": [{"predicate": "...", "value": "...", "negative": false, "evidence": [turn ids]}]}
predicates: """ + ", ".join(PREDICATES) + """.
Use: name, nickname (what to call the user), calledBy (what the user calls you), location (lives in), hometown,
job, employer, education, spouse, partner, child, parent, sibling (their names), pet, allergy, diet, health,
preference (likes; "negative": true for dislikes), language (to answer in, or native), birthday, age, skill,
habit, goal, owns, trait.
value: the thing itself in the user's own words ("peanuts", "花生", "Pepper"), never a sentence.
evidence: the ids of the turns where the user says it. Only what the user says about themselves: nothing about
other people, no questions, hypotheticals, requests or one-off events. When unsure, leave it out. Never invent."""


def from_turns(space_id: int, entry_ids: list[int]) -> dict:
    """Ask the space's model about these new turns and apply what it validly claims; returns the counts (and the
    error, when the model failed)."""
    result = {"asked": 0, "asserted": 0, "rejected": 0, "error": ""}
    space = MemorySpace.objects.filter(pk=space_id).first()
    if space is None or not space.is_native or space.is_vault:
        return result
    config = space_settings.effective(space)
    if not config["autoSummarize"] or not (config["summarizeProvider"] or llm.configured()):
        return result
    turns = list(Entry.objects.live().filter(pk__in=entry_ids, kind=Kind.TURN).exclude(source=Source.IMPORT)
                 .order_by("at", "id"))
    if not turns:
        return result
    try:
        client = llm.get_client(config["summarizeProvider"], model=config["summaryModel"])
    except llm.LLMError as exc:
        return _failed(space, result, str(exc))
    if client is None:
        return result
    client.attempts = ATTEMPTS
    try:
        for origin in dict.fromkeys(t.origin for t in turns):
            mine = [t for t in turns if t.origin == origin]
            for start in range(0, len(mine), BATCH):
                batch = mine[start:start + BATCH]
                result["asked"] += len(batch)
                answer = llm.parse_json(client.complete(_messages(batch)))
                _apply(space, batch, answer, origin, result)
    except (llm.LLMError, ValueError) as exc:
        return _failed(space, result, str(exc))
    finally:
        client.close()
    if space.last_error.startswith(ERROR_PREFIX):
        MemorySpace.objects.filter(pk=space.pk).update(last_error="")
    return result


def _failed(space: MemorySpace, result: dict, message: str) -> dict:
    result["error"] = message[:300]
    MemorySpace.objects.filter(pk=space.pk).update(last_error=(ERROR_PREFIX + message)[:2000])
    log.warning("fact extraction for space %s failed: %s", space.slug, message[:300])
    return result


def _messages(batch: list[Entry]) -> list[dict[str, str]]:
    turns = "\n\n".join(f"[turn {t.pk}]\n{' '.join(t.body.split())[:TURN_CHARS]}" for t in batch)
    return [{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": turns}]


def _apply(space: MemorySpace, batch: list[Entry], answer, origin: str, result: dict) -> None:
    """The answer's valid claims through the slots, each from the first turn it cites; the rest counted."""
    if not isinstance(answer, dict) or not isinstance(answer.get("facts"), list):
        raise ValueError("the model's answer has no list of facts")
    by_id = {t.pk: t for t in batch}
    with transaction.atomic():
        for item in answer["facts"][:MAX_CLAIMS]:
            claim, evidence = _valid(item, by_id)
            if claim is None or overrides_explicit(space, claim, origin):
                result["rejected"] += 1
                continue
            changes = apply_claims(space, [claim], source_entry=evidence, origin=origin, method=Method.LLM)
            result["asserted"] += len(changes.asserted)


def _valid(item, by_id: dict[int, Entry]) -> tuple[Claim | None, Entry | None]:
    """A claim and its first evidence turn, or (None, None) when the item is not a claim the turns bear out."""
    if not isinstance(item, dict) or item.get("predicate") not in PREDICATES:
        return None, None
    value, negative, subject = item.get("value"), item.get("negative", False), item.get("subject", "user")
    if not isinstance(value, str) or not value.strip() or len(value) > 200 or not isinstance(negative, bool) \
            or subject != "user":
        return None, None
    ids = item.get("evidence")
    if not isinstance(ids, list) or not ids:
        return None, None
    try:
        cited = [by_id[int(i)] for i in ids]
    except (KeyError, TypeError, ValueError):
        return None, None
    said = " ".join(_user_side(t) for t in cited)
    words = set(tokenize(value))
    if not words or len(words & set(tokenize(said))) < GROUNDED * len(words):
        return None, None  # the value is not in what the user said: a guess, not a claim
    return Claim(predicate=item["predicate"], value=" ".join(value.split()), negative=negative), cited[0]


def _user_side(turn: Entry) -> str:
    """What the user said in a turn (its body is "User: …\\n\\nAssistant: …")."""
    body = turn.body
    if body.startswith("User: "):
        body = body[len("User: "):].split("\n\nAssistant: ", 1)[0]
    return body
