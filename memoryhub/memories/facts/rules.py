"""Rule-based fact extraction: explicit Chinese/English sentence patterns only, so ordinary talk yields nothing.

Claims are about whoever speaks: the user, unless a line is labelled with another speaker's name
("Caroline: I love painting" is Caroline's, not the user's). Values that point elsewhere ("visiting
there", "holding them") or habits told in the past ("always dreamed of …") are not facts.
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Claim:
    """One statement about the user, before it meets the slot pipeline."""

    subject: str = "user"
    predicate: str = ""
    value: str = ""
    negative: bool = False


# A rule only fires when nothing but these fillers precede it in its clause: "他叫我去开会" stays silent.
_FILLER = re.compile(
    r"^(?:(?:那么?|好的?|嗯|哦|对了|另外|还有|然后|记住|请记住|注意|ok(?:ay)?|so|also|and|oh|btw|hey|well|just)"
    r"[\s,，~～]*)*$",
    re.I,
)
_QUESTION = re.compile(r"[?？]\s*$|(?:吗|呢)\s*$|哪|什么|怎么|为什么|为何|多少|谁")
_SENTENCE = re.compile(r"[^。！？!?；;\n]+[。！？!?；;\n]*")
_EN_PERIOD = re.compile(r"(?<=[A-Za-z0-9)\"'])\.(?:\s+|$)")
_CLAUSE = re.compile(r"[，,]|\s+but\s+|\s+however\s+", re.I)

_ADV_LATER = r"(?:以后|今后|之后|从现在起|从今天起|往后)?"
_ZH_ADV = r"(?:很|最|也|更|还|一直|比较|特别|非常|真的|都)*"
_LANGS = {
    "中文": "Chinese", "汉语": "Chinese", "简体中文": "Chinese", "繁体中文": "Traditional Chinese",
    "英文": "English", "英语": "English", "日语": "Japanese", "日文": "Japanese", "韩语": "Korean",
    "法语": "French", "德语": "German", "西班牙语": "Spanish", "俄语": "Russian",
}
_EN_LANGS = "chinese|english|japanese|korean|french|german|spanish|russian|portuguese|italian"
_ROLE_ZH = (r"工程师|程序员|开发者|开发|设计师|学生|研究生|博士生?|老师|教师|教授|产品经理|项目经理|经理|"
            r"运维|架构师|分析师|科学家|研究员|作家|编辑|医生|律师|创业者|站长|主播|画师|译者|翻译|测试|运营|记者|会计")
_ROLE_EN = (r"developer|engineer|designer|student|teacher|professor|researcher|scientist|manager|architect|"
            r"analyst|writer|doctor|lawyer|founder|programmer|sysadmin|consultant|freelancer|maintainer|tester")
_MODEL_FAMILIES = ("gpt", "claude", "deepseek", "llama", "qwen", "gemini", "mistral", "glm", "kimi", "o1", "o3")
_MODEL_ID = r"(?P<v>[A-Za-z][\w.:/-]{1,60})"

# (predicate, negative, kind of value, pattern); negative rules come before their positive twins.
_RULES: list[tuple[str, bool, str, re.Pattern]] = [
    ("nickname", True, "name", re.compile(
        _ADV_LATER + r"你?(?:就)?(?:别|不要|不用|甭|不许|不准|请勿|请不要|请别)再?"
        r"(?:叫|喊|称呼)我(?:为|做|作)?(?P<v>.+)")),
    ("nickname", False, "name", re.compile(
        _ADV_LATER + r"你?(?:就|可以|请|都)*(?:叫|喊|称呼)我(?:为|做|作)?(?P<v>.+)")),
    ("calledBy", False, "name", re.compile(_ADV_LATER + r"我(?:就|会)?(?:叫|喊|称呼)你(?:为|做)?(?P<v>.+)")),
    ("name", False, "name", re.compile(r"我(?:的名字(?:是|叫)|名字(?:是|叫)|名叫|叫)(?P<v>.+)")),
    ("nickname", True, "name", re.compile(
        r"\b(?:please\s+)?(?:don'?t|do not|never|stop|no longer)\s+(?:call(?:ing)?|address(?:ing)?)\s+me\s+(?:as\s+)?"
        r"(?P<v>.+)", re.I)),
    ("nickname", False, "name", re.compile(
        r"\b(?:you\s+(?:can|may|should)\s+|please\s+|now\s+)*(?:call|address)\s+me\s+(?:as\s+)?(?P<v>.+)", re.I)),
    ("calledBy", False, "name", re.compile(r"\bi(?:'ll| will)\s+call\s+you\s+(?P<v>.+)", re.I)),
    ("name", False, "name", re.compile(r"\b(?:my name(?:'s| is)|i(?:'m| am) called)\s+(?P<v>.+)", re.I)),
    ("role", False, "text", re.compile(
        r"我(?:是一名|是一个|是一位|是个|是|的职业是|的工作是)(?P<v>.{0,12}?(?:" + _ROLE_ZH + r"))$")),
    ("role", False, "text", re.compile(
        r"\bi(?:'m| am| work as)\s+(?:a|an)\s+(?P<v>(?:[\w+#.-]+\s+){0,3}?(?:" + _ROLE_EN + r"))$", re.I)),
    ("language", False, "lang", re.compile(
        r"(?:请|以后|都|统一|一律)*(?:用|使用|说)(?P<v>" + "|".join(sorted(_LANGS, key=len, reverse=True))
        + r")(?:来)?(?:回答|回复|交流|沟通|答复|和我|跟我|对我)")),
    ("language", False, "lang", re.compile(
        r"\b(?:please\s+)?(?:always\s+)?(?:reply|respond|answer|talk|speak|write)(?:\s+to\s+me)?\s+in\s+(?P<v>"
        + _EN_LANGS + r")\b", re.I)),
    ("model", False, "model", re.compile(
        r"我?(?:现在|目前)?(?:用的|使用的|在用的)?模型"
        r"(?:是|换成了?|改成了?|切换到了?|切到了?|改用了?)\s*" + _MODEL_ID)),
    ("model", False, "model", re.compile(
        r"\b(?:my\s+model\s+is\s+|i(?:'m| am)\s+(?:now\s+)?using\s+(?:the\s+)?model\s+|"
        r"switch(?:ed)?\s+the\s+model\s+to\s+)" + _MODEL_ID, re.I)),
    ("preference", True, "text", re.compile(r"我?" + _ZH_ADV + r"(?:不喜欢|不爱|讨厌|反感|受不了)(?P<v>.+)")),
    ("preference", False, "text", re.compile(r"我?" + _ZH_ADV + r"(?:喜欢|偏好|偏爱|爱用|喜爱)(?P<v>.+)")),
    ("preference", True, "words", re.compile(
        r"\bi\s+(?:really\s+)?(?:(?:don'?t|do\s+not)\s+(?:really\s+)?(?:like|enjoy)|dislike|hate|can'?t\s+stand)\s+"
        r"(?P<v>.+)", re.I)),
    ("preference", False, "words", re.compile(
        r"\bi\s+(?:really\s+|also\s+|much\s+|generally\s+|strongly\s+)*(?:prefer|like|love|enjoy)\s+(?P<v>.+)", re.I)),
    ("skill", False, "text", re.compile(r"我" + _ZH_ADV + r"(?:擅长|精通|熟悉|熟练掌握)(?P<v>.+)")),
    ("skill", False, "words", re.compile(
        r"\bi(?:'m| am)\s+(?:really\s+|very\s+|pretty\s+)?"
        r"(?:good\s+at|skilled\s+(?:at|in|with)|proficient\s+(?:in|with)|experienced\s+(?:in|with)|"
        r"an\s+expert\s+(?:in|on|at)|fluent\s+in|familiar\s+with)\s+(?P<v>.+)", re.I)),
    ("habit", False, "text", re.compile(r"我(?:平时|通常|每天|一般都|习惯于?|习惯性地?)(?P<v>.+)")),
    ("habit", False, "words", re.compile(
        r"\bi\s+(?:usually|always|normally|typically|habitually|tend\s+to)\s+(?P<v>.+)", re.I)),
]

# A speaker label: one to three capitalised words, or a short Chinese name, then a colon.
_SPEAKER = re.compile(r"^\s*(?P<name>[A-Z][\w'.-]{0,30}(?: [A-Z][\w'.-]{0,30}){0,2}|[\u4e00-\u9fff]{2,4})(?::\s+|：\s*)")
_USER_LABELS = frozenset({"user", "human", "me", "用户", "我"})
# Labels that head a note rather than name a speaker ("Note: I prefer tabs" is still the user's).
_NOT_SPEAKERS = frozenset(
    """note notes update summary question answer q a ps fyi edit important reminder tip warning todo re subject title
    context example remember info 注意 备注 提醒 总结 问题 回答 重要 补充 更新 结论 总之 例如 比如 背景 需求 目标 计划""".split()
)
# A value pointing at something said elsewhere is not a fact about the user ("holding them", "visiting there").
_EN_POINTING = frozenset("it its this that these those there here them they their he him his she her you your yours "
                         "we us our".split())
_ZH_POINTING = re.compile(r"[你他她它]|[这那][里个些样儿]")
_EN_PAST = frozenset(
    """was were had did went got made said felt thought knew saw came took gave found told became left began kept ran
    wrote brought bought spent met sat stood lost won heard paid used""".split()
)
_ZH_TRAIL = re.compile(r"(?:就行了?|就好了?|就可以了?|好了|即可|吧|啊|呀|哦|啦|了|的|嘛)+$")
_EN_TRAIL = re.compile(
    r"(?:\s+(?:please|from now on|instead|going forward|thanks|thank you|ok|okay|then|now|too|anymore|again))+$", re.I)
_QUOTES = "\"'“”‘’「」『』《》`*_ ~～.。!！"
_BAD_ZH_LEAD = set("去来做把给帮起回到吃看的了个一你他她它我们这那就也都在是要会能想让过着说问不没")
_EN_STOP = frozenset(
    """when if after before back later tomorrow tonight now soon anytime sometime asap at on in by to the a an again
    once whenever maybe up out crazy not it that this these those something anything what whatever how which where
    who you your him her them us me my his their our being one please whatever""".split()
)
_EN_WORD = re.compile(r"[A-Za-z][\w'.+#-]*")
_CJK = re.compile(r"[\u3400-\u9fff]")
_PATH_TOKEN = re.compile(r"(?<![\w:/.~\\-])(?:~|\.{1,2})?/[^\s，。；;,'\"`()（）<>\[\]{}|*?]+")
_PATH_SHAPE = re.compile(r"^(?:~|\.{1,2})?(?:/[\w.@+~-]+)+/?$")
_PATH_CUE = re.compile(
    r"我的|我们的|项目|仓库|代码|目录|路径|文件夹|工作区|放在|位于|保存在|"
    r"\b(?:my|our|project|repo|repository|code|directory|dir|folder|workspace|path|lives|located|stored|kept)\b", re.I)


def extract(text: str) -> list[Claim]:
    """Claims from explicit patterns, each about its speaker (the user unless a line names another);
    questions yield nothing."""
    claims: list[Claim] = []
    for subject, said in _by_speaker(text or ""):
        for sentence in _sentences(said):
            if _QUESTION.search(sentence):
                continue
            for clause in _CLAUSE.split(sentence.rstrip("。！!；;\n ")):
                for claim in _clause_claims(clause.strip()):
                    claim = Claim(subject, claim.predicate, claim.value, claim.negative)
                    if claim not in claims:
                        claims.append(claim)
    return claims


def _by_speaker(text: str) -> list[tuple[str, str]]:
    """(subject, what they said) per line: a leading "Name:" names the speaker until the next one does
    (a heading such as "Note:" is only taken off)."""
    parts: list[tuple[str, str]] = []
    subject = "user"
    for line in text.splitlines():
        match = _SPEAKER.match(line)
        if match:
            name = match.group("name")
            if name.casefold() not in _NOT_SPEAKERS:
                subject = "user" if name.casefold() in _USER_LABELS else name[:100]
            line = line[match.end():]
        if parts and parts[-1][0] == subject:
            parts[-1] = (subject, parts[-1][1] + "\n" + line)
        else:
            parts.append((subject, line))
    return parts


def _sentences(text: str) -> list[str]:
    parts: list[str] = []
    for match in _SENTENCE.finditer(text):
        pieces = _EN_PERIOD.split(match.group(0))
        parts.extend(p for p in pieces if p.strip())
    return parts


def _clause_claims(clause: str) -> list[Claim]:
    found: list[Claim] = []
    taken: set[str] = set()
    for predicate, negative, kind, pattern in _RULES:
        if predicate in taken:
            continue
        for match in pattern.finditer(clause):
            if not _FILLER.match(clause[: match.start()].strip()):
                continue
            value = _clean(match.group("v"), kind)
            if value and predicate == "habit" and _told_in_past(value):
                value = ""
            if value:
                found.append(Claim(predicate=predicate, value=value, negative=negative))
                taken.add(predicate)
                break
    found.extend(Claim(predicate="path", value=p) for p in _paths(clause))
    return found


def _clean(raw: str, kind: str) -> str:
    """Normalise a captured value, or '' when it does not look like what the rule promises."""
    value = " ".join(raw.split()).strip(_QUOTES)
    if kind == "lang":
        return _LANGS.get(value, value.capitalize())
    if kind == "model":
        value = value.rstrip(".:/-")
        return value if re.search(r"\d|-", value) or value.lower().startswith(_MODEL_FAMILIES) else ""
    if _CJK.search(value):
        value = _ZH_TRAIL.sub("", value).strip(_QUOTES)
        if (not value or value[0] in _BAD_ZH_LEAD or _PATH_TOKEN.search(value)
                or (kind != "name" and _ZH_POINTING.search(value))):
            return ""
        limit = 8 if kind == "name" else 30
        return value if len(value) <= limit and (kind != "name" or " " not in value) else ""
    value = _EN_TRAIL.sub("", value).strip(_QUOTES)
    if kind == "words" and value.lower().startswith("to "):
        value = value[3:]
    words = value.split()
    if not words or not all(_EN_WORD.fullmatch(w) for w in words) or words[0].lower() in _EN_STOP:
        return ""
    if kind == "words" and any(w.lower().strip("'.") in _EN_POINTING for w in words):
        return ""
    if kind == "name":
        return value if len(words) <= 3 and not any(w.lower() in _EN_STOP for w in words) else ""
    return value if len(words) <= 8 else ""


def _told_in_past(value: str) -> bool:
    """"I always dreamed of …", "I usually went …": a story, not a habit."""
    first = value.split()[0].lower() if value.split() else ""
    return first in _EN_PAST or (first.endswith("ed") and not first.endswith("eed") and len(first) > 4)


def _paths(clause: str) -> list[str]:
    return real_paths(clause) if _PATH_CUE.search(clause) else []


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
