"""A rule guess at an event's category (the seed's categories), from its words and from what the user said
about themselves.

Cues for a decision or a pitfall win (they are what a memory is kept for), except that a warning beside a fact
about the user ("I'm allergic to cashews, so watch out") is about them, not a pitfall; then a turn whose user
side stated only preferences (what they like, how to be addressed or answered) is a preference and one that
stated any other fact about them (their name, where they live, an allergy) a fact; then progress, structure,
experience and companionship by cue; `context` when nothing stands out.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

_FIRST: list[tuple[str, re.Pattern[str]]] = [
    ("decision", re.compile(
        r"(?i)\b(decided|decision|we(?:'ll| will) (?:go with|use|switch to|stick with)|let'?s (?:go with|use|do)|"
        r"chose|choose to|going with|settled on|agreed (?:with [\w -]{1,30}? )?(?:on|to|that)|"
        r"the plan (?:for [\w -]{1,40}?)?(?:is|(?=:))|from now on we|we'?re switching to|"
        r"we(?:'ll| will) use|ok(?:ay)?,? we(?:'ll| will))\b"
        r"|决定|决策|就用|选定|敲定|(?<!搞)定了|就这么定|确定用|改用|统一用|最终选")),
    ("pitfall", re.compile(
        r"(?i)\b(bug|error|exception|traceback|fail(?:s|ed|ing|ure)?|broke|broken|breaks|crash(?:es|ed)?|pitfall|"
        r"gotcha|doesn'?t work|does not work|not working|regression|deadlock|leak|segfault|careful|watch out|"
        r"throws?|timeout|timed out)\b"
        r"|踩坑|报错|失败|崩溃|坑|出错|异常|故障|不生效|没生效|不能用|卡住|超时|千万别|内存泄漏")),
]
_LATER: list[tuple[str, re.Pattern[str]]] = [
    ("preference", re.compile(
        r"(?i)\bi (?:really |much |would )?(?:do not |don'?t |never )?(?:like|love|prefer|hate|dislike|enjoy|"
        r"can'?t stand)\b|\bplease (?:always|never|don'?t|do not|stop)\b|\bfrom now on\b"
        r"|以后(?:请|都|别|不要)|请(?:不要|别|一直|总是)|我(?:不|最|很)?喜欢|我讨厌|我偏好|我受不了")),
    ("progress", re.compile(
        r"(?i)\b(done|finished|completed|implemented|shipped|released|merged|deployed|works now|is working|"
        r"and working|pass(?:es)? now|all the tests pass|landed|up and running|milestone|launched)\b"
        r"|完成|搞定|实现了|(?<![要将会备划算])上线|做完|修好|跑通|部署好|合并了|通过了|弄好了|做好了")),
    ("structure", re.compile(
        r"(?i)\b(refactor(?:ed|ing)?|architecture|directory layout|directories|folder structure|schema|"
        r"module structure|split into|layers?)\b|重构|架构|目录结构|结构|分层|模块划分")),
    ("experience", re.compile(
        r"(?i)\b(lessons?|learned|learnt|tip|rule of thumb|next time|in my experience|turns out|til)\b"
        r"|经验|教训|下次|原来是")),
    ("companion", re.compile(
        r"(?i)\b(feel(?:ing)?|lonely|sad|happy|tired|miss you|stressed|anxious|upset|worried|bored|exhausted|"
        r"depressed)\b|心情|难过|开心|累了|好累|陪我|焦虑|压力|郁闷|无聊|想你")),
]
_WARNING = re.compile(r"(?i)\b(?:careful|watch out|beware|mind)\b|小心|注意|千万别|千万不要|记得别")
# What the user says about how to treat them is a preference; anything else they state about themselves, a fact.
PREFERENCE_PREDICATES = frozenset({"preference", "dislike", "like", "language", "nickname", "calledBy", "persona",
                                   "model"})


def classify(text: str, stated: Iterable[str] = ()) -> str:
    """The category of a memory: `stated` are the predicates of the facts its user side gave about the user."""
    stated = set(stated)
    for category, pattern in _FIRST:
        if pattern.search(_WARNING.sub(" ", text) if stated else text):
            return category
    if stated:
        return "preference" if stated <= PREFERENCE_PREDICATES else "fact"
    for category, pattern in _LATER:
        if pattern.search(text):
            return category
    return "context"
