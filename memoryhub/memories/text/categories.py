"""A rule guess at an event's category (the seed's categories) from its words."""

from __future__ import annotations

import re

_CATEGORY_CUES: list[tuple[str, re.Pattern[str]]] = [
    ("decision", re.compile(r"(?i)\b(decided|decision|we(?:'ll| will) (?:go with|use)|let'?s go with|chose|choose to)\b|决定|决策|就用|选定|敲定")),
    ("pitfall", re.compile(r"(?i)\b(bug|error|exception|traceback|failed|failing|broke|crash(?:ed)?|pitfall|gotcha|doesn'?t work)\b|踩坑|报错|失败|崩溃|坑")),
    ("structure", re.compile(r"(?i)\b(refactor(?:ed)?|architecture|directory layout|schema|module structure)\b|重构|架构|目录结构|结构")),
    ("progress", re.compile(r"(?i)\b(done|finished|completed|implemented|shipped|released|merged)\b|完成|搞定|实现了|上线")),
    ("experience", re.compile(r"(?i)\b(lesson|learned|tip|rule of thumb|next time)\b|经验|教训|下次")),
    ("companion", re.compile(r"(?i)\b(feel(?:ing)?|lonely|sad|happy|tired|miss you)\b|心情|难过|开心|累了|陪我")),
]


def classify(text: str) -> str:
    """A rule guess at an event's category; `context` when nothing stands out."""
    for category, pattern in _CATEGORY_CUES:
        if pattern.search(text):
            return category
    return "context"
