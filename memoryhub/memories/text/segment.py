"""Chinese word segmentation with part-of-speech tags, for anything that needs words rather than bigrams.

The index keeps Chinese as character bigrams (tokens.py: recall needs no dictionary), but people read words
(topic keywords), facts need where a value ends (我住在北京已经五年了 → 北京), and entities need to know a person
(nr) from a place (ns) or an organisation (nt). rjieba binds jieba-rs: jieba's dictionary and tag set (ICTCLAS
style: n noun, nr person, ns place, nt organisation, nz other proper noun, v verb, vn verbal noun, …) in Rust,
about 0.4 s to load and 40 MB resident, tens of microseconds a sentence. It is loaded on first use, never
at start-up, so a hub that only ever sees English never pays for it.
"""

from __future__ import annotations

import re
import threading
from functools import lru_cache

_HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_LOCK = threading.Lock()
_SEGMENTER = None

# Tags of words that carry content: nouns of every kind, verbal nouns, English words inside Chinese, abbreviations.
CONTENT_TAGS = ("n", "nr", "nrfg", "nrt", "ns", "nt", "nz", "ng", "vn", "eng", "j", "l")
PROPER_TAGS = {"nr": "person", "nrfg": "person", "nrt": "person", "ns": "place", "nt": "organisation", "nz": "name"}
# Nouns that say nothing about a subject on their own.
GENERIC_NOUNS = frozenset(
    """东西 事情 事儿 问题 时候 情况 方面 地方 部分 内容 东东 样子 意思 办法 原因 结果 过程 方式 感觉 话 人 事 时间
    一下 这个 那个 哪个 什么 怎么 大家 自己 别人 用户 助手""".split()
)


def _segmenter():
    global _SEGMENTER
    if _SEGMENTER is None:
        with _LOCK:
            if _SEGMENTER is None:
                import rjieba  # the dictionary loads here, once per process

                _SEGMENTER = rjieba
    return _SEGMENTER


def has_chinese(text: str) -> bool:
    return bool(_HAN.search(text or ""))


@lru_cache(maxsize=4096)
def _tag_cached(text: str) -> tuple[tuple[str, str], ...]:
    return tuple(_segmenter().tag(text))


def tagged(text: str) -> list[tuple[str, str]]:
    """(word, tag) for the whole text; text without Chinese is split on spaces without loading the dictionary
    (English words tagged `eng`, the rest `x`)."""
    if not text:
        return []
    if not has_chinese(text):
        return [(w, "eng" if w[:1].isalnum() else "x") for w in re.findall(r"\w[\w.+#'-]*|[^\w\s]", text)]
    return list(_tag_cached(text) if len(text) <= 2000 else _segmenter().tag(text))


def cut(text: str) -> list[str]:
    """The words of the text, spaces dropped."""
    return [w for w, _ in tagged(text) if w.strip()]


def content_words(text: str) -> list[str]:
    """The Chinese words that carry content (nouns, verbal nouns, names, English terms), in order, lower-cased;
    pronouns, particles, measure words, numbers, generic nouns and single characters are left out."""
    found: list[str] = []
    for word, tag in tagged(text):
        word = word.strip().lower()
        if (len(word) < 2 or not tag.startswith(CONTENT_TAGS) or word in GENERIC_NOUNS
                or not has_chinese(word)):
            continue
        found.append(word)
    return found


def proper_names(text: str) -> list[tuple[str, str]]:
    """(word, kind) of the Chinese proper names the dictionary tags: person, place, organisation, name."""
    return [(w, PROPER_TAGS[t]) for w, t in tagged(text) if t in PROPER_TAGS and has_chinese(w) and len(w) >= 2]


def warm() -> None:
    """Load the dictionary now (a worker may call this at start so the first Chinese turn does not wait)."""
    _segmenter().cut("预热")
