"""Who the user is, as the /context block shows it: the persona frame whole when it fits, else shortened by one
declared rule — never cut inside a line, and never without saying what was left out.

The frame's lines (the profile a person wrote, the user's facts one line per predicate, the persona's kept
constraints under `Keep in mind:`) keep the frame's own order. When they do not all fit in their room, each line
is capped at LINE_CHARS (whole values, those about the query first, then `(+n more)`; one long value cut between
words) and lines are kept by priority, a shorter line taking the room a longer one of its priority could not,
never one of a lower priority:

0. MUST: what an agent must not get wrong whatever the query — the profile a person wrote, the kept constraints,
   the reply language, what to call the user, how the user calls the agent, the persona to play, allergies,
   health and diet;
1. IDENTITY: the user's other single-valued facts (name, home, job, spouse…);
2. QUERY: the user's other facts that share words with the query;
3. REST: every other fact.

The section's last line says what was left out, `(left out for the budget: Pets, Siblings; ask memory_facts)`,
or only how many lines when naming them would cost a line. The priorities live here, beside their only reader;
persona.py owns the frame's labels and order.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Callable

from memoryhub.agents.models import LOCAL_ORIGIN
from memoryhub.memories.facts.slots import SINGLE_VALUED
from memoryhub.memories.growth import persona
from memoryhub.memories.models import Fact, Persona
from memoryhub.memories.text.prose import clip
from memoryhub.memories.text.tokens import tokenize, words
from memoryhub.spaces.models import MemorySpace

WHO = "## Who the user is"
LINE_CHARS = 200   # the most one line of a frame that does not fit whole may take
NOTE_NAMES = 3     # the left-out facts the note names (the first by priority); the others are counted
MUST, IDENTITY, QUERY, REST = range(4)
MUST_PREDICATES = ("language", "nickname", "calledBy", "persona", "allergy", "health", "diet")

Reason = dict[str, Any]


@dataclass(eq=False)
class Line:
    """One line of the frame: its text, the items it stands for, why it is there, its priority and what it is
    (`profile`, `fact` named by `label`, or `event`, shown under Keep in mind)."""

    text: str
    items: list[dict[str, Any]]
    why: Reason
    tier: int = MUST
    kind: str = "fact"
    label: str = ""
    short: Line | None = None  # the same line within LINE_CHARS, for a frame that does not fit whole


def matched_words(text: str, query: set[str]) -> list[str]:
    """The words of `text` that match the query's tokens, as written, once each."""
    found: list[str] = []
    for word in dict.fromkeys(w.lower() for w in words(text)):
        if set(tokenize(word)) & query:
            found.append(word)
    return found


def frame_lines(spaces: list[MemorySpace], origin: str | None, query: set[str]) -> list[Line]:
    """The frame's lines in frame order, from the native spaces' profiles, user facts and constraints.

    They are the reader's own origin's (None, a local reader's "every origin", means local): another origin's
    claims or profile never tell a session who the user is. The facts of every space are one user's: a
    single-valued slot (a name, the reply language) shows the one value said last in any of them, never one per
    space, and any predicate — a person's own too — is shown. A line two spaces share is said once."""
    origin = origin or LOCAL_ORIGIN
    native = [space for space in spaces if space.is_native]
    records = {r.space_id: r for r in Persona.objects.filter(space__in=native, origin=origin)}
    lines: list[Line] = []
    events: list[Line] = []
    for space in native:
        record = records.get(space.pk)
        if record is None:
            continue
        item = {"id": f"persona:{space.slug}", "kind": "persona", "score": None}
        lines += [_capped_text(Line(text, [item], {"code": "profile"}, kind="profile"), "")
                  for text in record.profile.splitlines() if text.strip()]
        events += [_capped_text(Line(f"- {event}", [item], {"code": "constraints"}, kind="event"), "- ")
                   for event in record.events]  # the oldest first: a stable frame keeps the cache warm
    groups = dict(persona.grouped(list(persona.user_facts(native, origin)), list(persona.user_dislikes(native, origin))))
    for predicate, found in groups.items():
        kept = persona.shown(predicate, found, groups)
        if kept:
            lines.append(fact_line(predicate, kept, query))
    said: set[str] = set()
    out: list[Line] = []
    for line in [*lines, *events]:
        if line.text not in said:
            said.add(line.text)
            out.append(line)
    return out


def fact_line(predicate: str, kept: list[Fact], query: set[str]) -> Line:
    """`Label: value; value`, its priority by the predicate and by whether a value bears on the query; the short
    form puts the values about the query first."""
    label = persona.label(predicate)
    about = set(tokenize(f"{predicate} {label}"))
    matching = [f for f in kept if set(tokenize(f.value)) & query or about & query]
    if predicate in SINGLE_VALUED:
        why: Reason = {"code": "identity"}
        tier = IDENTITY
    elif matching:
        found = [w for f in matching for w in matched_words(f"{label} {f.value}", query)]
        why, tier = {"code": "fact_query", "words": list(dict.fromkeys(found))}, QUERY
    else:
        why, tier = {"code": "fact_rest"}, REST
    line = Line(f"{label}: " + "; ".join(f.value for f in kept), _fact_items(kept), why,
                MUST if predicate in MUST_PREDICATES else tier, label=label)
    line.short = _capped_values(line, [*matching, *(f for f in kept if f not in matching)])
    return line


def _fact_items(shown: list[Fact]) -> list[dict[str, Any]]:
    return [{"id": f"fact:{f.pk}", "kind": "fact", "score": None} for f in shown]


def _capped_values(line: Line, values: list[Fact]) -> Line:
    """The line as it is when it fits in LINE_CHARS; else as many whole `values` (in that order) as fit with
    `(+n more)` for the others, or the first alone, cut."""
    if len(line.text) <= LINE_CHARS:
        return replace(line, short=None)
    head = f"{line.label}: "
    for n in range(len(values), 0, -1):
        tail = f" (+{len(values) - n} more)" if n < len(values) else ""
        text = head + "; ".join(f.value for f in values[:n]) + tail
        if len(text) <= LINE_CHARS:
            return replace(line, text=text, items=_fact_items(values[:n]), short=None)
    tail = f" (+{len(values) - 1} more)" if len(values) > 1 else ""
    return replace(line, text=head + clip(values[0].value, LINE_CHARS - len(head) - len(tail)) + tail,
                   items=_fact_items(values[:1]), short=None)


def _capped_text(line: Line, head: str) -> Line:
    line.short = replace(line, text=head + clip(line.text[len(head):], LINE_CHARS - len(head)), short=None)
    return line


@dataclass
class Frame:
    """The frame being packed: every line while it fits, else the short lines kept by priority (`keep`)."""

    lines: list[Line]
    kept: list[Line] = field(default_factory=list)
    whole: bool = True
    terse: bool = False  # the note only counts what it left out: naming it would crowd out a line

    def shown(self) -> list[Line]:
        """The kept lines, in frame order."""
        return [line for line in self._current() if any(line is k for k in self.kept)]

    def left_out(self) -> list[Line]:
        """The lines not shown, each as a whole line."""
        return [line for line, now in zip(self.lines, self._current()) if not any(now is k for k in self.kept)]

    def render(self) -> list[str]:
        shown = self.shown()
        if not shown:
            return []
        out = [WHO]
        for i, line in enumerate(shown):
            if line.kind == "event" and (i == 0 or shown[i - 1].kind != "event"):
                out.append(f"{persona.EVENTS_LABEL}:")
            out.append(line.text)
        left = self.left_out()
        if left:
            out.append(note(left, self.terse))
        return out

    def keep(self, fits: Callable[[], bool]) -> None:
        """Every line whole if that fits; else, adding to what is kept, the short lines by priority while
        `fits()` (the block's text within its limit) holds: a shorter line of the same priority may take the room
        a longer one could not, never one of a lower priority. The note counts instead of naming when naming
        would leave out a line."""
        before = (list(self.kept), self.whole)
        self.kept, self.whole = list(self.lines), True
        if fits():
            self.terse = False
            return
        self.kept, self.whole = before
        if self.whole:  # the first shortening: from here on the frame shows its short lines
            self.kept, self.whole = [], False
        missed: int | None = None  # the tier of a line left out: no line of a lower priority goes before it
        for line in sorted(self._current(), key=lambda one: one.tier):  # a stable sort: frame order within a tier
            if missed is not None and line.tier > missed:
                break
            if any(line is k for k in self.kept):
                continue
            self.kept.append(line)
            if fits():
                continue
            terse, self.terse = self.terse, True
            if not fits():
                self.kept.pop()
                self.terse, missed = terse, line.tier
        if self.terse:  # name what was left out after all, when that fits
            self.terse = False
            if not fits():
                self.terse = True

    def _current(self) -> list[Line]:
        return self.lines if self.whole else [line.short or line for line in self.lines]


def note(left: list[Line], terse: bool = False) -> str:
    """The section's last line when lines were left out: the first facts by priority named (unless `terse`), the
    others, profile lines and constraints counted, and the tools that have them."""
    labels = list(dict.fromkeys(line.label for line in sorted(left, key=lambda one: one.tier) if line.kind == "fact"))
    others = any(line.kind != "fact" for line in left)
    ask = [tool for tool, wanted in (("memory_facts", labels), ("memory_profile", others)) if wanted]
    if terse:
        return f"({_count(len(left), 'line')} left out for the budget; ask {' and '.join(ask)})"
    parts = labels[:NOTE_NAMES]
    if len(labels) > NOTE_NAMES:
        parts.append(f"{_count(len(labels) - NOTE_NAMES, 'more fact')}")
    profile = sum(line.kind == "profile" for line in left)
    events = sum(line.kind == "event" for line in left)
    if profile:
        parts.append(_count(profile, "profile line"))
    if events:
        parts.append(f"{events} to keep in mind")
    return f"(left out for the budget: {', '.join(parts)}; ask {' and '.join(ask)})"


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"
