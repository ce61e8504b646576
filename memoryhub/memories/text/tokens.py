"""The tokenizer every index and score uses, and set similarities over its tokens.

Follows Mnemon's tokenizer: lower-cased words, Chinese as overlapping character bigrams,
English stopwords removed, so one index serves English and 中文 queries alike.
"""

from __future__ import annotations

import re
from functools import lru_cache

import snowballstemmer

STOPWORDS = frozenset(
    """a an the and or but if then else of to in on at by for with from into onto about as is are was were
    be been being am do does did done have has had having i me my mine you your yours he him his she her hers
    it its we us our ours they them their theirs this that these those there here what which who whom whose
    when where why how all any each some more most very just too also not no nor so than can could will would
    shall should may might must up down out over under again further once only own same such both few other
    s t don doesn didn isn aren wasn weren ll re ve d m o y let lets""".split()
)
_HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_WORD = re.compile(r"[0-9a-z\u00c0-\u024f]+")
_SPLIT = re.compile(r"([\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+)")


_STEMMER = snowballstemmer.stemmer("english")


@lru_cache(maxsize=50_000)
def stem(word: str) -> str:
    """English words to their stem (uploads → upload), so every backend indexes the same terms."""
    return _STEMMER.stemWord(word) if word.isascii() and word.isalpha() else word


def tokenize(text: str, stemmed: bool = True) -> list[str]:
    """Stemmed words and CJK bigrams, in order, stopwords removed (duplicates kept for BM25).

    `stemmed=False` keeps words as written, for keywords people read.
    """
    tokens: list[str] = []
    for part in _SPLIT.split(text.lower()):
        if not part:
            continue
        if _HAN.match(part):
            if len(part) == 1:
                tokens.append(part)
            else:
                tokens.extend(part[i : i + 2] for i in range(len(part) - 1))
        else:
            tokens.extend(stem(w) if stemmed else w for w in _WORD.findall(part) if w not in STOPWORDS)
    return tokens


def token_set(text: str) -> set[str]:
    return set(tokenize(text))


def jaccard(a: set[str], b: set[str]) -> float:
    if not a or not b:
        return 0.0
    return len(a & b) / len(a | b)


def overlap(a: set[str], b: set[str]) -> float:
    """Content similarity as Mnemon defines it: the larger of the two one-sided overlaps."""
    if not a or not b:
        return 0.0
    common = len(a & b)
    return max(common / len(a), common / len(b))
