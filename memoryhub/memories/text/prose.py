"""Sentences, clipping at word boundaries, rule summaries and query-focused excerpts."""

from __future__ import annotations

import re
import unicodedata

from memoryhub.memories.text.tokens import tokenize, words

# Greetings, thanks and exclamations in any conversation: they say that someone spoke, not what about.
PHATIC = frozenset(
    """hi hello hey hiya yo thanks thank thx cheers bye goodbye wow whoa yay ooh oh ah aw awesome cool great nice
    amazing wonderful fantastic lovely sweet okay ok yeah yes yep yup nope sure lol haha hahaha hmm congrats
    congratulations glad sorry please welcome totally definitely absolutely really good worries
    你好 您好 谢谢 多谢 感谢 好的 好吧 嗯嗯 哈哈 收到 明白 没问题 再见 拜拜 客气 加油 厉害 真棒 太棒 不错""".split()
)
# Chinese bigrams that carry no subject of their own ("一个", "我们"): left out of topic signatures and titles.
FILLER_BIGRAMS = frozenset(
    "一个 这个 那个 可以 我们 你们 他们 什么 没有 需要 如果 因为 所以 就是 还是 但是 然后 "
    "现在 已经 一下 这样 怎么 问题 时候 自己 不是 的话 一些 好的 帮我 看看 是不 不要".split()
)
_PHATIC_TOKENS = frozenset(t for w in PHATIC for t in tokenize(w)) | FILLER_BIGRAMS
_CJK_CHAR = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u3000-\u303f\uff00-\uffef]")
# A sentence ends at .!? followed by a space (so ".env", "3.5" and "node.js" stay whole), at 。！？； and at a newline.
_SENTENCE_END = re.compile(r"(?:(?<=[.!?…])|(?<=[.!?…][\"'”’)\]]))[ \t]+|(?<=[。！？；])|\s*\n\s*")
_ABBREVIATION = re.compile(r"(?:(?i:\b(?:e\.g|i\.e|etc|vs|mr|mrs|ms|dr|fig|approx|cf))|(?<![\w.])[A-Z])\.$")
_LABEL = re.compile(r"^([^\s:：]{1,24}(?: [^\s:：]{1,24}){0,2})(?::\s+|：\s*)(?=\S)")
# Scripts written without spaces between words (Thai, Lao, Myanmar, Khmer): a cut may fall between two of their
# characters, never before a vowel or tone mark.
_UNSPACED = re.compile(r"[\u0e00-\u0eff\u1000-\u109f\u1780-\u17ff]")
ELLIPSIS = "…"
LONGEST_WORD = 30  # longer runs without a space are URLs, hashes or paths, which may be cut anywhere


def sentences(text: str) -> list[str]:
    """The text's sentences, whitespace collapsed; abbreviations ("e.g.", "Dr.", initials) don't end one."""
    out: list[str] = []
    for piece in _SENTENCE_END.split(text.strip()):
        piece = " ".join(piece.split())
        if not piece:
            continue
        if out and _ABBREVIATION.search(out[-1]):
            out[-1] += " " + piece
        else:
            out.append(piece)
    return out


def clip(text: str, limit: int) -> str:
    """The text on one line, cut to `limit` characters with an ellipsis; never inside a word (Chinese on characters)."""
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    if limit <= 1:
        return ELLIPSIS[:max(0, limit)]
    return text[:_break_at(text, limit - 1)].rstrip(" ,;:，；：、-–—") + ELLIPSIS


def _break_at(text: str, end: int) -> int:
    """The largest cut at or before `end` between words: at a space or beside a CJK character.

    A first word that does not fit is left out whole, unless it is no word at all (a long URL or hash)."""
    for i in range(end, 0, -1):
        if _can_cut(text[i - 1], text[i]):
            return i
    return end if len(text.split(" ", 1)[0]) > LONGEST_WORD else 0


def _can_cut(before: str, after: str) -> bool:
    """Whether a cut between these two characters falls between words."""
    if after == " " or before == " ":
        return True
    if unicodedata.category(after).startswith("M"):
        return False
    return bool(_CJK_CHAR.match(before) or _CJK_CHAR.match(after) or _UNSPACED.match(before)
                or _UNSPACED.match(after))


def _break_after(text: str, start: int) -> int:
    """The smallest cut at or after `start` between words."""
    for i in range(max(1, start), len(text)):
        if _can_cut(text[i - 1], text[i]):
            return i
    return len(text)


_LINE_LABEL = re.compile(r"(?m)^[ \t]*([^\s:：]{1,24}(?: [^\s:：]{1,24}){0,2})(?::[ \t]+|：[ \t]*)(?=\S)")


def speakers(text: str) -> list[str]:
    """Who speaks in a text: the "Name:" labels its lines start with ("Caroline", "User", "王哥"), once each."""
    return list(dict.fromkeys(_LINE_LABEL.findall(text)))


def without_speakers(text: str) -> str:
    """The text with the "Name:" labels its lines start with taken out (they say who spoke, not what about)."""
    return _LINE_LABEL.sub("", text)


def information(text: str) -> float:
    """How much a text says: its distinct content words (numbers count twice); speaker labels, greetings and
    fillers left out."""
    tokens = set(tokenize(" ".join(_LABEL.sub("", line.strip()) for line in text.splitlines()))) - _PHATIC_TOKENS
    return sum(2.0 if t.isdigit() else 1.0 for t in tokens)


def low_information(text: str) -> bool:
    """"Hey!", "Cheers, James!", "Thanks, Mel!": a turn that says someone spoke, not about what.

    Its start decides when that says enough (a long text is read only as far as needed)."""
    if len(text) > 200 and information(text[:200]) >= 2:
        return False
    return information(text) < 2


def rule_summary(text: str, limit: int = 160) -> str:
    """A rule summary: what the text says once greetings and thanks are left out (its informative sentences
    in their order, within `limit` characters), after the speaker when it names one ("Caroline: I went …")."""
    text = text.strip()
    label = _LABEL.match(text)
    speaker = _speaker(label.group(1)) + " " if label else ""
    parts = sentences(text[label.end():] if label else text)
    if not parts:
        return clip(text, limit)
    scores = [information(p) for p in parts]
    informative = [i for i, score in enumerate(scores) if score >= 2] or [scores.index(max(scores))]
    chosen: list[int] = []
    for i in informative:
        if not chosen or len(_joined(parts, [*chosen, i])) <= limit - len(speaker):
            chosen.append(i)
    return clip(speaker + _joined(parts, chosen), limit)


def _joined(parts: list[str], chosen: list[int]) -> str:
    out = ""
    for previous, i in zip([None, *chosen], chosen):
        out += parts[i] if previous is None else (" " if i == previous + 1 else f" {ELLIPSIS} ") + parts[i]
    return out


def excerpt(text: str, query: set[str], limit: int, weight=None) -> str:
    """The text itself when it fits; else the sentences that best match the query tokens, in their order,
    with an ellipsis where text was left out, and the speaker ("User:", "Caroline:") kept in front.

    `weight(token)` says how much a matching query word counts (rarer words more); one overlong sentence is
    cut to a window around its first match.
    """
    flat = " ".join(text.split())
    if len(flat) <= limit:
        return flat
    spans = _labelled_sentences(text)
    weight = weight or (lambda token: 1.0)
    scores = [sum(weight(t) for t in set(tokenize(sentence)) & query) for _, sentence in spans]
    order = [i for i in sorted(range(len(spans)), key=lambda i: (-scores[i], i)) if scores[i] > 0]
    if not order:
        return clip(flat, limit)
    chosen: list[int] = []
    for i in order:
        if len(_render(spans, sorted([*chosen, i]))) <= limit:
            chosen.append(i)
    if not chosen:
        return _window(spans[order[0]], query, limit, cut_before=order[0] > 0)
    # Room left: the opening, then what follows or precedes a match, unless it says nothing.
    for i in [0, *(j for i in sorted(chosen) for j in (i + 1, i - 1))]:
        if (0 <= i < len(spans) and i not in chosen and not low_information(spans[i][1])
                and len(_render(spans, sorted([*chosen, i]))) <= limit):
            chosen.append(i)
    return _render(spans, sorted(chosen))


def _labelled_sentences(text: str) -> list[tuple[str, str]]:
    """(speaker label or "", sentence) for each sentence; a label is a line's leading "Name:"."""
    spans: list[tuple[str, str]] = []
    for block in re.split(r"\n\s*\n|\n(?=[^\s:：]{1,24}(?::\s|：))", text.strip()):
        match = _LABEL.match(block.strip())
        label = match.group(1) if match else ""
        body = block.strip()[match.end():] if match else block
        spans += [(label, sentence) for sentence in sentences(body)]
    return spans


def _render(spans: list[tuple[str, str]], chosen: list[int]) -> str:
    """The chosen sentences in order; "…" wherever sentences were left out, the speaker named where one starts."""
    out: list[str] = []
    label, previous = "", -1
    for i in chosen:
        speaker, sentence = spans[i]
        skipped = range(previous + 1, i)
        if speaker and speaker != label:
            if any(spans[j][0] != speaker for j in skipped):
                out.append(ELLIPSIS)
            out.append(_speaker(speaker))
            if any(spans[j][0] == speaker for j in skipped):
                out.append(ELLIPSIS)
        elif skipped:
            out.append(ELLIPSIS)
        out.append(sentence)
        label, previous = speaker, i
    if previous < len(spans) - 1:
        out.append(ELLIPSIS)
    return _join(out)


def _speaker(name: str) -> str:
    return f"{name}：" if _CJK_CHAR.match(name[-1]) else f"{name}:"


def _join(pieces: list[str]) -> str:
    """Pieces with a space between them, except between two pieces of Chinese (or Japanese) text."""
    out = ""
    for piece in pieces:
        if out and not (_CJK_CHAR.match(out[-1]) and _CJK_CHAR.match(piece[0])) and out[-1] != "：":
            out += " "
        out += piece
    return out


def _window(span: tuple[str, str], query: set[str], limit: int, cut_before: bool) -> str:
    """One long sentence cut around its first word that matches the query."""
    speaker, sentence = span
    lead = (f"{ELLIPSIS} " if cut_before else "") + (_speaker(speaker) + " " if speaker else "")
    found, at = [], 0
    for word in words(sentence):
        at = sentence.index(word, at)
        if set(tokenize(word)) & query:
            found.append(at)
        at += len(word)
    start = _break_after(sentence, found[0] - limit // 4) if found and found[0] > limit // 4 else 0
    if not start:
        return clip(lead + sentence, limit)
    return lead + f"{ELLIPSIS} " + clip(sentence[start:], max(1, limit - len(lead) - 2))
