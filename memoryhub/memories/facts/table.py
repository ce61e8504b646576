"""How a fact pattern is declared and compiled: one row of english.py or chinese.py.

A row says which predicate it asserts, the sentence shape (a regex with `{class}` word classes from vocab.py
and `<kind>` / `<predicate:kind>` value slots from values.py), whether it is a negation, whether it may fire in
a polite question ("Could you answer in French?"), and examples: sentences it must turn into that value, which
tests/test_fact_patterns.py checks row by row. A shape with a `(?P<subject>…)` group states a fact about the
person it names (a name, never a pronoun or "my …") instead of the speaker.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from memoryhub.memories.facts import values, vocab


@dataclass(frozen=True)
class Pattern:
    predicate: str
    shape: str
    examples: tuple[tuple[str, str], ...] = ()
    negative: bool = False
    request: bool = False      # may fire in a polite question or a request to the assistant
    value: str = ""            # a fixed value ("I don't smoke" → smoking) instead of the captured one
    gate: str = ""             # an extra check on the clause (rules.GATES): "goal", "ephemeral", "habit"
    regex: re.Pattern | None = field(default=None, compare=False, repr=False)


_CLASS = re.compile(r"\{([a-z_]+)\}")
_SLOT = re.compile(r"(?<!\?P)<(?:([a-zA-Z]+):)?([a-z]+)>")

END = r"\s*(?=[,;:，；：]|$)"  # `{end}`: the end of the clause (a row may read past it, for a list or an apposition)
EN_CLASSES = {
    "end": END,
    "a": r"(?:a|an)\s+",
    "adv": (r"(?:(?:really|also|just|actually|currently|now|still|totally|absolutely|very|pretty|quite|so|"
            r"kind\s+of|sort\s+of|definitely|honestly|truly|genuinely|already|mostly|generally|usually|"
            r"always|certainly|seriously|super|incredibly|extremely|deeply|strongly|much|remotely|part-time|"
            r"full-time|freelance|happily|finally|recently|proudly|mainly)\s+)*"),
    # how bad an allergy or a reaction is: "severely allergic", "a bad allergic reaction", "a mild nut allergy"
    "severe": (r"(?:(?:very|severely|mildly|deathly|slightly|a\s+bit|a\s+little|highly|severe|mild|bad|serious|slight|"
               r"terrible|deadly|life-threatening|nasty)\s+)*"),
    "have": r"(?:i|we)\s+(?:also\s+|just\s+|recently\s+|finally\s+)?(?:have|own|adopted|got|rescued|have\s+got|"
            r"have\s+adopted|have\s+rescued|have\s+just\s+(?:got|adopted))",
    "job": vocab.EN_JOBS, "lang": vocab.LANGUAGES_EN, "pet": vocab.EN_PETS, "condition": vocab.EN_CONDITIONS,
    "diet": vocab.EN_DIETS, "trait": vocab.EN_TRAITS, "goalverb": vocab.EN_GOAL_VERBS,
    "skillverb": vocab.EN_SKILL_VERBS, "instrument": vocab.EN_INSTRUMENTS, "reladj": vocab.EN_RELATION_ADJ, "children": vocab.EN_PLURAL_CHILDREN,
    **{f"rel_{family}": vocab.alt(words) for family, words in vocab.EN_RELATIONS.items()},
}
ZH_CLASSES = {
    "end": END,
    "adv": r"(?:也|还|就|都|一直|从小|超|最|很|特别|非常|真的|比较|挺|蛮|平时|一般|通常|其实|确实|本来|向来|更|好|超级|十分|相当|尤其|特|蛮)*",
    "job": vocab.ZH_JOBS, "lang": vocab.ZH_LANGUAGES, "pet": vocab.ZH_PETS, "condition": vocab.ZH_CONDITIONS,
    "diet": vocab.ZH_DIETS, "trait": vocab.ZH_TRAITS, "own": f"[{vocab.ZH_OWN_CLASSIFIERS}]",
    **{f"rel_{family}": vocab.alt(words) for family, words in vocab.ZH_RELATIONS.items()},
}


def compile_rows(rows: list[Pattern], language: str) -> list[Pattern]:
    """Each row with its regex: word classes filled in, value slots as named groups `<predicate>__<kind>__<n>`."""
    classes = EN_CLASSES if language == "en" else ZH_CLASSES
    kinds = values.EN_KINDS if language == "en" else values.ZH_KINDS
    compiled = []
    for row in rows:
        counter = iter(range(100))

        def slot(match: re.Match, row=row, counter=counter) -> str:
            predicate, kind = match.group(1) or "v", match.group(2)
            if kind not in kinds:
                raise ValueError(f"{row.shape!r}: no value kind {kind!r}")
            return f"(?P<{predicate}__{kind}__{next(counter)}>{kinds[kind]})"

        shape = _SLOT.sub(slot, _CLASS.sub(lambda m: classes[m.group(1)], row.shape))
        flags = re.I if language == "en" else 0
        compiled.append(Pattern(**{**row.__dict__, "regex": re.compile(shape, flags)}))
    return compiled
