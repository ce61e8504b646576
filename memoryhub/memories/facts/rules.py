"""Rule-based fact extraction: what people say about themselves, by the declared patterns of english.py and
chinese.py, so ordinary talk yields nothing.

A statement is cut into sentences and clauses. A clause is tried against the table of its language, first row
first, at its start (after fillers such as "btw", 对了); the first row that fits gives its claims. Gates keep
out what is not a standing fact about the speaker: questions (a polite request such as "Could you answer in
French?" only for request rows), hypotheticals (if, 如果 … to the end of the sentence), would/could/might,
other people (a clause about "my coworker" or 她 gives the user nothing, and a following clause without a
subject stays theirs: 我女儿叫朵朵，今年五岁), quoted text, tasks of the moment. A clause without a subject goes on
the previous clause's (我叫王磊，在杭州工作 → 我在杭州工作).

Claims are about whoever speaks: the user, unless a line is labelled with another speaker's name
("Caroline: I love painting" is Caroline's, not the user's).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from memoryhub.memories.facts import values, vocab
from memoryhub.memories.facts.table import Pattern, compile_rows
from memoryhub.memories.text import segment


@dataclass(frozen=True)
class Claim:
    """One statement about the user, before it meets the slot pipeline."""

    subject: str = "user"
    predicate: str = ""
    value: str = ""
    negative: bool = False


@lru_cache(maxsize=1)
def tables() -> dict[str, list[Pattern]]:
    """The compiled tables, English and Chinese (compiled once, on first use)."""
    from memoryhub.memories.facts.chinese import ROWS as ZH
    from memoryhub.memories.facts.english import ROWS as EN

    return {"en": compile_rows(EN, "en"), "zh": compile_rows(ZH, "zh")}


_CJK = re.compile(r"[\u3400-\u9fff]")
_SENTENCE = re.compile(r"[^。！？!?\n]+[。！？!?\n]*")
_EN_PERIOD = re.compile(r"(?<=[A-Za-z0-9)\"'])\.(?:\s+|$)")
_QUOTED = re.compile(r"[\"“]([^\"”]{12,})[\"”]|(?<![A-Za-z])'([^']{12,})'(?![A-Za-z])|「([^」]{8,})」")

_EN_CONTRACTIONS = [(re.compile(p, re.I), r) for p, r in (
    (r"\bi'm\b", "I am"), (r"\bi've\b", "I have"), (r"\bi'd\b", "I would"), (r"\bi'll\b", "I will"),
    (r"\bwe're\b", "we are"), (r"\bwe've\b", "we have"), (r"\bwe'd\b", "we would"), (r"\bcan't\b", "cannot"),
    (r"\bwon't\b", "will not"), (r"\b(\w+)n't\b", r"\1 not"), (r"\bit's\b", "it is"), (r"\bthat's\b", "that is"),
    (r"\bthere's\b", "there is"), (r"\bi\s+gotta\b", "I have to"), (r"\bwanna\b", "want to"),
    (r"\bgonna\b", "going to"), (r"\band\s+i\s+are\b", "and I am"), (r"\band\s+i\s+were\b", "and I was"))]
_EN_FILLER = re.compile(
    r"(?:(?:hey|hi|hello|hiya|yo|so|also|and|but|oh|ok|okay|well|btw|by\s+the\s+way|fyi|actually|honestly|anyway|"
    r"anyways|just\s+so\s+you\s+know|for\s+the\s+record|for\s+context|fun\s+fact|remember|remember\s+that|"
    r"note\s+that|please\s+note\s+that|please\s+remember\s+that|keep\s+in\s+mind(?:\s+that)?|bear\s+in\s+mind(?:\s+that)?|as\s+you\s+know|"
    r"you\s+know|to\s+be\s+honest|frankly|basically|yeah|yes|yep|um|uh|by\s+profession|by\s+trade|"
    r"professionally|originally|in\s+fact|personally|as\s+for\s+me|about\s+me|nice\s+to\s+meet\s+you|"
    r"good\s+(?:morning|evening|afternoon)|for\s+your\s+information|quick\s+note|just\s+a\s+heads\s+up|"
    r"heads\s+up|one\s+more\s+thing|oh\s+and|there|these\s+days|nowadays|lately|at\s+the\s+moment|"
    r"(?:this|next)\s+year|for\s+now|right\s+now|since|because|given\s+that|seeing\s+(?:as|that)|now\s+that)"
    r"\b[\s,!.:;-]*)*", re.I)
_ZH_FILLER = re.compile(
    r"(?:(?:那么?|好的?|嗯+|哦|噢|对了|另外|还有|然后|记住|请记住|你要记住|注意|补充一下|提醒一下|顺便说一下|顺便|"
    r"其实|说实话|老实说|告诉你|跟你说|我跟你说|话说|大家好|你好|您好|嗨|哈喽|因为|所以|而且|不过|ok|OK|"
    r"今年|明年|去年|最近|现在|目前|以后|今后|将来|从小|从今天起|从现在起|这些年|这几年|平时|周末|平日|假期|放假的时候|"
    r"有空的时候|有空)[\s,，~～!！]*)*")
_EN_CLAUSE = re.compile(
    r"\s*[,;:]\s*|\s+-\s+|\s+(?:but|however|whereas)\s+|\s+(?:and|so|because)\s+(?=(?:i|my|we|our)\b)"
    # "… at Figma and live in Oslo": a second thing the user does, its subject left out
    r"|\s+and\s+(?=(?:live|work|speak|own|drive|study|teach|grew\s+up|moved|am|also\s+(?:live|work|speak|have))\b)",
    re.I)
_ZH_CLAUSE = re.compile(r"[，,；;：:、]?(?:但是|不过|可是|而且|并且|所以|因为|然后)|[，,；;：:]")

_EN_QUESTION = re.compile(r"\?\s*$|^(?:what|where|when|who|whom|whose|why|how|which|do|does|did|is|are|am|was|"
                          r"were|can|could|would|will|should|shall|may|might|have|has)\b", re.I)
_EN_POLITE = re.compile(r"^(?:(?:could|can|would|will)\s+you\s+(?:please\s+)?|please\s+)", re.I)
_ZH_QUESTION = re.compile(r"[?？]\s*$|(?:吗|呢|么|没有|不)\s*[?？]?\s*$|什么|哪|怎么|为什么|为何|多少|谁|几岁|几个|是否")
_ZH_POLITE = re.compile(r"^(?:你|您)?(?:能不能|可不可以|能否|能|可以|麻烦你?|请你?)")

_EN_HYPOTHETICAL = re.compile(r"^(?:if|suppose|supposing|imagine|pretend|assuming|assume|what\s+if|let's\s+say|"
                              r"let\s+us\s+say|hypothetically|in\s+a\s+world|unless|in\s+case|say)\b|\bif\b", re.I)
_EN_BEFORE_CONDITION = re.compile(r"[\s,]*(?:\b(?:even|only|except|but|and|or)\s*)*$", re.I)
_EN_MODAL = re.compile(r"\b(?:would|could|might|should|wish)\b(?!\s+(?:like|love|prefer)\b)",
                       re.I)
_ZH_HYPOTHETICAL = re.compile(r"如果|假如|假设|要是|万一|假若|倘若|假使|的话|想象一下|设想")

_EN_USER = re.compile(r"^(?:i|me|my|mine|we|our|us)\b", re.I)
_EN_OTHERS = re.compile(
    r"^(?:my|our)\s+(?:[\w-]+\s+){0,2}?"
    + vocab.alt(" ".join(vocab.EN_RELATIONS.values()) + " " + vocab.EN_OTHER_WORDS + " " + vocab.EN_PET_WORDS)
    + r"s?\b(?!(?:\s+[\w'-]+){0,3}?\s+(?:call|calls|know|knows)\s+me\b)"  # "my friends call me Jojo" is the user's
    + r"(?!\s+(?:tongue|language|country|land|figure)\b)"  # "my mother tongue": a compound, not a relative
    r"|^(?:he|she|they|his|her|their|someone|somebody)\b", re.I)
# "Anna lives in Prague, works at Google": a named someone's clause; what follows without a subject is theirs too
_EN_NAMED = re.compile(r"^[A-Z][a-z]+(?:\s+[A-Z][a-z]+)?\s+(?:is|was|has|had|lives|works|loves|likes|says|said)\b")
_EN_SUBJECTLESS = re.compile(r"^(?!(?:i|you|he|she|it|we|they|my|your|his|her|our|their|the|a|an|this|that|"
                             r"there|to|in|on|at|for|with|and|or|but|so|not|no|yes)\b)[a-z]", re.I)
_ZH_USER = re.compile(r"^(?:我|本人|咱)")
_ZH_OTHERS = re.compile(
    r"^我们?(?:的|家的?)?"
    + vocab.alt(" ".join(vocab.ZH_RELATIONS.values()) + " " + vocab.ZH_OTHER_WORDS + " " + vocab.ZH_PET_WORDS)
    + r"|^(?:他|她|它|人家|别人|有人|那个人|这个人|小说|故事|电影|书里|文章)")
_ZH_RELATIVE_FIRST = re.compile(vocab.alt(" ".join(vocab.ZH_RELATIONS.values())) + "(?:叫|名叫|的名字)")
_ZH_YOU = re.compile(r"^(?:你|您|请)")
# 王总, 李老师, 张医生: someone by surname and title opens the clause (小张 and 老周 are given_name_at's)
_ZH_TITLED = re.compile(r"^(?:" + "|".join(segment.ZH_SURNAMES) + r")(?:总|老师|医生|大夫|经理|主任|师傅|教授|律师|"
                        r"阿姨|叔叔|姐|哥|工|董|局|处|科长|所长|院长|校长|老板)")


def extract(text: str) -> list[Claim]:
    """Claims from the declared patterns, each about its speaker (the user unless a line names another)."""
    claims: list[Claim] = []
    for subject, said in _by_speaker((text or "")[:TEXT_CHARS]):
        previous = ""
        for sentence in _sentences(said):
            said_now = _sentence_claims(sentence) + _named_next(previous, sentence)
            previous = sentence
            for claim in said_now:
                # a row naming its own subject (思琪的生日是六月三号) keeps it; the rest are the speaker's
                if subject != "user" and (claim.subject.startswith("@") or claim.predicate == "relation"):
                    continue  # "Caroline: my husband …" speaks of Caroline's people, not the user's
                claim = Claim(claim.subject if claim.subject != "user" else subject, claim.predicate, claim.value,
                              claim.negative)
                if claim not in claims:
                    claims.append(claim)
    # "I've got a dog. It's called Rex.", 我家有两只猫，一只叫豆豆: Rex (dog) says what the bare "dog" did
    named = {c.value.rpartition(" (")[2].rstrip(")") for c in claims if c.predicate == "pet" and c.value.endswith(")")}
    return [c for c in claims if not (c.predicate == "pet" and c.value in named)]


# --- speakers and sentences -------------------------------------------------------------------

# A speaker label: one to three capitalised words, or a short Chinese name, then a colon.
_SPEAKER = re.compile(r"^\s*(?P<name>[A-Z][\w'.-]{0,30}(?: [A-Z][\w'.-]{0,30}){0,2}|[\u4e00-\u9fff]{2,4})(?::\s+|：\s*)")
_USER_LABELS = frozenset({"user", "human", "me", "用户", "我"})
# Labels that head a note rather than name a speaker ("Note: I prefer tabs" is still the user's).
_NOT_SPEAKERS = frozenset(
    """note notes update summary question answer q a ps fyi edit important reminder tip warning todo re subject title
    context example remember info 注意 备注 提醒 总结 问题 回答 重要 补充 更新 结论 总之 例如 比如 背景 需求 目标 计划""".split()
)


def _by_speaker(text: str) -> list[tuple[str, str]]:
    """(subject, what they said) per line: a leading "Name:" names the speaker until the next one does
    (a heading such as "Note:" is only taken off)."""
    parts: list[tuple[str, list[str]]] = []
    subject = "user"
    for line in text.splitlines():
        match = _SPEAKER.match(line)
        if match:
            name = match.group("name")
            if name.casefold() not in _NOT_SPEAKERS:
                subject = "user" if name.casefold() in _USER_LABELS else name[:100]
            line = line[match.end():]
        if parts and parts[-1][0] == subject:
            parts[-1][1].append(line)
        else:
            parts.append((subject, [line]))
    return [(subject, "\n".join(lines)) for subject, lines in parts]


# What a sentence may hold for the patterns: people say who they are in sentences, not in pasted lists or logs, and
# the patterns' work grows faster than a sentence's length ("I hate a, a, a, …" of 9,000 characters took 11 s).
SENTENCE_CHARS = 400
# What a text may hold for them: every sentence is tried against every row (about 25 µs a sentence), and a turn of
# half a megabyte is a pasted document, not someone telling who they are.
TEXT_CHARS = 20_000


def _sentences(text: str) -> list[str]:
    text = _QUOTED.sub(" … ", text.replace("’", "'").replace("‘", "'"))  # quoted words are someone's, not facts
    parts: list[str] = []
    for match in _SENTENCE.finditer(text):
        pieces = _EN_PERIOD.split(match.group(0))
        parts.extend(p.strip()[:SENTENCE_CHARS] for p in pieces if p.strip())
    return parts


# --- clauses ---------------------------------------------------------------------------------------

def _sentence_claims(sentence: str) -> list[Claim]:
    chinese = bool(_CJK.search(sentence))
    rows = tables()["zh" if chinese else "en"]
    if not chinese:
        for pattern, replacement in _EN_CONTRACTIONS:
            sentence = pattern.sub(replacement, sentence)
    body = sentence.rstrip("。！!？?；;.\n ")
    requests_only = False
    if (_ZH_QUESTION if chinese else _EN_QUESTION).search(sentence):
        polite = (_ZH_POLITE if chinese else _EN_POLITE).match(body)
        if not polite:
            return []
        body, requests_only = body[polite.end():], True
        if chinese:
            body = re.sub(r"(?:吗|呢|么|好吗|可以吗|行吗)$", "", body)
    found: list[Claim] = []
    speaker_is_user = True  # whose clause a clause without a subject continues
    family = None  # the relative or pet the last clause spoke of (我家有两只猫，一只叫豆豆)
    relative = ""  # whom the last clause was about, when it named or pointed at one of the user's people
    mentioned: list[Claim] = []  # the user's people named inside the user's own clauses ("I live with my partner Sam")
    consumed = 0
    last = False  # a condition began inside the clause before: nothing after it is said as it is
    for start, end in _clauses(body, chinese):
        if start < consumed:
            continue
        if last:
            break
        clause = body[start:end]
        lead = (_ZH_FILLER if chinese else _EN_FILLER).match(clause).end()
        clause_text = clause[lead:]
        hypothesis = (_ZH_HYPOTHETICAL if chinese else _EN_HYPOTHETICAL).search(clause_text)
        if hypothesis:
            said = _EN_BEFORE_CONDITION.sub("", clause_text[:hypothesis.start()]) if not chinese else ""
            if len(said.split()) < 3:
                break  # the rest of the sentence is what might be, not what is
            # "answer in English even if I write in Chinese": what comes before the condition is said as it is
            body, clause_text, last = body[:start + lead + len(said)], said, True
        if not chinese and _EN_MODAL.search(clause_text):
            continue
        clause_text, rest, shift, companion = _with_someone(clause_text, body[start + lead:], chinese)
        whose = _whose(clause_text, chinese)
        if whose == "user" and not requests_only:
            mentioned += _mentioned(clause_text, chinese)
        tries = [("", rest)]
        if chinese and whose == "none" and _ZH_RELATIVE_FIRST.match(clause_text):
            whose, tries = "other", [("我", "我" + rest)]  # 我大女儿叫甜甜，小女儿叫乐乐: still the user's daughter
        elif (whose == "none" and speaker_is_user and (chinese or start > 0)
              and (chinese or (_EN_SUBJECTLESS.match(rest) and body[:start].rstrip()[-1:] not in ":;"))):
            # "…, and work at Dell" goes on the user's clause; what follows a colon explains, it does not go on
            tries.append(("我" if chinese else "I ", ("我" if chinese else "I ") + rest))
        named = _zh_naming(clause_text, family) if chinese and whose == "none" else []
        if named:
            found += named
            continue
        family = _zh_family(clause_text) if chinese else None
        if not requests_only and whose not in ("you", "named") and (
                about := _about_relative(clause_text, rest, rows, chinese)):
            claims, relative, used = about  # 我爱人王芳是医生, my friend Jake: who they are, and what is said of them
            found += claims
            consumed = start + lead + shift + used
            speaker_is_user = False
            continue
        pronoun = _PRONOUN.match(clause_text) if whose == "other" else None
        if not requests_only and relative and (whose == "none" or pronoun):
            # 我爱人叫林悦，在苏州工作 / 她是医生: the clause goes on the relative just named
            claims, relative = _goes_on(relative, clause_text[pronoun.end():] if pronoun else clause_text, rows,
                                        chinese)
            found += claims
            continue
        relative = companion
        for prefix, text in tries:
            # A clause about a relative ("my husband Raj is a pilot", 我同事对芒果过敏) only says who they are.
            allowed = RELATIVES if whose == "other" else None
            claims, used = _first_row(rows, text, clause_text, requests_only, chinese, allowed)
            if claims is not None:
                found += claims
                consumed = start + lead + shift + max(0, used - len(prefix))
                break
        if whose == "user":
            speaker_is_user = True
        elif whose in ("other", "named"):
            speaker_is_user = False
    found += [claim for claim in mentioned if claim not in found]
    if not requests_only:
        found += [Claim(predicate="path", value=p) for p in _paths(body)]
    return found


_ZH_NAMING = re.compile(r"^(?:一只|一条|一个|另一只|另一条|另一个|老大|老二|老三|大的|小的|大宝|二宝)?(?:叫|名叫|叫做|名字叫)"
                        r"(?P<name>[\u4e00-\u9fffA-Za-z·]{1,8})$")
_ZH_CHILD_WORDS = vocab.alt(vocab.ZH_RELATIONS["child"])[3:-1]
_ZH_RELATIVE_WORDS = {word: family for family, words in vocab.ZH_RELATIONS.items() for word in words.split()}
_ZH_FAMILY = re.compile(r"我(?:的|家)?(?:有(?:一|两|三|四|几)?(?:个|位)?)?(?P<rel>" + vocab.alt(" ".join(vocab.ZH_RELATIONS.values()))[3:-1] + ")"
                        r"|(?:有|养了?|养着)(?:一|两|三|几)?(?:个|只|条)?(?P<pet>" + vocab.ZH_PETS[3:-1] + ")")


_ZH_BORN = re.compile(r"(?:生了|有了|添了|领养了)(?:一|两)?(?:个|对)?(?P<rel>" + _ZH_CHILD_WORDS + ")")


def _zh_family(clause: str) -> tuple[str, str] | None:
    """(family, note) of the relative or pet a clause speaks of last: 我儿子今年上小学 → child; 我家有两只猫 → pet (猫);
    我老婆生了个女儿 → child (a following 叫安琪 names the daughter)."""
    found = list(_ZH_FAMILY.finditer(clause)) + [m for m in _ZH_BORN.finditer(clause)]
    if not found:
        return None
    match = max(found, key=lambda m: m.start())
    if match.re is _ZH_BORN:
        return _ZH_RELATIVE_WORDS.get(match.group("rel"), ""), ""
    if match.group("rel"):
        return _ZH_RELATIVE_WORDS.get(match.group("rel"), ""), ""
    return "pet", match.group("pet")


def _zh_naming(clause: str, family: tuple[str, str] | None) -> list[Claim]:
    """叫乐乐 after a clause about a son, 一只叫豆豆 after one about two cats: their names."""
    match = _ZH_NAMING.match(clause) if family and family[0] else None
    name = values.clean_zh("name", match.group("name")) if match else ""
    if not name:
        return []
    return [Claim(predicate=family[0], value=f"{name} ({family[1]})" if family[1] else name)]


def _clauses(body: str, chinese: bool) -> list[tuple[int, int]]:
    spans, start = [], 0
    for match in (_ZH_CLAUSE if chinese else _EN_CLAUSE).finditer(body):
        if match.start() > start:
            spans.append((start, match.start()))
        start = match.end()
    if start < len(body):
        spans.append((start, len(body)))
    return spans


def _whose(clause: str, chinese: bool) -> str:
    """user, other (a relative's or someone's clause: it only says who they are, and a following clause without a
    subject stays theirs), named (a clause opening with a name: anything that fits, but what follows is theirs),
    you, or none."""
    if chinese:
        if _ZH_OTHERS.match(clause):
            return "other"
        if _ZH_USER.match(clause):
            return "user"
        if _ZH_YOU.match(clause):
            return "you"
        return "named" if _ZH_TITLED.match(clause) or segment.given_name_at(clause) else "none"
    if _EN_OTHERS.match(clause):
        return "other"
    if _EN_NAMED.match(clause):
        return "named"
    if _EN_USER.match(clause):
        return "user"
    return "you" if re.match(r"^(?:you|please|call|answer|reply|respond|talk|speak|write)\b", clause, re.I) else "none"


RELATIVES = frozenset({"spouse", "partner", "child", "parent", "sibling", "pet"})
# What may be said of one of the user's people: never what only the user has (what to call them, their name, the
# reply language, their model and paths), and their own relatives are not followed further.
_THEIRS = frozenset({"location", "hometown", "job", "employer", "education", "allergy", "diet", "health",
                     "preference", "birthday", "age", "skill", "habit", "goal", "owns", "trait"})

# --- the user's people: who they are, and what is said of them -------------------------------------

_EN_PEOPLE = vocab.alt(" ".join(vocab.EN_RELATIONS.values()) + " " + vocab.EN_OTHER_WORDS)
_ZH_PEOPLE = vocab.alt(" ".join(vocab.ZH_RELATIONS.values()) + " " + vocab.ZH_OTHER_WORDS)
_EN_RELATIVE_WORDS = {word.replace("_", " "): family for family, words in vocab.EN_RELATIONS.items()
                      for word in words.split()}
_EN_ABOUT = re.compile(r"^(?:my|our|(?:i|we)\s+(?:also\s+)?have\s+(?:a|an|one))\s+(?:" + vocab.EN_RELATION_ADJ
                       + r"\s+)*(?P<rel>" + _EN_PEOPLE + r")(?![\w-])(?!\s+(?:tongue|language|country|land|figure)\b)",
                       re.I)
_ZH_ABOUT = re.compile(r"^(?:这是|这位是|这就是)?我们?(?:的|家的?|(?:还|也)?有(?:一个|一位|个|位))?(?P<rel>" + _ZH_PEOPLE + ")")
_ZH_WITH = re.compile(r"^我(?:和|跟|与|同)(?:我的?)?(?P<rel>" + _ZH_PEOPLE + ")")
_ZH_TOGETHER = re.compile(r"^(?:(?P<me>我)(?:和|跟|与|同)(?:我的?)?" + _ZH_PEOPLE + r"|我的?" + _ZH_PEOPLE
                          + r"(?:和|跟|与)(?P<me2>我))(?:两个人?|俩)?(?:(?:都|也|一起)+|(?=住|在|已经|现在|目前|搬|定居|生活))")
_ZH_CALLED_NAME = re.compile(r"^(?:的名字)?(?:叫做|名叫|叫|的名字是|名字叫|名字是)(?P<name>[\u4e00-\u9fffA-Za-z·]{1,8})")
_EN_NAMED_AS = re.compile(r"^\s*,?\s*(?:(?:is\s+)?(?:called|named)\s+|'s\s+name\s+is\s+|is\s+)?"
                          r"(?P<name>(?-i:[A-Z][\w'-]+(?:\s+[A-Z][\w'-]+)?))")
_PRONOUN = re.compile(r"^(?:他|她)(?!们)|^(?:he|she)\s+(?=\w)", re.I)
# "is", "'s", "has" or a verb in -s opening what is said of someone: told in the present, it says who they are
_EN_THIRD = re.compile(r"^\s*(?:(?P<be>is)\b|(?P<own>'s)\s|(?P<has>has)\b|(?P<verb>[a-z]+s)\b)", re.I)
_EN_BASE = re.compile(r"(?:(?<=ch)|(?<=sh)|(?<=ss)|(?<=x))es$|(?<=[^aeiou])ies$|s$")  # teaches, studies, lives


def _with_someone(clause: str, rest: str, chinese: bool) -> tuple[str, str, int, str]:
    """(clause, rest, how much shorter they got, "@family" of whom) for a clause the user says with someone:
    我和爱人住在杭州 / 我老公和我住在北京 read as 我住在杭州 (the user does it too), and 她 after 我和老婆结婚五年了
    is the spouse. English needs none of it: "my wife and I live …" is split at "and I" into two clauses."""
    if not chinese:
        return clause, rest, 0, ""
    with_them = _ZH_WITH.match(clause)
    family = "@" + _ZH_RELATIVE_WORDS[with_them.group("rel")] if with_them and with_them.group("rel") in \
        _ZH_RELATIVE_WORDS else ""
    together = _ZH_TOGETHER.match(clause)
    if not together:
        return clause, rest, 0, family
    me = together.group("me") or together.group("me2")
    return me + clause[together.end():], me + rest[together.end():], together.end() - len(me), family


def _goes_on(relative: str, text: str, rows: list[Pattern], chinese: bool) -> tuple[list[Claim], str]:
    """What a clause after one about someone of the user's says of them (claims, and whom the next goes on):
    their facts, or for an unnamed one their name (…，她叫晓丽)."""
    called = _ZH_CALLED_NAME.match(text) if chinese and relative.startswith("@") else None
    name = values.clean_zh("name", called.group("name")) if called else ""
    if name:
        return [Claim(predicate=relative[1:], value=name)], name
    return _theirs(relative, text, rows, chinese), relative


def _about_relative(clause: str, rest: str, rows: list[Pattern], chinese: bool
                    ) -> tuple[list[Claim], str, int] | None:
    """A clause opening with one of the user's people (我爱人…, "my friend …"): the relation with the name said
    (我爱人叫王芳 / 我女儿思琪 → spouse or child; 我朋友阿杰, "my friend Jake" → 阿杰 is a friend), then what the
    clause says of them, theirs: by name, or for an unnamed spouse or parent the relation itself ("@spouse", which
    the slots resolve to the name they know). Answers (claims, whom a following clause goes on, how much of `rest`
    — the sentence from the clause on — a naming row read), or None for a clause about someone else (a pet, 他)."""
    match = (_ZH_ABOUT if chinese else _EN_ABOUT).match(clause)
    if match is None:
        return None
    word = match.group("rel")
    family = (_ZH_RELATIVE_WORDS if chinese else _EN_RELATIVE_WORDS).get(word if chinese else word.lower(), "")
    after = clause[match.end():]
    if family:
        claims, used = _first_row(rows, rest, clause, False, chinese, RELATIVES)  # 我老公叫张伟, "one son, Oskar"
        names = [c.value for c in claims or () if c.predicate == family]
        if len(names) == 1:
            return claims + _theirs(names[0], clause[used:], rows, chinese), names[0], used
        if claims:
            return claims, "", used
    name, tail = _introduced(after, chinese)
    if name:
        said = Claim(predicate=family, value=name) if family else Claim(subject=name, predicate="relation",
                                                                         value=word.lower())
        return [said, *_theirs(name, tail, rows, chinese)], name, 0
    if not family:
        return [], "", 0  # "my friend is a doctor": which friend is not said
    return _theirs("@" + family, after, rows, chinese), "@" + family, 0


# Kin named where the user speaks of something else: "I live with my partner Sam", 我周末带我女儿朵朵去公园. Only the
# family words (a friend may be anyone's), and not the ones that also mean a pet or a sweetheart (baby, boy, girl).
_EN_KIN = vocab.alt(" ".join(w for words in vocab.EN_RELATIONS.values() for w in words.split()
                             if w not in ("boy", "girl", "baby", "bro", "sis", "little_one")))
_EN_MENTION = re.compile(r"\b(?:my|our)\s+(?:" + vocab.EN_RELATION_ADJ + r"\s+)*(?P<rel>" + _EN_KIN
                         + r")(?:\s*,)?\s+(?P<name>(?-i:[A-Z][\w'-]+(?:\s+[A-Z][\w'-]+)?))(?!')", re.I)
# "for my IBS", 我的胃病又犯了: a condition the user calls theirs (not "my cancer research")
_EN_MY_CONDITION = re.compile(r"\bmy\s+(?P<c>" + vocab.EN_CONDITIONS + r")\b(?!\s+(?:research|project|study|studies|paper|team|"
                              r"patients|clinic|foundation|charity|awareness|ward|unit|department|app)\b)", re.I)
_ZH_MY_CONDITION = re.compile(r"我的(?P<c>" + vocab.ZH_CONDITIONS[3:-1] + ")")
_ZH_MENTION = re.compile(r"(?<=.)我(?:的|家)?(?P<rel>" + vocab.alt(" ".join(vocab.ZH_RELATIONS.values()))[3:-1] + ")")


def _mentioned(clause: str, chinese: bool) -> list[Claim]:
    """The user's kin named in passing inside a clause of the user's own, and a condition they call theirs: who
    someone is to the user is said as plainly as "my son Felix" at the start of a clause (what the clause says
    they did is not kept), and "for my IBS" as "I have IBS"."""
    claims = [Claim(predicate="health", value=match.group("c"))
              for match in (_ZH_MY_CONDITION if chinese else _EN_MY_CONDITION).finditer(clause)]
    if chinese:
        for match in _ZH_MENTION.finditer(clause):
            name = segment.given_name_at(clause[match.end():])
            if name and match.group("rel") in _ZH_RELATIVE_WORDS:
                claims.append(Claim(predicate=_ZH_RELATIVE_WORDS[match.group("rel")], value=name))
        return claims
    for match in _EN_MENTION.finditer(clause):
        name = values.clean_en("name", match.group("name"))
        if name and match.start() > 0:
            claims.append(Claim(predicate=_EN_RELATIVE_WORDS[match.group("rel").lower()], value=name))
    return claims


# One of the user's people named in the next sentence.
_EN_UNNAMED = re.compile(r"\b(?:(?:i|we)(?:'ve|\s+have)?\s+(?:also\s+|just\s+)?(?:have|got|adopted|had)\s+(?:a|an|one)|my|our)"
                         r"\s+(?:[\w-]+\s+){0,2}?(?P<rel>" + _EN_KIN + "|" + vocab.EN_PETS + r")\b(?!\s*,?\s*(?-i:[A-Z]))",
                         re.I)
_EN_THEIR_NAME = re.compile(r"^(?:(?:her|his|its|their)\s+name(?:'s|\s+is)|(?:she|he|it)(?:'s|\s+is)\s+(?:called|named))"
                            r"\s+(?P<name>(?-i:[A-Z][\w'-]+(?:\s+[A-Z][\w'-]+)?))", re.I)
_ZH_THEIR_NAME = re.compile(r"^(?:她|他|它)(?:叫做|名叫|叫|的名字(?:是|叫))(?P<name>[\u4e00-\u9fffA-Za-z·]{1,8})")


def _named_next(previous: str, sentence: str) -> list[Claim]:
    """"We have a son. His name is Felix." / 我有个女儿。她叫朵朵。: the sentence after one that spoke of an unnamed
    relative or pet of the user's names them."""
    if not previous:
        return []
    if _CJK.search(sentence):
        named = _ZH_THEIR_NAME.match(sentence)
        family = _zh_family(previous) if named else None
        name = values.clean_zh("name", named.group("name")) if named else ""
        if not (family and family[0] and name):
            return []
        return [Claim(predicate=family[0], value=f"{name} ({family[1]})" if family[1] else name)]
    named = _EN_THEIR_NAME.match(sentence)
    spoken = list(_EN_UNNAMED.finditer(previous)) if named else []
    name = values.clean_en("name", named.group("name")) if named else ""
    if not (spoken and name):
        return []
    word = spoken[-1].group("rel").lower()
    family = _EN_RELATIVE_WORDS.get(word)
    return [Claim(predicate=family, value=name) if family else Claim(predicate="pet", value=f"{name} ({word})")]


def _introduced(rest: str, chinese: bool) -> tuple[str, str]:
    """(the name a relation word introduces, what follows it): 思琪 of 思琪今年五岁, 小丽 of 是小丽, 阿杰 of 叫阿杰,
    Jake of "Jake is a pilot"; ("", rest) when no name follows."""
    if chinese:
        called = _ZH_CALLED_NAME.match(rest)
        if called:
            name = values.clean_zh("name", called.group("name"))
            return (name, "") if name else ("", rest)
        is_name = rest.startswith("是")
        name = segment.given_name_at(rest[is_name:]) or ""
        tail = rest[is_name + len(name):]
        if name and is_name and tail.strip():
            return "", rest  # 是小丽 names her; 是王芳的同事 does not
        return (name, tail) if name else ("", rest)
    named = _EN_NAMED_AS.match(rest)
    name = values.clean_en("name", named.group("name")) if named else ""
    return (name, rest[named.start("name") + len(name):]) if name else ("", rest)


def _theirs(subject: str, text: str, rows: list[Pattern], chinese: bool) -> list[Claim]:
    """What a clause says of one of the user's people, as if they said it of themselves (我爱人|是医生 → 我是医生,
    "my wife|'s birthday is …" → "my birthday is …"), with them as its subject; what is only the user's own
    (a nickname, the reply language) is never theirs."""
    text = text.strip(" ,，")
    if not text:
        return []
    if chinese:
        text = "我" + text
    else:
        third = _EN_THIRD.match(text)
        if third is None:
            return []
        first = ("I am" if third.group("be") else "my" if third.group("own") else "I have" if third.group("has")
                 else "I " + _EN_BASE.sub(lambda m: "y" if m.group(0) == "ies" else "", third.group("verb")))
        text = first + " " + text[third.end():].lstrip()
    claims, _ = _first_row(rows, text, text, False, chinese, _THEIRS)
    return [Claim(subject=subject if c.subject == "user" else c.subject, predicate=c.predicate, value=c.value,
                  negative=c.negative) for c in claims or ()]


def _first_row(rows: list[Pattern], text: str, clause: str, requests_only: bool, chinese: bool,
               allowed: frozenset[str] | None = None) -> tuple[list[Claim] | None, int]:
    """The claims of the first row that fits at the start of `text`, and where its match ended."""
    for row in rows:
        if (requests_only and not row.request) or (allowed is not None and row.predicate not in allowed):
            continue
        match = row.regex.match(text)
        if match is None:
            continue
        claims = _claims(row, match, clause, chinese)
        if claims:
            return claims, match.end()
    return None, 0


def _claims(row: Pattern, match: re.Match, clause: str, chinese: bool) -> list[Claim]:
    clean = values.clean_zh if chinese else values.clean_en
    note = (match.groupdict().get("note") or "").strip()
    subject = "user"
    if match.groupdict().get("subject"):
        raw = match.group("subject")
        # a Chinese name, or how a child or a friend is called (朵朵, 小宝, 老王)
        subject = (values.clean_zh("person", raw) or (raw if _ZH_CALLED_FORM.fullmatch(raw) else "")) if chinese \
            else values.clean_en("name", raw)
        if not subject:
            return []
    claims: list[Claim] = []
    # A row holds together: one of its values that is not what its kind promises voids the row (我是一个很乐观的人
    # is no "我是<hometown>的<name>").
    for group, raw in match.groupdict().items():
        if "__" in group and raw is not None and group.split("__")[1] not in values.LIST_KINDS \
                and not row.value and not clean(group.split("__")[1], raw):
            return []
    if row.value and not any("__" in group for group in match.groupdict()):
        return [Claim(predicate=row.predicate, value=row.value, negative=row.negative)]
    for group, raw in match.groupdict().items():
        if "__" not in group or raw is None:
            continue
        predicate, kind, _ = group.split("__")
        predicate = row.predicate if predicate == "v" else predicate
        pieces = [raw]
        if kind in values.LIST_KINDS:
            pieces = (values.SPLIT_LIST_ZH if chinese else values.SPLIT_LIST_EN).split(raw)
            if chinese and not all(piece.strip() for piece in pieces):
                pieces = [raw]  # 和朋友一起打球: 和 is "with" here, not a list
        for piece in pieces:
            value = row.value or clean(kind, piece)
            verb = match.groupdict().get("verb") or ""
            if kind == "where" and value:
                predicate = values.place_or_employer(value, verb)
            elif chinese and verb and len(value) == 1:
                value = verb + value  # 不抽烟 → 抽烟, 不吃辣 → 吃辣: one character says too little alone
            if not value or not _passes(row.gate, value, clause, chinese):
                continue
            if chinese and predicate == "name" and re.fullmatch(r"[小老阿][\u4e00-\u9fff]", value):
                predicate = "nickname"  # 小陈, 老王: what people call them, not their name
            if note and predicate == row.predicate and not row.value:
                value = f"{value} ({' '.join(note.split()).lower() if not chinese else note})"
            claims.append(Claim(subject=subject, predicate=predicate, value=value, negative=row.negative))
    return claims


_ZH_CALLED_FORM = re.compile(r"([\u4e00-\u9fff])\1|[小老阿][\u4e00-\u9fff]")


def _passes(gate: str, value: str, clause: str, chinese: bool) -> bool:
    """The row's own check of a value: a habit told in the past, a task of the moment, a goal without a horizon."""
    if not gate:
        return True
    ephemeral = values.ephemeral_zh(clause) if chinese else values.ephemeral_en(clause)
    if gate == "ephemeral":
        return not ephemeral
    if gate == "habit":  # 周末带孩子去公园了: done once, not done every weekend
        told_once = values.told_in_past(value) if not chinese else bool(_ZH_DONE.search(clause)) and "习惯" not in clause
        return not ephemeral and not told_once
    if gate == "goal":
        if not chinese:
            return not ephemeral
        return not ephemeral and bool(_ZH_GOAL.search(clause))
    raise ValueError(f"no gate {gate!r}")


_ZH_DONE = re.compile(r"了[吧啊呀呢]?\s*$")
# A Chinese wish is a goal when it has a horizon (明年, 以后) or a life goal's verb (学, 考, 留学, 减肥 …).
_ZH_GOAL = re.compile(
    r"今年|明年|后年|以后|将来|未来|总有一天|有一天|这辈子|年底|年内|毕业后|退休后|[0-9一二三四五六七八九十]+岁(?:之)?前|早日|"
    r"学|考|留学|出国|移民|买(?:套|个|一套)?房|买车|减肥|瘦|跑.{0,3}(?:马拉松|半马|全马|公里)|马拉松|创业|开店|开公司|旅行|旅游|环游|"
    r"戒烟|戒酒|存钱|攒钱|成为|当上|当一名|结婚|生孩子|学会|拿到|考上|练|读研|读博|去.{1,8}(?:看看|玩|旅游|旅行|留学|定居|生活|工作)")


# --- paths (the seed's `path` facts) ----------------------------------------------------------------

_PATH_TOKEN = re.compile(r"(?<![\w:/.~\\-])(?:~|\.{1,2})?/[^\s，。；;,'\"`()（）<>\[\]{}|*?]+")
_PATH_SHAPE = re.compile(r"^(?:~|\.{1,2})?(?:/[\w.@+~-]+)+/?$")
_PATH_CUE = re.compile(
    r"我的|我们的|项目|仓库|代码|目录|路径|文件夹|工作区|放在|位于|保存在|"
    r"\b(?:my|our|project|repo|repository|code|directory|dir|folder|workspace|path|lives|located|stored|kept)\b", re.I)


def _paths(sentence: str) -> list[str]:
    """The real paths of the clauses that call them the user's ("我的项目在 /home/wang/proj")."""
    found: list[str] = []
    for clause in re.split(r"[，,]|\s+but\s+|\s+however\s+", sentence, flags=re.I):
        if _PATH_CUE.search(clause):
            found += [p for p in real_paths(clause) if p not in found]
    return found


def real_paths(text: str) -> list[str]:
    """Every real path mentioned in the text, trailing slash and punctuation removed."""
    found: list[str] = []
    for match in _PATH_TOKEN.finditer(text):
        path = match.group(0).rstrip(".:!?")
        path = path.rstrip("/") or path
        if is_real_path(path) and path not in found:
            found.append(path)
    return found


def is_real_path(value: str) -> bool:
    """Absolute, ~/ or ./ paths of a plausible shape: not ratios (75/75), routes of one letter or bare '/'."""
    value = value.strip()
    if len(value) > 300 or not _PATH_SHAPE.match(value) or "//" in value:
        return False
    segments = [s for s in value.split("/") if s not in ("", "~", ".", "..")]
    if not segments or all(s.isdigit() for s in segments) or any(set(s) == {"."} for s in segments):
        return False
    return len(segments) >= 2 or len(segments[0]) >= 3
