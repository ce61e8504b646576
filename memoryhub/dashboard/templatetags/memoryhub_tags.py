"""Small template helpers shared by dashboard pages: tag colours and how a job reads to people."""

from __future__ import annotations

import re
import zlib
from datetime import datetime, timedelta

from django import template
from django.utils import timezone
from django.utils.dateparse import parse_datetime
from django.utils.html import escape, format_html
from django.utils.safestring import mark_safe
from django.utils.translation import gettext as _

from memoryhub.dashboard import labels
from memoryhub.jobs import registry
from memoryhub.memories import channels
from memoryhub.memories.text.tokens import stem, tokenize
from memoryhub.spaces.workspaces import own_words

register = template.Library()


@register.filter
def tag_colour(name: str) -> str:
    """A stable colour for a free tag: the same name always gets the same hue (crc32, not the salted hash())."""
    hue = zlib.crc32(str(name).strip().lower().encode()) % 360
    return f"hsl({hue} 60% 42%)"


@register.filter
def chat_label(entry) -> str:
    """Where a bridged turn came from, as seed 003 shows it: 「群 … · 用户 …」 (group … · user …); "" otherwise."""
    shown = channels.describe(entry.chat, entry.channel, entry.tags)
    if "group" in shown and "user" in shown:
        return _("group %(group)s · user %(user)s") % shown
    if "group" in shown:
        return _("group %(group)s") % shown
    return _("user %(user)s") % shown if shown else ""


def translated(message: str, args: dict | None = None) -> str:
    """A job's untranslated message in the reader's language; English if its placeholders do not fit."""
    if not message:
        return ""
    text = _(message)
    try:
        return text % args if args else text
    except (KeyError, ValueError, TypeError):
        return message % args if args else message


@register.filter
def job_label(job) -> str:
    return _(job.label) if job.label else job.kind


@register.filter
def job_heading(job) -> str:
    """The job's label for a page: its kind's declared label in the reader's language, or a label made with names
    in it ("MEMORY.md · proj"), marked as data."""
    declared = registry.JOBS.get(job.kind)
    if not job.label or (declared and job.label == declared.label):
        return _(declared.label) if declared else job.kind
    return format_html('<span translate="no">{}</span>', job.label)


@register.filter
def job_message(job) -> str:
    """The job's latest progress message, translated."""
    log = job.log
    if log:
        return translated(log[-1].get("message", ""), log[-1].get("args"))
    return translated(job.message)


@register.filter
def log_message(line: dict) -> str:
    return translated(line.get("message", ""), line.get("args"))


@register.filter
def log_time(line: dict) -> datetime | None:
    return parse_datetime(line.get("at", ""))


@register.filter
def job_error(job) -> str:
    """Why the job failed, in the reader's language where it is a reason of ours (runner.JobFailed, a stopped
    worker); anything else (an exception's text) as stored."""
    failure = job.result.get("failure") if isinstance(job.result, dict) else None
    if failure:
        return translated(failure.get("message", ""), failure.get("args"))
    return _(job.error) if job.error else ""


def span(seconds: float) -> str:
    """A duration people can read: milliseconds under a second, tenths under a minute, then minutes and hours."""
    if seconds < 1:
        return _("%(ms)d ms") % {"ms": round(seconds * 1000)}
    if seconds < 60:
        return _("%(seconds).1f s") % {"seconds": seconds}
    minutes, rest = divmod(int(seconds), 60)
    if minutes < 60:
        return _("%(minutes)d min %(seconds)d s") % {"minutes": minutes, "seconds": rest}
    return _("%(hours)d h %(minutes)d min") % {"hours": minutes // 60, "minutes": minutes % 60}


@register.filter
def ran_for(job) -> str:
    """How long a job ran, or has been running so far; blank before it starts."""
    if job.started_at is None:
        return ""
    return span(max(0.0, ((job.finished_at or timezone.now()) - job.started_at).total_seconds()))


@register.filter
def waited_for(job) -> str:
    """How long a job waited for a worker (so far, while it is still queued)."""
    start = job.started_at or (timezone.now() if job.status == job.Status.QUEUED else None)
    return span(max(timedelta(0), start - job.created_at).total_seconds()) if start else ""


@register.filter
def audit_value(value) -> str:
    """One side of an audit record's change in a line: a text's fingerprint as its length and digest, a mapping
    as key=value pairs, a list joined; never more than 160 characters."""
    if value is None:
        return "—"
    if isinstance(value, dict) and set(value) == {"chars", "sha256"}:
        text = _("%(chars)s chars · #%(digest)s") % {"chars": value["chars"], "digest": str(value["sha256"])[:8]}
    elif isinstance(value, dict):
        text = ", ".join(f"{k}={audit_value(v)}" for k, v in value.items()) or "{}"
    elif isinstance(value, list):
        text = ", ".join(audit_value(v) for v in value) or "[]"
    else:
        text = str(value)
    return text if len(text) <= 160 else text[:159] + "…"


@register.filter
def label(value, family: str) -> str:
    """An enumerated value's name in the reader's language (dashboard/labels.py): `{{ entry.category|label:"category" }}`."""
    return labels.label(family, value)


@register.simple_tag
def space_text(space, part: str = "name") -> str:
    """A space's name or description: the hub's own words in the reader's language, a person's as written (data,
    marked so nothing translates it)."""
    words = own_words(space).get(part)
    if words and part == "name":
        return labels.label("space_name", words[0])  # "Default" the space, not the settings' "Default" value
    if words:
        msgid, args = words
        return _(msgid) % args if args else _(msgid)
    return format_html('<span translate="no">{}</span>', getattr(space, part))


_LATIN = re.compile(r"[0-9A-Za-z\u00c0-\u024f]+")
_HAN_RUN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")


@register.filter
def highlight(text, query: str = "") -> str:
    """The text, escaped, with the words that match the search in <mark>: a word whose stem is one of the query's
    tokens, and in Chinese each character pair (or single character) the query holds, as the index tokenizes."""
    text = "" if text is None else str(text)
    wanted = set(tokenize(query or ""))
    if not wanted or not text:
        return escape(text)
    spans = [m.span() for m in _LATIN.finditer(text) if stem(m.group().lower()) in wanted]
    for run in _HAN_RUN.finditer(text):
        word, start = run.group(), run.start()
        for i in range(len(word)):
            if word[i] in wanted:
                spans.append((start + i, start + i + 1))
            if word[i:i + 2] in wanted and i + 1 < len(word):
                spans.append((start + i, start + i + 2))
    out, last = [], 0
    for start, end in merged(spans):
        out += [escape(text[last:start]), "<mark>", escape(text[start:end]), "</mark>"]
        last = end
    out.append(escape(text[last:]))
    return mark_safe("".join(out))  # every piece of the text went through escape()


def merged(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Overlapping or touching spans as one, in order."""
    out: list[list[int]] = []
    for start, end in sorted(spans):
        if out and start <= out[-1][1]:
            out[-1][1] = max(out[-1][1], end)
        else:
            out.append([start, end])
    return [(a, b) for a, b in out]


@register.filter
def provider_name(kind: str) -> str:
    """A provider kind's name (dashboard/labels.provider): the vendors' as they spell them, native's translated."""
    return labels.provider(kind)
