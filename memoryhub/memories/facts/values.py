"""Value kinds: what a pattern's captured value may look like, and where it ends.

A pattern writes `<kind>` where its value stands (patterns.py); each kind here has the regex that captures it
(per language) and the cleaner that cuts it to the thing itself: `peanuts` from "peanuts, so no satay",
`北京` from 北京已经五年了. A cleaner answers "" when the text is not what the kind promises (a pronoun, a
sentence, a time), and the pattern then gives nothing.
"""

from __future__ import annotations

import re

from memoryhub.memories.facts import vocab
from memoryhub.memories.text import segment

_CAP = "A-ZÀ-ÖØ-Þ"
# The rest of a clause: up to a comma, or to where a new one starts ("I hate running | but I love swimming")
_EN_CLAUSE_TEXT = r"(?:(?!\s+(?:but|however|whereas|and\s+(?:i|we|my|our)|so\s+(?:i|we))\b)[^,;:])+"
EN_KINDS = {
    # A capitalised name: "Olivia Brandt", "Luca".
    "name": rf"(?-i:[{_CAP}][\w'.-]*(?:\s+[{_CAP}][\w'.-]*){{0,2}})",
    # Names in a list: "Noah and Mia", "Max, Rex and Bella"; each may be a full name ("Lin Yue and Tom Hardy").
    "names": rf"(?-i:[{_CAP}][\w'-]*(?:\s+[{_CAP}][\w'-]*){{0,2}}"
             rf"(?:(?:\s*,\s*|\s+and\s+|\s*&\s*)(?!I\b)[{_CAP}][\w'-]*(?:\s+[{_CAP}][\w'-]*){{0,2}}){{0,5}})",
    # What someone is called, as said (lower case too: "call me bob"); stop words are refused by the cleaner.
    "nick": r"[\w'.-]+(?:\s+(?!(?:and|or|but|so|because|as|who|from)\b)[\w'.-]+){0,2}",
    # A place: "Wellington", "San Francisco", "the Bay Area", "Stratford-upon-Avon".
    "place": rf"(?-i:(?:the\s+)?[{_CAP}][\w'.-]*(?:\s+(?:of\s+|de\s+|del\s+|on\s+)?[{_CAP}][\w'.-]*){{0,3}})",
    # An organisation: a capitalised name ("Maersk", "Procter & Gamble"), or "a bank", "the children's hospital".
    "org": rf"(?:(?-i:[{_CAP}0-9][\w'.&-]*(?:\s+(?:&\s+|of\s+|and\s+|for\s+)?(?-i:[{_CAP}0-9])[\w'.&-]*){{0,4}})"
           r"|(?:a|an|the)\s+[\w'&-]+(?:\s+[\w'&-]+){0,5})",
    "thing": _EN_CLAUSE_TEXT,
    "brands": _EN_CLAUSE_TEXT,
    # A list ("cats, dust and pollen") stops where a new clause starts (", but I …", ", so …").
    "things": _EN_CLAUSE_TEXT + r"(?:,(?!\s*(?:but|so|because|which|though|although|while|whereas|and\s+(?:i|my|we)|i|my|we|no|not|"
                                  r"please|thanks|then|that|this|it|you)\b)"
              + _EN_CLAUSE_TEXT + r")*",
    "job": r"(?:[\w-]+\s+){0,3}?" + vocab.EN_JOBS + r"s?\b",
    "lang": vocab.LANGUAGES_EN,
    "num": r"\d{1,3}(?:\.\d)?|(?:twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety)(?:[-\s](?:one|two|three|four|five|six|seven|eight|nine))?",
    "date": (r"(?:(?:the\s+)?\d{1,2}(?:st|nd|rd|th)?\s+(?:of\s+)?" + r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*"
             r"|(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?\s+(?:the\s+)?\d{1,2}(?:st|nd|rd|th)?)"
             r"(?:,?\s+(?:19|20)\d\d)?|\d{1,2}[/.-]\d{1,2}(?:[/.-](?:19|20)?\d\d)?|(?:19|20)\d\d"
             r"|christmas(?:\s+day|\s+eve)?|new\s+year's\s+(?:day|eve)|valentine's\s+day|halloween|leap\s+day"),
    "word": r"[\w'-]+(?:\s+[\w'-]+){0,3}",
    "model": r"[A-Za-z][\w.:/-]{1,60}",
}
ZH_KINDS = {
    "name": r"[\u4e00-\u9fffA-Za-z·]{1,8}",
    "person": r"[\u4e00-\u9fff]{2,4}",
    "names": r"[\u4e00-\u9fffA-Za-z·、和跟与及]{1,20}",
    "nick": r"[\u4e00-\u9fffA-Za-z0-9·]{1,8}",
    "place": r"[\u4e00-\u9fff]{1,14}",
    "region": r"[\u4e00-\u9fff]{1,8}",
    "org": r"[\u4e00-\u9fffA-Za-z0-9&]{1,16}",
    "where": r"[\u4e00-\u9fffA-Za-z0-9&]{1,16}?",
    "thing": r"[^，,；;。！!？?\n]+",
    "things": r"[^，,；;。！!？?\n]+",
    "job": r"[\u4e00-\u9fffA-Za-z]{0,8}?(?:" + vocab.ZH_JOBS + ")+",  # 后端开发: 后端 and 开发
    "lang": vocab.ZH_LANGUAGES,
    "num": r"[0-9]{1,3}|[一二三四五六七八九十两]{1,4}",
    "month": r"(?:[0-9]{1,2}|[一二三四五六七八九十]{1,2}|十[一二])月份?",
    "date": r"(?:农历|阴历|公历|阳历)?(?:[0-9]{2,4}年)?(?:(?:[0-9]{1,2}|[一二三四五六七八九十]{1,3})月(?:[0-9]{1,2}|[一二三四五六七八九十]{1,4})"
            r"(?:号|日)?|(?:正|腊|冬)月(?:初[一二三四五六七八九十]|廿[一二三四五六七八九]|[二三]?十[一二三四五六七八九]?))",
    "word": r"[\u4e00-\u9fffA-Za-z0-9]{1,12}",
    "model": r"[A-Za-z][\w.:/-]{1,60}",
    "adj": r"[\u4e00-\u9fff]{1,4}",
}
LIST_KINDS = ("names", "things", "brands")

# --- English cleaning ----------------------------------------------------------------------

_EN_STOP = frozenset(
    """when if after before back later tomorrow tonight now soon anytime sometime asap at on in by to the a an again
    once whenever maybe up out crazy not it that this these those something anything what whatever how which where
    who you your yours him her them us me my his their our being one please whatever nothing everything""".split())
_EN_POINTING = frozenset("it its this that these those there here them they their he him his she her you your "
                         "yours we us our".split())
_NOT_NAMES = frozenset(
    """ok okay fine good great well sorry sure here there back home done ready happy sad tired busy new old free
    afraid glad alright right wrong hungry sick ill away out in on up down just so not still also always never
    the a an i me my you your he she it we they this that everyone everybody nobody someone somebody anyone
    anybody all both none monday tuesday wednesday thursday friday saturday sunday
    january february march april june july august september october november december""".split()) | vocab.DEMONYMS_EN
# Where a noun phrase ends: a preposition, a conjunction or a clause of time/reason after it.
_EN_CUT = re.compile(
    r"\s+(?:because|since|as|but|so|when|while|though|although|until|unless|whereas|which|who|that|where|"
    r"for|from|with|without|at|on|near|by|after|before|during|and then|every|each|since|ago|these|this|last|"
    r"next|right|now|currently|nowadays|anymore|any more|too|again|though|instead|lately|recently)\b.*$", re.I)
_EN_TRAIL = re.compile(
    r"(?:\s+(?:please|from now on|going forward|instead|thanks|thank you|ok|okay|then|now|too|anymore|again|"
    r"these days|nowadays|at the moment|right now|currently|for now|pretty well|really well|very well|quite well|"
    r"well|fluently|a lot|so much|very much|really|lol|haha|by the way|btw|actually|honestly|though|as well|"
    r"either|for sure|of course|in general|mostly|myself|personally|all the time|most of the time|here))+$", re.I)
_EN_WORD = re.compile(r"[\w'.+#&-]+")
_EN_ARTICLE = re.compile(r"^(?:a|an|the|some|my|our|any)\s+", re.I)
_EN_EPHEMERAL = re.compile(
    r"\b(?:today|tonight|tomorrow|yesterday|right now|this (?:morning|afternoon|evening|week)|later today|"
    r"in a (?:minute|moment|bit|sec)|the (?:logs?|tests?|code|report|file|build|script|schema|database|query|pr|"
    r"ticket|bug|issue|repo|branch|deploy(?:ment)?))\b", re.I)
_EN_PAST = frozenset(
    """was were had did went got made said felt thought knew saw came took gave found told became left began kept ran
    wrote brought bought spent met sat stood lost won heard paid used""".split())
# A word that comments on the sentence, not a thing in it: "allergic to dogs, unfortunately"
_EN_COMMENT = re.compile(r"(?:unfortunately|fortunately|sadly|luckily|apparently|obviously|honestly|seriously|"
                         r"literally|basically|hopefully|thankfully|surprisingly|naturally|lol|haha|though|"
                         r"\w+(?:ally|ately|ously|fully|ably|ibly))", re.I)
SPLIT_LIST_EN = re.compile(r"\s*,\s*(?:and\s+|or\s+)?|\s+and\s+|\s+or\s+|\s*&\s*|\s+as well as\s+", re.I)


_MODEL_FAMILIES = ("gpt", "claude", "deepseek", "llama", "qwen", "gemini", "mistral", "glm", "kimi", "o1", "o3")


def clean_model(value: str) -> str:
    """A model id looks like one: a digit or a dash in it, or a known family's name."""
    value = value.strip().rstrip(".:/-")
    return value if re.search(r"\d|-", value) or value.lower().startswith(_MODEL_FAMILIES) else ""


def clean_en(kind: str, raw: str) -> str:
    value = " ".join(raw.split()).strip(" \"'.!?`*_~")
    if not value:
        return ""
    if kind == "model":
        return clean_model(value)
    if kind in ("lang", "num", "date", "word", "job"):
        return value
    if kind in ("name", "names", "place"):
        words = value.split()
        while words and words[-1].lower() in _NOT_NAMES:
            words.pop()
        value = " ".join(words)
        if not words or words[0].lower() in _NOT_NAMES or words[0].lower() in _EN_STOP or value.endswith("'s"):
            return ""  # "my sister is Maria's mother": a possessive names someone else
        return value
    if kind == "nick":
        value = _EN_TRAIL.sub("", value).strip(" \"'.")
        words = value.split()
        if not words or len(words) > 3 or any(w.lower() in _EN_STOP for w in words):
            return ""
        return value
    if kind == "org":
        called = re.search(r"\b(?:called|named)\s+((?-i:[A-Z])[\w'.&-]*(?:\s+(?-i:[A-Z])[\w'.&-]*)*)", value)
        if called:
            return called.group(1)  # "a fintech startup called Plaid"
        if value[:1].isupper() or value[:1].isdigit():
            return _EN_TRAIL.sub("", _EN_CUT.sub("", value)).strip(" .")
        value = _EN_ARTICLE.sub("", _EN_CUT.sub("", value))
        return _EN_TRAIL.sub("", value).strip(" .") if len(value.split()) <= 4 else ""
    if kind == "brands":
        value = re.sub(r"^(?:a|an|the|my|two|three)\s+|^(?:new|old|used|little)\s+", "", value, flags=re.I)
        value = re.sub(r"^(?:new|old|used|little)\s+", "", value, flags=re.I)
        value = _EN_TRAIL.sub("", _EN_CUT.sub("", value)).strip(" .")
        return value if re.match(r"(?-i:[A-Z]|i[A-Z]|e[A-Z])", value) and len(value.split()) <= 4 else ""
    # thing / things: the rest of the clause, cut to its noun phrase or verb phrase
    value = _EN_TRAIL.sub("", value).strip(" \"'.!")
    value = re.sub(r"\s+(?:because|since|but|so that|so|when|while|though|although|unless|which|until)\b.*$", "",
                   value, flags=re.I)
    # "learning Spanish from our neighbour": who it comes from is not the thing itself
    value = re.sub(r"\s+from\s+(?:my|our|a|an|the|his|her|their|some)\s+\w+(?:\s+\w+)?$", "", value, flags=re.I)
    value = _EN_TRAIL.sub("", value).strip(" \"'.!")
    # "Spanish on Duolingo for 200 days straight": how long, and where, are not the thing
    value = re.sub(r"\s+(?:on\s+(?-i:[A-Z])\w*\s+)?for\s+(?:\d+|a|an|many|several|a\s+few|\w+)\s+(?:days?|weeks?|months?|years?)"
                   r"(?:\s+(?:straight|now|already))?$", "", value, flags=re.I)
    if value.lower().startswith("to "):
        value = value[3:]
    value = _EN_ARTICLE.sub("", value)
    words = value.split()
    if len(words) == 1 and _EN_COMMENT.fullmatch(value):
        return ""
    if (not words or len(words) > 8 or not all(_EN_WORD.fullmatch(w) for w in words)
            or words[0].lower() in _EN_STOP or _points_elsewhere(value)):
        return ""
    return value


_EN_TIME = re.compile(r"\b(?:this|that|next|last)\s+(?:year|month|week|weekend|summer|spring|autumn|fall|winter|"
                      r"time|semester|term|season)\b", re.I)


def _points_elsewhere(value: str) -> bool:
    """"holding them", "your idea": about something said before ("this year" is a time, not a pointer)."""
    return any(w.lower().strip("'.") in _EN_POINTING for w in _EN_TIME.sub(" ", value).split())


def ephemeral_en(value: str) -> bool:
    """"write the report today", "check the logs": a task of the moment, not a skill, habit or goal."""
    return bool(_EN_EPHEMERAL.search(value))


def told_in_past(value: str) -> bool:
    """"(I always) dreamed of …", "(I usually) went …": a story, not a habit."""
    first = value.split()[0].lower() if value.split() else ""
    return first in _EN_PAST or (first.endswith("ed") and not first.endswith("eed") and len(first) > 4)


# --- Chinese cleaning ----------------------------------------------------------------------

_ZH_TRAIL = re.compile(r"(?:就行了?|就好了?|就可以了?|好了|即可|吧|啊|呀|哦|啦|了|的|嘛|呢|哈|哈哈|呗|喔|噢|诶|而已|罢了|"
                       r"一下|这边|那边|这里|那里|一带|附近|地区|已经|现在|目前|平时|一直)+$")
_ZH_POINTING_WORDS = re.compile(r"^(?:[你他她它您][们]?|[这那](?:里|个|些|样|儿|本|件|位|种|边)?|人家|别人)$")
_ZH_DEGREE = re.compile(r"^(?:很|非常|比较|挺|特别|太|最|更|有点|还|都|也|就|真|超|蛮|十分|相当)")
_ZH_LEAD = re.compile(r"^(?:一|两|三|几)?(?:个|家|所|间|座|只|条|位|名|辆|台|套|部|架|块|把|栋)")
# Tags that end a name or a place: prepositions, verbs, adverbs, particles, conjunctions, pronouns, numbers, time.
_ZH_STOP_TAGS = ("p", "v", "d", "c", "u", "y", "x", "r", "m", "t", "e", "o", "zg", "ul", "uj", "uz", "ug", "uv", "ud")
_ORG_SUFFIX = re.compile(r"(?:公司|集团|银行|大学|学院|学校|医院|研究院|研究所|科技|厂|局|院|所|店|部|中心|工作室|事务所|"
                         r"协会|基金会|报社|电视台|出版社|律所|实验室|政府|有限|股份)$")
_PLACE_SUFFIX = re.compile(r"(?:省|市|区|县|镇|乡|村|州|岛|湾|街道|街|路|新区|开发区|自治区)$")
SPLIT_LIST_ZH = re.compile(r"[、和跟与及]|以及|还有")
_ZH_EPHEMERAL = re.compile(r"今天|明天|今晚|明晚|待会|等会|一会儿|马上|刚才|这周|这个周末|这次|一下")


def clean_zh(kind: str, raw: str) -> str:
    value = " ".join(raw.split()).strip("\"'“”‘’「」『』《》`*_~。.!！")
    if kind in ("lang", "num", "date", "word", "month"):
        return value
    if kind == "model":
        return clean_model(value)
    value = _ZH_TRAIL.sub("", value)
    if not value:
        return ""
    if kind in ("name", "names", "nick"):
        return _zh_name(value)
    if kind == "adj":
        return value if re.fullmatch(vocab.ZH_TRAITS, value) or all(
            t in ("a", "ad", "an", "i", "l", "z") for _, t in segment.tagged(value)) else ""
    if kind == "person":
        return value if is_person_name(value) else ""
    if kind == "region":
        value = _zh_noun_run(value, limit=8)
        return value if _PLACE_SUFFIX.search(value) or any(t == "ns" for _, t in segment.tagged(value)) else ""
    if kind in ("place", "org", "where"):
        value = _ZH_LEAD.sub("", value)
        if kind != "place" and 2 <= len(value) <= 8 and _ORG_SUFFIX.search(value) and not _zh_pointing(value):
            return value  # 律所, 设计院: an institution by its ending, whatever tag the dictionary gives it
        return _zh_noun_run(value, limit=12, verbs=kind != "place")
    if kind == "job":
        return value if len(value) <= 12 else ""
    # thing / things
    if _zh_pointing(value) or len(value) > 24:
        return ""
    return value


def _zh_pointing(value: str) -> bool:
    """Whether the text points at something said elsewhere (你推荐的那本书, 他的): by words, so 吉他 is no 他."""
    return any(_ZH_POINTING_WORDS.match(word) for word, _ in segment.tagged(value))


def is_person_name(value: str) -> bool:
    """A Chinese personal name: the dictionary says so, or a common surname and one or two more characters that
    are no ordinary word (王磊 yes, 护士 no; 双子座 is a star sign)."""
    if value.endswith("座"):
        return False
    tags = segment.tagged(value)
    if len(tags) == 1 and tags[0][1] in ("nr", "nrfg", "nrt") and value not in segment.NOT_NAMES:
        return True
    return (segment.looks_like_person(value) and not re.fullmatch(vocab.ZH_JOBS, value)
            and not any(t.startswith(("v", "a", "d", "p", "r", "m", "q", "t")) for _, t in tags if len(tags) > 1))


def _zh_name(value: str) -> str:
    """The name at the front of the text: 朵朵 of 朵朵今年五岁, at most four characters unless it is one word."""
    if re.fullmatch(r"[A-Za-z][A-Za-z.'-]*(?: [A-Za-z][A-Za-z.'-]*){0,2}", value):
        return value  # an English name in Chinese text (我的英文名叫Kevin)
    if value in segment.NOT_NAMES or value[0] in "我你您他她它":
        return ""  # 我老公叫我早点回家: 叫 tells someone what to do, it names no one
    if len(value) <= 4 and not _zh_pointing(value):
        return value if value[0] not in "去来做把给帮起回到吃看的了个一你他她它我们这那就也都在是要会能想让过着说问不没" else ""
    taken = ""
    for word, tag in segment.tagged(value):
        if taken and (tag.startswith(_ZH_STOP_TAGS) or len(taken) + len(word) > 4):
            break
        taken += word
    return taken if 1 <= len(taken) <= 4 and not _zh_pointing(taken) else ""


def _zh_noun_run(value: str, limit: int, verbs: bool = False) -> str:
    """The nouns at the front of the text: 深圳南山区 of 深圳南山区, 上海 of 上海已经三年了; an organisation's name may
    hold a verb-like word (字节跳动)."""
    taken = ""
    for word, tag in segment.tagged(value):
        if taken and tag.startswith(_ZH_STOP_TAGS) and not (verbs and tag in ("v", "vn") and len(word) >= 2):
            break
        if not taken and (tag.startswith(("p", "u", "y", "x", "r", "c")) or _ZH_DEGREE.match(word)):
            return ""
        taken += word
    return taken if 1 <= len(taken) <= limit and not _zh_pointing(taken) else ""


def place_or_employer(value: str, verb: str) -> str:
    """Whether 我在X工作 names where the user lives (a place) or who employs them (an organisation)."""
    if verb in ("生活", "定居", "住", "居住", "长大") or _PLACE_SUFFIX.search(value):
        return "location"
    if _ORG_SUFFIX.search(value):
        return "employer"
    tags = [t for _, t in segment.tagged(value)]
    return "location" if tags and all(t == "ns" for t in tags) else "employer"


def ephemeral_zh(value: str) -> bool:
    return bool(_ZH_EPHEMERAL.search(value))
