"""The persona frame: "who the user is", projected from current facts and a few long-term events.

A rebuild (every personaEvery entries, or on demand) lets a model read the recent memories; its
claims go through the fact pipeline and its events through three anti-pollution gates: only
long-term constraints, no frame text flowing back, one thing once. Without a model the frame is
projected from facts by rules alone.

Each origin has its own persona (profile, events, frame) built from its own facts and entries
only: a group chat's claims or profile never shape what a private session is told about the user.
"""

from __future__ import annotations

import re

from django.db import connection, transaction
from django.utils import timezone

from memoryhub.agents.models import LOCAL_ORIGIN
from memoryhub.core import llm as llm_mod
from memoryhub.memories.facts.rules import Claim, real_paths
from memoryhub.memories.facts.slots import PREDICATES, SINGLE_VALUED, apply_claims, current_facts, overrides_explicit
from memoryhub.memories.models import Entry, Fact, Persona
from memoryhub.memories.text.tokens import tokenize
from memoryhub.spaces import space_settings
from memoryhub.spaces.models import MemorySpace

RECENT_ENTRIES = 60
MAX_EVENTS = 12
MAX_LLM_CLAIMS = 20
MAX_VALUES_PER_LINE = 8
EVENT_SAME_AT = 0.7  # share of the shorter event's content words found in the other

# Frame line labels, in rendering order (a predicate a person made up shows under its own name, after these).
# "Unique" labels never occur in ordinary text, so one is proof of echo.
LABELS = {
    "nickname": "Call the user", "name": "Name", "calledBy": "The user calls you", "persona": "Your persona",
    "language": "Language", "role": "Role", "job": "Job", "employer": "Works at", "education": "Studied at",
    "location": "Lives in", "hometown": "From", "age": "Age", "birthday": "Birthday", "spouse": "Spouse",
    "partner": "Partner", "child": "Children", "parent": "Parents", "sibling": "Siblings", "pet": "Pets",
    "model": "Model", "allergy": "Allergies", "health": "Health", "diet": "Diet", "preference": "Prefers",
    "dislike": "Dislikes", "personality": "Personality", "trait": "Traits", "skill": "Skills", "habit": "Habits",
    "goal": "Goals", "owns": "Owns", "path": "Paths", "tag": "Tags",
}
# A negative preference ("I don't drink coffee") is shown as what it is, never as a preference.
DISLIKES = ("preference", "like")
EVENTS_LABEL = "Keep in mind"
_UNIQUE_LABELS = ("Call the user", "The user calls you", "Your persona", "Prefers", EVENTS_LABEL)
_LABEL = re.compile(r"(?<![\w])(" + "|".join(map(re.escape, [*LABELS.values(), EVENTS_LABEL])) + r")\s*[:：]")

_CHURN = re.compile("|".join([
    r"\d+\s*/\s*\d+\s*(?:passed|passing|pass|ok|green|通过|项)",
    r"\b(?:self-?tests?|tests?|ci)\b.{0,20}\b(?:pass(?:ed|es|ing)?|green|fail(?:ed|s|ing)?)\b",
    r"自检|测试(?:全部|都)?通过|单测",
    r"\d[\d,]*\s*(?:→|->|=>|到)\s*\d[\d,]*\s*(?:行|lines?|条|字|kb|mb|%)",
    r"\b(?:fix(?:ed|es)?|patch(?:ed)?|resolved)\b.{0,60}\bbugs?\b|\bbug\s?fix",
    r"修复了|修好了|修了.{0,20}bug|改了.{0,20}bug",
    r"\b(?:compressed|refactored|renamed|bumped|committed|merged)\b",
    r"压缩了|重构了|提交了|合并了|改名了",
    r"\b(?:today|just now|this time|this session)\b|今天|刚刚|刚才|这次|本次",
]), re.I)
_NEGATION = re.compile(r"不|别|没|无|勿|禁止|\b(?:not|no|never|don'?t|avoid)\b", re.I)

SYSTEM_PROMPT = """You maintain a long-term profile of the user from their conversation memories.
Answer with JSON only: {"facts": [{"predicate": "...", "value": "...", "negative": false}], "events": ["..."]}
predicates: nickname, name, calledBy (what the user calls you), persona (the role the user wants you to play),
role, model, language, preference, personality, path, tag, skill, habit, and the families location, hometown, job,
employer, education, spouse, partner, child, parent, sibling, pet, allergy, diet, health, birthday, age, goal, owns,
trait. "negative": true means the user rejects it.
Only state what the memories show with evidence; when unsure, leave it out. Never invent.
events are long-term constraints and standing requests only. Ask: will this still matter in three months?
Progress notes, test results, fixed bugs, line counts and one-off tasks are NOT events.
Do not repeat the current profile or kept events back. Keep every item short, in the user's language."""


# --- the three gates --------------------------------------------------------------------

def is_churn(text: str) -> bool:
    """Gate 1: engineering churn ("selftest 75/75 passed", "修复了…bug", "1034→80 lines") is not a constraint."""
    return bool(_CHURN.search(text))


def is_frame_echo(text: str, frame: str = "") -> bool:
    """Gate 2: text carrying a frame label of its own, or two frame lines/labels, is the frame flowing back."""
    labels = {m.group(1) for m in _LABEL.finditer(text)}
    if labels & set(_UNIQUE_LABELS):
        return True
    lines = {line.strip().lstrip("-• ").strip() for line in frame.splitlines()}
    echoed = {line for line in lines if len(line) >= 6 and line in text}
    return len(labels) + len(echoed) >= 2


def same_event(a: str, b: str) -> bool:
    """Gate 3: one thing said twice in other words (shared content words); distinct paths are never the same."""
    if real_paths(a) != real_paths(b) or bool(_NEGATION.search(a)) != bool(_NEGATION.search(b)):
        return False
    ta, tb = _content_words(a), _content_words(b)
    if not ta or not tb:
        return a.strip().casefold() == b.strip().casefold()
    return len(ta & tb) / min(len(ta), len(tb)) >= EVENT_SAME_AT


def dedupe_events(events: list[str]) -> list[str]:
    """Keep the first wording of each event (a stable frame keeps the prompt cache warm), newest last."""
    kept: list[str] = []
    for event in events:
        if not any(same_event(event, k) for k in kept):
            kept.append(event)
    return kept


def keep_event(text: str, frame: str = "") -> bool:
    text = text.strip()
    return 2 <= len(text) <= 200 and not is_churn(text) and not is_frame_echo(text, frame)


def _content_words(text: str) -> set[str]:
    stripped = text
    for path in real_paths(text):
        stripped = stripped.replace(path, " ")
    return set(tokenize(stripped))


# --- projection ---------------------------------------------------------------------------

def project_frame(space: MemorySpace, origin_scope: str | None = None) -> str:
    """The frame of one origin (None: local) by rules: plain lines from its current facts about the user plus its
    kept events; no ids, scores or negatives."""
    whose = origin_scope or LOCAL_ORIGIN
    persona = Persona.objects.filter(space=space, origin=whose).first()
    events = persona.events if persona else []
    return render(list(user_facts(space, whose)), events, list(user_dislikes(space, whose)))


def profile_of(space: MemorySpace, origin: str | None = None) -> str:
    """The profile a person or an agent of that origin (None: local) wrote for the space."""
    found = Persona.objects.filter(space=space, origin=origin or LOCAL_ORIGIN).values_list("profile", flat=True)
    return found.first() or ""


def user_facts(space_or_spaces, origin_scope: str | None = None):
    """Current positive facts about the user (oldest first): what others said about themselves is not who the
    user is."""
    return (current_facts(space_or_spaces, origin_scope).filter(subject="user").select_related("source_entry")
            .order_by("created_at", "id"))


def said_at(fact: Fact):
    """When the user said it: its turn's time (an imported turn keeps its own), else when it was asserted."""
    return fact.source_entry.at if fact.source_entry_id and fact.source_entry else fact.created_at


def user_dislikes(space_or_spaces, origin_scope: str | None = None):
    """What the user said they do not like, eat or drink (active negative preferences), oldest first."""
    facts = Fact.objects.filter(subject="user", status=Fact.Status.ACTIVE, negative=True, predicate__in=DISLIKES)
    facts = facts.filter(space=space_or_spaces) if isinstance(space_or_spaces, MemorySpace) else \
        facts.filter(space__in=space_or_spaces)
    return (facts.filter(origin=origin_scope) if origin_scope else facts).order_by("created_at", "id")


def label(predicate: str) -> str:
    return LABELS.get(predicate, predicate)


def frame_order(fact: Fact) -> tuple:
    """Where a fact stands in a list read as the frame is: the user's first, the frame's predicates in its order
    (who they are before what they like), a made-up predicate after them; then the people the user named."""
    known = list(LABELS)
    return (fact.subject != "user", fact.subject,
            known.index(fact.predicate) if fact.predicate in LABELS else len(known), fact.predicate)


def grouped(facts: list[Fact], dislikes: list[Fact] = ()) -> list[tuple[str, list[Fact]]]:
    """(predicate, its facts) in frame order: the known predicates first, then any other a person asserted;
    dislikes join `dislike`."""
    by_predicate: dict[str, list[Fact]] = {}
    for fact in facts:
        by_predicate.setdefault(fact.predicate, []).append(fact)
    if dislikes:
        by_predicate.setdefault("dislike", []).extend(dislikes)
    order = [p for p in LABELS if p in by_predicate] + sorted(p for p in by_predicate if p not in LABELS)
    return [(p, by_predicate[p]) for p in order]


def best_single(predicate: str, found: list[Fact], groups: dict[str, list[Fact]]) -> Fact | None:
    """The one value a single-valued slot shows, across spaces and origins: the local origin's first, then the
    one said last (by its turn's time); a name equal to the nickname is said once."""
    best = max(found, key=lambda f: (f.origin == "local", said_at(f), f.refreshed_at, f.pk))
    if predicate == "name" and any(f.value == best.value for f in groups.get("nickname", [])):
        return None
    return best


def shown(predicate: str, found: list[Fact], groups: dict[str, list[Fact]]) -> list[Fact]:
    """The facts a frame line shows: one for a single-valued slot, else each value once (the latest few)."""
    if predicate in SINGLE_VALUED:
        best = best_single(predicate, found, groups)
        return [best] if best is not None else []
    return list({f.value.casefold(): f for f in found}.values())[-MAX_VALUES_PER_LINE:]


def frame_lines(facts: list[Fact], dislikes: list[Fact] = ()) -> list[tuple[str, list[str]]]:
    """(predicate, the values its line shows) in frame order: what the frame says, before it is words (the
    dashboard names each predicate in the reader's language; agents read `render`'s English labels)."""
    groups = dict(grouped(facts, dislikes))
    found = [(predicate, [f.value for f in shown(predicate, facts_of, groups)]) for predicate, facts_of in groups.items()]
    return [(predicate, values) for predicate, values in found if values]


def render(facts: list[Fact], events: list[str], dislikes: list[Fact] = ()) -> str:
    """Facts (oldest first), dislikes and events to frame text; single-valued slots show one value, local first."""
    lines = [f"{label(predicate)}: " + "; ".join(values) for predicate, values in frame_lines(facts, dislikes)]
    if events:
        lines.append(f"{EVENTS_LABEL}:")
        lines += [f"- {event}" for event in events]
    return "\n".join(lines)


# --- rebuild --------------------------------------------------------------------------------

def note_new_entry(space: MemorySpace, origin: str = LOCAL_ORIGIN) -> bool:
    """Count one new entry of an origin; True exactly when personaEvery is reached, so one job is enqueued per batch."""
    table = Persona._meta.db_table
    with connection.cursor() as cur:  # count and read in one statement (UPDATE … RETURNING)
        cur.execute(f"UPDATE {table} SET entries_since_rebuild = entries_since_rebuild + 1 "
                    "WHERE space_id = %s AND origin = %s RETURNING entries_since_rebuild", [space.pk, origin])
        row = cur.fetchone()
    if row is None:
        _, created = Persona.objects.get_or_create(space=space, origin=origin, defaults={"entries_since_rebuild": 1})
        if not created:
            return note_new_entry(space, origin)
    count = row[0] if row else 1
    config = space_settings.effective(space)  # the space's own values over MEMORYHUB_AUTO_PERSONA / _PERSONA_EVERY
    every = config["personaEvery"]
    if not config["autoPersona"] or every <= 0:
        return False
    return count % every == 0


def rebuild_all(space: MemorySpace) -> dict:
    """Rebuild the local persona and every other origin's that has new entries; the counts add up."""
    origins = [LOCAL_ORIGIN, *Persona.objects.filter(space=space, entries_since_rebuild__gt=0)
               .exclude(origin=LOCAL_ORIGIN).values_list("origin", flat=True)]
    results = [rebuild(space, origin=origin) for origin in origins]
    total = {**results[0], "origins": origins}
    for key in ("asserted", "invalidated", "rejected"):
        total[key] = sum(r[key] for r in results)
    total["error"] = "; ".join(f"{o}: {r['error']}" for o, r in zip(origins, results) if r["error"])
    return total


def rebuild(space: MemorySpace, *, llm=None, origin: str = LOCAL_ORIGIN) -> dict:
    """Re-derive one origin's frame: ask the model when there is one (falling back to rules on any failure),
    then project."""
    persona, _ = Persona.objects.get_or_create(space=space, origin=origin)
    client = llm_mod.get_client() if llm is None else None
    ask = llm if llm is not None else client
    result = {"method": "rules", "asserted": 0, "invalidated": 0, "rejected": 0, "error": ""}
    answer = None
    if ask is not None:
        try:
            answer = llm_mod.parse_json(ask(_messages(space, persona, result)))
        except (llm_mod.LLMError, ValueError) as exc:
            result["error"] = str(exc)[:300]
        finally:
            if client is not None:
                client.close()
    events = [e for e in persona.events if isinstance(e, str) and keep_event(e)]
    with transaction.atomic():
        if isinstance(answer, dict):
            claims, new_events = _read_answer(space, answer, persona, result)
            changes = apply_claims(space, claims, method="llm", origin=origin)
            result.update(method="llm", asserted=len(changes.asserted), invalidated=len(changes.invalidated))
            events += new_events
        elif answer is not None:
            result["error"] = "the model answered JSON that is not an object"
        persona.events = dedupe_events(events)[-MAX_EVENTS:]
        persona.frame = render(list(user_facts(space, origin)), persona.events, list(user_dislikes(space, origin)))
        persona.rebuilt_at = timezone.now()
        persona.entries_since_rebuild = 0
        persona.save(update_fields=["events", "frame", "rebuilt_at", "entries_since_rebuild"])
    return {**result, "events": len(persona.events), "frame": persona.frame}


def _messages(space: MemorySpace, persona: Persona, result: dict) -> list[dict[str, str]]:
    """The last 60 recallable entries (frame echoes dropped) and facts of the persona's origin, oldest first."""
    facts = [f"- {f.predicate}: {f.value}" for f in user_facts(space, persona.origin)]
    recent = list(Entry.objects.recallable().filter(space=space, origin=persona.origin)
                  .order_by("-at", "-id")[:RECENT_ENTRIES])
    memories: list[str] = []
    for entry in reversed(recent):
        text = entry.summary or entry.title or entry.body
        if is_frame_echo(entry.body, persona.frame) or is_frame_echo(text, persona.frame):
            result["rejected"] += 1
            continue
        memories.append(f"- [{entry.category}] {' '.join(text.split())[:300]}")
    user = "\n".join([
        "Current facts:", *(facts or ["(none)"]),
        "Kept events:", *([f"- {e}" for e in persona.events] or ["(none)"]),
        "Recent memories (oldest first):", *(memories or ["(none)"]),
    ])
    return [{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": user}]


def _read_answer(space: MemorySpace, answer: dict, persona: Persona, result: dict) -> tuple[list[Claim], list[str]]:
    """Validated claims and events from the model; anything failing a gate is counted as rejected."""
    frame = persona.frame
    claims: list[Claim] = []
    for item in _as_list(answer.get("facts"))[:MAX_LLM_CLAIMS]:
        claim = _claim(item)
        if (claim is None or is_frame_echo(claim.value, frame) or is_churn(claim.value)
                or overrides_explicit(space, claim, persona.origin)):
            result["rejected"] += 1
        else:
            claims.append(claim)
    events: list[str] = []
    for event in _as_list(answer.get("events")):
        if isinstance(event, str) and keep_event(event, frame):
            events.append(" ".join(event.split()))
        else:
            result["rejected"] += 1
    return claims, events


def _as_list(value) -> list:
    return value if isinstance(value, list) else []


def _claim(item) -> Claim | None:
    if not isinstance(item, dict) or item.get("predicate") not in PREDICATES or item.get("subject", "user") != "user":
        return None
    value = item.get("value")
    if not isinstance(value, str) or not value.strip():
        return None
    return Claim(predicate=item["predicate"], value=value.strip(), negative=item.get("negative") is True)
