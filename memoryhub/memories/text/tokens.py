"""The tokenizer every index and score uses, and set similarities over its tokens.

Follows Mnemon's tokenizer and extends it to every script: lower-cased words, English stopwords
removed, so one index serves English, 中文 and every other language alike.

- Scripts that put spaces between words (Latin, Cyrillic, Greek, Arabic, Hebrew, Hangul, …) give one
  token per word; English, Russian, Greek and Arabic words are stemmed (Snowball), English past forms
  first brought to their verb ("went" → "go", so "did she go" finds "she went").
- Scripts written without spaces give overlapping pairs of characters, the usual way to index them
  without a dictionary: Chinese and Japanese (kanji with kana), Korean syllables inside a word (so
  학교 matches 학교에, the word with its particle), and Thai, Lao, Khmer and Myanmar, whose pairs are of
  characters *with their vowel and tone marks* (a mark never stands alone).
- Accents that only decorate a letter are folded (café = cafe, Greek tonos, Arabic harakat, Hebrew
  points); marks that are letters of their own script (Thai vowels) are kept. Both backends index the
  tokens exactly as given (see fulltext.FTS_TOKENIZER, pgsearch.vector_literal).
"""

from __future__ import annotations

import re
import unicodedata
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

# Runs indexed as overlapping pairs: Han (with the kana of Japanese between them), Hangul, and the
# Southeast Asian scripts without spaces.
_HAN_KANA = "\u3040-\u30ff\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff66-\uff9f"
_HANGUL = "\u1100-\u11ff\u3130-\u318f\uac00-\ud7af"
_NO_SPACE = "\u0e00-\u0eff\u1000-\u109f\u1780-\u17ff"  # Thai, Lao, Myanmar, Khmer
_HAN = re.compile(rf"[{_HAN_KANA}]")
_HAN_RUN = re.compile(rf"[{_HAN_KANA}]+")
_KANA = re.compile(r"[\u3040-\u30ff\u31f0-\u31ff\uff66-\uff9f]")
_HANGUL_CHAR = re.compile(rf"[{_HANGUL}]")


def _marks() -> str:
    """A character class of every combining mark of the Basic Multilingual Plane (Python's re has no \\p{M})."""
    ranges: list[tuple[int, int]] = []
    for code in range(0x300, 0x10000):
        if unicodedata.category(chr(code)).startswith("M"):
            if ranges and ranges[-1][1] == code - 1:
                ranges[-1] = (ranges[-1][0], code)
            else:
                ranges.append((code, code))
    return "".join(re.escape(chr(a)) + ("-" + re.escape(chr(b)) if b > a else "") for a, b in ranges)


MARKS = _marks()
# A token: a run of pair-indexed script, or a word of letters, digits and marks in any other script.
_PIECE = re.compile(rf"[{_HAN_KANA}]+|[{_HANGUL}]+|[{_NO_SPACE}]+|(?:[^\W_{_HAN_KANA}{_HANGUL}{_NO_SPACE}]|[{MARKS}])+")
_ASCII_PIECE = re.compile(r"[0-9a-z]+")
_CLUSTER = re.compile(rf".[{MARKS}]*", re.S)
# Marks that decorate a letter rather than spell a sound of their own: folded away.
_DECORATION = re.compile("[\u0300-\u036f\u0483-\u0489\u0591-\u05c7\u0610-\u061a\u064b-\u065f\u0670"
                         "\u06d6-\u06ed\u0640]")

_STEMMERS = {name: snowballstemmer.stemmer(name) for name in ("english", "russian", "greek", "arabic")}
# English verbs whose past forms the stemmer cannot bring back ("went", "bought"): general grammar, the
# common irregular verbs. Forms that are mostly other words ("left", "saw", "rose", "found", "lay",
# "ground", "bore", "bound") are left alone.
IRREGULAR = {form: verb for verb, forms in (
    ("arise", "arose arisen"), ("awake", "awoke awoken"), ("become", "became"), ("begin", "began begun"),
    ("bend", "bent"), ("bite", "bit bitten"), ("bleed", "bled"), ("blow", "blew blown"),
    ("break", "broke broken"), ("breed", "bred"), ("bring", "brought"), ("build", "built"), ("burn", "burnt"),
    ("buy", "bought"), ("catch", "caught"), ("choose", "chose chosen"), ("cling", "clung"), ("come", "came"),
    ("creep", "crept"), ("deal", "dealt"), ("dig", "dug"), ("draw", "drew drawn"), ("dream", "dreamt"),
    ("drink", "drank drunk"), ("drive", "drove driven"), ("eat", "ate eaten"), ("fall", "fell fallen"),
    ("feed", "fed"), ("feel", "felt"), ("fight", "fought"), ("flee", "fled"), ("fly", "flew flown"),
    ("forbid", "forbade forbidden"), ("forget", "forgot forgotten"), ("forgive", "forgave forgiven"),
    ("freeze", "froze frozen"), ("get", "got gotten"), ("give", "gave given"), ("go", "went gone"),
    ("grow", "grew grown"), ("hang", "hung"), ("hear", "heard"), ("hide", "hid hidden"), ("hold", "held"),
    ("keep", "kept"), ("kneel", "knelt"), ("know", "knew known"), ("lead", "led"), ("leap", "leapt"),
    ("learn", "learnt"), ("lend", "lent"), ("lose", "lost"), ("make", "made"), ("mean", "meant"),
    ("meet", "met"), ("pay", "paid"), ("ride", "rode ridden"), ("ring", "rang rung"), ("run", "ran"),
    ("say", "said"), ("see", "seen"), ("seek", "sought"), ("sell", "sold"), ("send", "sent"),
    ("shake", "shook shaken"), ("shine", "shone"), ("shoot", "shot"), ("show", "shown"),
    ("shrink", "shrank shrunk"), ("sing", "sang sung"), ("sink", "sank sunk"), ("sit", "sat"),
    ("sleep", "slept"), ("slide", "slid"), ("speak", "spoke spoken"), ("spend", "spent"), ("spin", "spun"),
    ("spring", "sprang sprung"), ("stand", "stood"), ("steal", "stole stolen"), ("stick", "stuck"),
    ("sting", "stung"), ("strike", "struck"), ("swear", "swore sworn"), ("sweep", "swept"),
    ("swim", "swam swum"), ("swing", "swung"), ("take", "took taken"), ("teach", "taught"),
    ("tear", "tore torn"), ("tell", "told"), ("think", "thought"), ("throw", "threw thrown"),
    ("understand", "understood"), ("wake", "woke woken"), ("wear", "wore worn"), ("weep", "wept"),
    ("win", "won"), ("write", "wrote written"),
) for form in forms.split()}


def _script_stemmer(word: str):
    first = word[0]
    if first.isascii():
        return _STEMMERS["english"] if word.isalpha() else None
    name = unicodedata.name(first, "")
    for script, stemmer in (("CYRILLIC", "russian"), ("GREEK", "greek"), ("ARABIC", "arabic")):
        if name.startswith(script):
            return _STEMMERS[stemmer]
    return None


@lru_cache(maxsize=50_000)
def stem(word: str) -> str:
    """A word to its stem (uploads → upload, went → go, книги → книг), so every backend indexes the same terms."""
    stemmer = _script_stemmer(word)
    if stemmer is None:
        return word
    return stemmer.stemWord(IRREGULAR.get(word, word) if word.isascii() else word)


@lru_cache(maxsize=50_000)
def fold(word: str) -> str:
    """The word without the accents that only decorate its letters (café → cafe, ё → е, מִלָּה → מלה)."""
    if word.isascii():
        return word
    return unicodedata.normalize("NFC", _DECORATION.sub("", unicodedata.normalize("NFD", word)))


def pairs(run: str, clusters: bool = False) -> list[str]:
    """Overlapping pairs of a run without spaces (`clusters`: of characters with their marks); one alone stays."""
    units = _CLUSTER.findall(run) if clusters else run
    if len(units) == 1:
        return [units[0]]
    return [units[i] + units[i + 1] for i in range(len(units) - 1)]


# Chinese characters that are grammar rather than subject (particles, pronouns, measure words): never searched
# alone. Every other character is, beside the pairs (index_tokens): a one-character word (猫, 跑, 吃) has no pair.
FUNCTION_CHARACTERS = frozenset("的了是在我你他她它们这那和与也都就还又很吗呢吧啊呀么之其着过把被给个一地得哦嗯啦哈")
# Chinese question words, left out of queries as English leaves out what, how and which (STOPWORDS): they say what
# kind of answer is wanted, not what it is about.
QUESTION_WORDS = frozenset("什么 怎么 为什 哪里 哪儿 哪些 哪个 哪一 多少 多久 几个 是否".split())


def index_tokens(text: str) -> list[str]:
    """The tokens the search index holds and queries: tokenize's, with each Chinese character that is not a
    function character also alone, in place (so a quoted phrase is still a run of tokens)."""
    return _tokens(text, True, singles=True)


def tokenize(text: str, stemmed: bool = True) -> list[str]:
    """Stemmed words and pairs of unspaced scripts, in order, stopwords removed (duplicates kept for BM25).

    `stemmed=False` keeps words as written (folded), for keywords people read.
    """
    return _tokens(text, stemmed, singles=False)


def _tokens(text: str, stemmed: bool, singles: bool) -> list[str]:
    if text.isascii():  # most text: the same tokens for a fraction of the work
        return [stem(w) if stemmed else w for w in _ASCII_PIECE.findall(text.lower()) if w not in STOPWORDS]
    tokens: list[str] = []
    for piece in _PIECE.findall(unicodedata.normalize("NFKC", text).casefold()):
        if piece.isascii():
            if piece not in STOPWORDS:
                tokens.append(stem(piece) if stemmed else piece)
        elif _HAN.match(piece):
            tokens.extend(_han(piece) if singles and len(piece) > 1 else pairs(piece))
        elif _HANGUL_CHAR.match(piece) and len(piece) > 1:
            tokens.extend(pairs(piece))
        elif _NO_SPACE_CHAR.match(piece):
            tokens.extend(pairs(piece, clusters=True))
        elif piece not in STOPWORDS:
            tokens.append(word_token(piece, stemmed))
    return tokens


def _han(run: str) -> list[str]:
    """Each character that may be a word of its own, then the pair it starts."""
    out: list[str] = []
    for i, char in enumerate(run):
        if char not in FUNCTION_CHARACTERS and not _KANA.match(char):
            out.append(char)
        if i + 1 < len(run):
            out.append(run[i:i + 2])
    return out


@lru_cache(maxsize=50_000)
def word_token(word: str, stemmed: bool = True) -> str:
    """A word of a spaced script as indexed: Latin folded, then stemmed (naïve → naiv); others stemmed in their
    own language, then folded (the Russian stemmer needs its й)."""
    if word[0] < "\u0250":
        word = fold(word)
        return stem(word) if stemmed and word.isascii() else word
    return fold(stem(word) if stemmed else word)


_NO_SPACE_CHAR = re.compile(rf"[{_NO_SPACE}]")


def words(text: str) -> list[str]:
    """The words of `text` as written, in any script (a run of Chinese counts as one), for showing which matched."""
    return _PIECE.findall(text)


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

