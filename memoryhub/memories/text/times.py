"""Time in queries and memories: which days a question asks about, whether it asks "when", and whether a text
says when something happened.

General language, not any data set's: calendar dates as people write them in English and Chinese
("25 May, 2022", "May 25, 2022", "May 2022", "2022", "2022-05-25", "2022年5月25日", "5月"), the
relative words of both languages ("last week", "yesterday", "上周", "去年") counted from the day the
question is asked, and the time expressions a statement uses to say when ("yesterday", "two weeks ago",
"last summer", "上个月").
"""

from __future__ import annotations

import calendar
import re
from datetime import date, timedelta
from typing import NamedTuple

MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
          "november", "december")
_MONTH = "|".join([*MONTHS, "jan", "feb", "mar", "apr", "jun", "jul", "aug", "sept", "sep", "oct", "nov", "dec"])
_DAY = r"(\d{1,2})(?:st|nd|rd|th)?"
_ISO = re.compile(r"\b(\d{4})-(\d{1,2})-(\d{1,2})\b")
_DAY_MONTH_YEAR = re.compile(rf"(?i)\b{_DAY} (?:of )?({_MONTH})\.?,? (\d{{4}})\b")
_MONTH_DAY_YEAR = re.compile(rf"(?i)\b({_MONTH})\.? {_DAY},? (\d{{4}})\b")
_MONTH_YEAR = re.compile(rf"(?i)\b({_MONTH})\.?,? (?:of )?(\d{{4}})\b")
_YEAR = re.compile(r"(?<![\d-])((?:19|20)\d\d)(?:年(?!\d{1,2}月))?(?![\d-])")
_MONTH_ALONE = re.compile(rf"(?i)\b(?:in|during|since|early|late|mid|last|this|next|of)[- ]({_MONTH})\b")
_ZH_DATE = re.compile(r"(?:(\d{4})年)?(\d{1,2})月(?:(\d{1,2})[日号])?")
_EN_RELATIVE = re.compile(r"(?i)\b(?:(yesterday|today|tonight|last night)|(last|this|past) (week|weekend|month|year)|"
                          r"(a|one|two|three|\d{1,2}) (days?|weeks?|months?|years?) ago)\b")
_ZH_RELATIVE = re.compile(r"(前天|昨天|昨晚|今天|上周|上星期|上个?礼拜|这周|本周|上个月|这个月|本月|去年|今年|前年)")
_COUNTS = {"a": 1, "one": 1, "two": 2, "three": 3}

# What a statement uses to say when: relative days and spans, dates, seasons, "ago", "since" (read word by word:
# one regex of every alternative cost 0.1 ms a turn).
_TIME_WORDS = frozenset("yesterday today tonight tomorrow recently lately ago since".split()) | frozenset(
    [*MONTHS, "jan", "feb", "mar", "apr", "jun", "jul", "aug", "sept", "sep", "oct", "nov", "dec"])
_SPAN_WORDS = frozenset("night week weekend month year summer winter spring fall autumn monday tuesday wednesday "
                        "thursday friday saturday sunday".split())
_SIDES = frozenset("last next this past".split())
_EN_WORDS = re.compile(r"[a-z]+|\d{4}")
_ZH_TIME = re.compile(r"昨天|前天|今天|明天|昨晚|上周|下周|上个月|下个月|去年|今年|明年|前年|最近|以前|之前|那天|\d{1,2}月|\d{4}年")


def mentions_time(text: str) -> bool:
    """Whether a statement says when: "yesterday", "last summer", "in May", "2022", "两周前", "上个月"."""
    words = _EN_WORDS.findall(text.lower())
    held = set(words)
    if held & _TIME_WORDS or any(len(w) == 4 and w.isdigit() and w[:2] in ("19", "20") for w in held):
        return True
    if held & _SIDES and held & _SPAN_WORDS:
        for before, after in zip(words, words[1:]):
            if before in _SIDES and after in _SPAN_WORDS:
                return True
    return not text.isascii() and bool(_ZH_TIME.search(text))


ASKS_WHEN = re.compile(
    r"(?i)\bwhen\b|\bwhat (?:year|month|day|date|time|week)\b|\bhow long ago\b|\bwhich (?:year|month|day|week)\b"
    r"|什么时候|何时|哪天|哪一天|几号|哪年|哪一年|几月|哪个月|多久以前|什么时间"
)


class Window(NamedTuple):
    """Days a question asks about: from `start` to `end`; `month` alone (any year) when no year was given."""

    start: date | None
    end: date | None
    month: int = 0

    def holds(self, day: date, after: int = 0) -> bool:
        """Whether `day` falls in the window, or up to `after` days past it (a thing is told after it happened)."""
        if self.start is None:
            return day.month == self.month or (after and (day - timedelta(days=after)).month == self.month)
        return self.start <= day <= self.end + timedelta(days=after)


def _month(name: str) -> int:
    return MONTHS.index(next(m for m in MONTHS if m.startswith(name.lower()[:3]))) + 1


def _month_window(year: int, month: int) -> Window:
    return Window(date(year, month, 1), date(year, month, calendar.monthrange(year, month)[1]))


def _day(year: int, month: int, day: int) -> Window | None:
    try:
        d = date(year, month, day)
    except ValueError:
        return None
    return Window(d, d)


def windows(query: str, today: date) -> list[Window]:
    """The days `query` asks about, each as a window; none when it names no time."""
    found: list[Window | None] = []
    taken: list[tuple[int, int]] = []

    def free(match: re.Match, group: int = 0) -> bool:
        start, end = match.span(group)
        if any(a < end and start < b for a, b in taken):
            return False
        taken.append((start, end))
        return True

    for m in _ISO.finditer(query):
        if free(m):
            found.append(_day(int(m[1]), int(m[2]), int(m[3])))
    for m in _DAY_MONTH_YEAR.finditer(query):
        if free(m):
            found.append(_day(int(m[3]), _month(m[2]), int(m[1])))
    for m in _MONTH_DAY_YEAR.finditer(query):
        if free(m):
            found.append(_day(int(m[3]), _month(m[1]), int(m[2])))
    for m in _ZH_DATE.finditer(query):
        if free(m) and 1 <= int(m[2]) <= 12:
            year, month = (int(m[1]) if m[1] else None), int(m[2])
            if m[3]:
                found.append(_day(year, month, int(m[3])) if year else Window(None, None, month))
            else:
                found.append(_month_window(year, month) if year else Window(None, None, month))
    for m in _MONTH_YEAR.finditer(query):
        if free(m):
            found.append(_month_window(int(m[2]), _month(m[1])))
    for m in _YEAR.finditer(query):
        if free(m, 1):
            year = int(m[1])
            found.append(Window(date(year, 1, 1), date(year, 12, 31)))
    for m in _MONTH_ALONE.finditer(query):
        if free(m, 1):
            found.append(Window(None, None, _month(m[1])))
    found += [_relative(m, today) for m in _EN_RELATIVE.finditer(query) if free(m)]
    found += [_relative_zh(m[0], today) for m in _ZH_RELATIVE.finditer(query) if free(m)]
    return [w for w in found if w is not None]


def _relative(m: re.Match, today: date) -> Window:
    if m[1]:
        back = 1 if m[1].lower() in ("yesterday", "last night") else 0
        return Window(today - timedelta(days=back), today - timedelta(days=back))
    if m[2]:
        return _span(m[3].lower(), 0 if m[2].lower() == "this" else 1, today)
    count = int(m[4]) if m[4].isdigit() else _COUNTS[m[4].lower()]
    unit = m[5].lower().rstrip("s")
    days = {"day": 1, "week": 7, "month": 30, "year": 365}[unit] * count
    around = max(1, days // 7)  # "three weeks ago" is not to the day
    middle = today - timedelta(days=days)
    return Window(middle - timedelta(days=around), middle + timedelta(days=around))


def _span(unit: str, back: int, today: date) -> Window:
    """The calendar week (Monday first), weekend, month or year `back` of them before today's."""
    if unit == "week":
        start = today - timedelta(days=today.weekday() + 7 * back)
        return Window(start, start + timedelta(days=6))
    if unit == "weekend":
        saturday = today - timedelta(days=(today.weekday() - 5) % 7 + (7 if back and today.weekday() >= 5 else 0))
        return Window(saturday, saturday + timedelta(days=1))
    if unit == "month":
        index = today.year * 12 + today.month - 1 - back
        return _month_window(index // 12, index % 12 + 1)
    return Window(date(today.year - back, 1, 1), date(today.year - back, 12, 31))


def _relative_zh(word: str, today: date) -> Window:
    days = {"前天": 2, "昨天": 1, "昨晚": 1, "今天": 0}
    if word in days:
        d = today - timedelta(days=days[word])
        return Window(d, d)
    if word in ("上周", "上星期", "上礼拜", "上个礼拜"):
        return _span("week", 1, today)
    if word in ("这周", "本周"):
        return _span("week", 0, today)
    if word == "上个月":
        return _span("month", 1, today)
    if word in ("这个月", "本月"):
        return _span("month", 0, today)
    return _span("year", {"去年": 1, "今年": 0, "前年": 2}[word], today)
