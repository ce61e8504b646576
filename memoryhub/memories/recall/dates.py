"""Absolute dates for cards: "8 May 2023", and relative words in a memory resolved against its own date.

"Yesterday" in a card from last spring misleads an agent reading it today; so each relative day,
weekday, week, month or year a memory mentions gets its absolute date beside it: "yesterday (7 May 2023)",
"last Friday (5 May 2023)", "next Friday (12 May 2023)", "tomorrow (9 May 2023)", "last week (the week of
1 May 2023)", "last year (2022)", "昨天（2023年5月7日）", "上周（2023年5月1日那一周）". A week is named by its
Monday, so "the week of" says where the guess starts without pretending to know the day.
"""

from __future__ import annotations

import re
from datetime import date, datetime, timedelta

from django.utils import timezone

MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
          "November", "December")
WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
ZH_WEEKDAYS = {"一": 0, "二": 1, "三": 2, "四": 3, "五": 4, "六": 5, "日": 6, "天": 6}  # 周日 and 周天 are Sunday
NUMBERS = {"a": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
           "nine": 9, "ten": 10, "一": 1, "两": 2, "二": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7,
           "八": 8, "九": 9, "十": 10}
_COUNT = r"(?P<n>\d{1,2}|a|one|two|three|four|five|six|seven|eight|nine|ten)"
_ZH_COUNT = r"(?P<zhn>\d{1,2}|[一两二三四五六七八九十])"
_RELATIVE = re.compile(
    r"(?i:\b(?P<en>the day before yesterday|the day after tomorrow|yesterday|tomorrow|last night|last year|"
    r"next year|last month|next month|last week|next week|"
    rf"(?P<side>last|next) (?P<weekday>{'|'.join(WEEKDAYS)})|{_COUNT} (?P<unit>days?|weeks?|months?|years?) ago)\b)"
    # 下周三, 上个星期五, 这周日: a weekday of a week named relative to the day, before 下周 alone
    r"|(?P<zhday>(?P<zhside>上|下|这|本)(?:个)?(?:周|星期|礼拜)(?P<zhweekday>[一二三四五六日天]))"
    rf"|(?P<zh>前天|昨天|昨晚|明天|后天|去年|明年|上个月|下个月|上周|上星期|下周|下星期|"
    rf"{_ZH_COUNT}(?P<zhunit>天|周|个星期|个月|年)前)"
)


def to_date(moment: datetime | date) -> date:
    if isinstance(moment, datetime):
        return (timezone.localtime(moment) if timezone.is_aware(moment) else moment).date()
    return moment


def day(moment: datetime | date) -> str:
    """An absolute date as people write it, "8 May 2023": agents answer "when" questions from it."""
    d = to_date(moment)
    return f"{d.day} {MONTHS[d.month - 1]} {d.year}"


_HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]")
_LATIN_WORD = re.compile(r"[A-Za-z]+")
_SPEAKER_LABEL = re.compile(r"\b(?:User|Assistant):")


def day_for(moment: datetime | date, text: str) -> str:
    """The date in the language of the memory it heads: "2023年5月8日" above Chinese words, else "8 May 2023". A
    Chinese character is about a word: Chinese wins over twice as many Latin words, the speakers' labels not
    counted (a Chinese turn naming Notion is Chinese)."""
    latin_words = _LATIN_WORD.findall(_SPEAKER_LABEL.sub(" ", text))
    if len(_HAN.findall(text)) > max(1, 2 * len(latin_words)):
        return ZH_FORMATS["day"](to_date(moment))
    return day(moment)


def month(d: date) -> str:
    return f"{MONTHS[d.month - 1]} {d.year}"


def months_before(d: date, n: int) -> date:
    index = d.year * 12 + d.month - 1 - n
    return date(index // 12, index % 12 + 1, 1)


EN_FORMATS = {"day": day, "week": lambda d: f"the week of {day(d)}", "month": month, "year": lambda d: str(d.year)}
ZH_FORMATS = {"day": lambda d: f"{d.year}年{d.month}月{d.day}日", "week": lambda d: f"{d.year}年{d.month}月{d.day}日那一周",
              "month": lambda d: f"{d.year}年{d.month}月", "year": lambda d: f"{d.year}年"}


def resolve(text: str, moment: datetime | date) -> str:
    """The text with each relative day, month or year it mentions followed by its absolute date."""
    said_on = to_date(moment)

    def absolute(match: re.Match) -> str:
        when, unit = _when(match, said_on)
        if match.group("zh") or match.group("zhday"):
            return f"{match.group(0)}（{ZH_FORMATS[unit](when)}）"
        return f"{match.group(0)} ({EN_FORMATS[unit](when)})"

    return _RELATIVE.sub(absolute, text)


def _when(match: re.Match, said_on: date) -> tuple[date, str]:
    """The date a relative phrase means, and whether it names a day, a month or a year."""
    phrase = match.group(0).lower()
    days = {"yesterday": -1, "last night": -1, "昨天": -1, "昨晚": -1, "the day before yesterday": -2, "前天": -2,
            "tomorrow": 1, "明天": 1, "the day after tomorrow": 2, "后天": 2}
    if phrase in days:
        return said_on + timedelta(days=days[phrase]), "day"
    years = {"last year": -1, "去年": -1, "next year": 1, "明年": 1}
    if phrase in years:
        return date(said_on.year + years[phrase], 1, 1), "year"
    if phrase in ("last month", "上个月", "next month", "下个月"):
        return months_before(said_on, 1 if phrase in ("last month", "上个月") else -1), "month"
    weeks = {"last week": -1, "上周": -1, "上星期": -1, "next week": 1, "下周": 1, "下星期": 1}
    if phrase in weeks:
        return said_on - timedelta(days=said_on.weekday()) + timedelta(weeks=weeks[phrase]), "week"
    if match.group("zhday"):
        monday = said_on - timedelta(days=said_on.weekday())
        weeks = {"上": -1, "下": 1}.get(match.group("zhside"), 0)
        return monday + timedelta(weeks=weeks, days=ZH_WEEKDAYS[match.group("zhweekday")]), "day"
    if match.group("weekday"):
        target = WEEKDAYS.index(match.group("weekday").lower())
        if match.group("side").lower() == "next":
            return said_on + timedelta(days=(target - said_on.weekday()) % 7 or 7), "day"
        back = (said_on.weekday() - target) % 7 or 7
        return said_on - timedelta(days=back), "day"
    count = (match.group("n") or match.group("zhn")).lower()
    n = int(count) if count.isdigit() else NUMBERS[count]
    unit = (match.group("unit") or match.group("zhunit") or "").lower()
    if unit.startswith("day") or unit == "天":
        return said_on - timedelta(days=n), "day"
    if unit.startswith("week") or unit in ("周", "个星期"):
        back = said_on - timedelta(weeks=n)
        return back - timedelta(days=back.weekday()), "week"
    if unit.startswith("month") or unit == "个月":
        return months_before(said_on, n), "month"
    return said_on.replace(year=said_on.year - n, day=1), "year"
