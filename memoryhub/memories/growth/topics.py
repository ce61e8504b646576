"""Topics: group a session's turns, so twelve turns on one thing recall, and expand, as one thing.

Turns join their predecessor's topic when they share the session, follow within two hours and
keep the subject (entity/keyword overlap; time alone glued unrelated talks together, seed weakness #3).
Sessions are never merged: a wrong merge is harder to undo than two topics, and origins never
share a topic (its title is made of its turns' words; docs/api.md's origin rules). A title names the
topic's main entity and its most central informative phrase, not whatever its first turn said.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from datetime import timedelta

from django.db.models import Count, Max, Min

from memoryhub.memories.models import Entry, Kind, Topic
from memoryhub.memories.text import segment
from memoryhub.memories.text.entities import SPEAKER_LABEL, TECH_TERMS, extract_entities
from memoryhub.memories.text.prose import clip, information
from memoryhub.memories.text.tokens import stem, tokenize
from memoryhub.memories.write import gateway

GAP = timedelta(hours=2)
MIN_SIGNAL_TOKENS = 6    # shorter turns ("ok, do it") are follow-ups and never start a topic by themselves
SPLIT_BELOW = 0.15       # share of a substantive turn's words already seen in the topic, below which it's new
KIND_PRIORITY = ["decision", "pitfall", "insight", "structure", "experience", "progress", "preference", "fact",
                 "companion", "context", "general"]
SIGNAL_CHARS = 1500
SAMPLE = 20              # turns read from each end of a topic when recounting it
SIGNAL_KEEP = 128        # running counts kept per topic for entities and words (cards show 8 and 12)
PHRASES = 8              # the most informative turn phrases a topic keeps as title candidates


def assign(entry: Entry) -> Topic | None:
    """Put one saved turn into its topic (joining or starting one); see assign_all."""
    if entry.kind != Kind.TURN or entry.deleted_at:
        return None
    if entry.topic_id:
        return refresh(entry.topic)
    return assign_all([entry])[entry.pk]


def assign_all(turns: list[Entry]) -> dict[int, Topic]:
    """Put new turns, in time order, into their topics and fold each into its topic's card fields.

    A turn follows the one before it in its session: from this batch when there is one, so a
    batch reads each session once and saves each topic and its new turns' links once.
    """
    latest: dict[tuple[str, str], Entry] = {}  # (session, origin) -> its latest turn so far, topic loaded
    placed: dict[int, Topic] = {}
    members: dict[int, list[int]] = {}
    for entry in turns:
        previous = latest.get((entry.session_id, entry.origin)) if entry.session_id else None
        previous = previous or _previous_turn(entry)
        topic = None
        if previous and entry.at - previous.at < GAP and not _subject_changed(entry, previous):
            topic = previous.topic
        if topic is None:
            topic = Topic.objects.create(space_id=entry.space_id, origin=entry.origin, session_id=entry.session_id,
                                         started_at=entry.at, ended_at=entry.at)
        entry.topic = topic
        members.setdefault(topic.pk, []).append(entry.pk)
        if topic.turn_count and not topic.signal:
            gateway.place_in_topic(topic.pk, members.pop(topic.pk))
            refresh(topic)  # a topic from before running counts: recount once
        else:
            _absorb(topic, entry)
        placed[entry.pk] = topic
        if entry.session_id:
            latest[(entry.session_id, entry.origin)] = entry
    for topic_id, ids in members.items():
        gateway.place_in_topic(topic_id, ids)
    for topic in {t.pk: t for t in placed.values()}.values():
        _save_card(topic)
    return placed


def _previous_turn(entry: Entry) -> Entry | None:
    """The turn of the same origin just before this one in the same session that already has a topic (no
    session: none)."""
    if not entry.session_id:
        return None
    return (Entry.objects.live()
            .filter(space_id=entry.space_id, session_id=entry.session_id, origin=entry.origin, kind=Kind.TURN,
                    topic__isnull=False, at__lte=entry.at)
            .exclude(pk=entry.pk).select_related("topic").order_by("-at", "-id").first())


_HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")


def words(text: str, stemmed: bool = True) -> list[str]:
    """The content words of a turn, in order: English words (stopwords out, stemmed unless for people to read)
    and Chinese words by segmentation (nouns and names, no particles or character pairs); speaker labels
    ("User:", "Assistant:", "Caroline:") are not words of the subject."""
    text = SPEAKER_LABEL.sub(" ", text)
    found = tokenize(_HAN.sub(" ", text), stemmed=stemmed)
    if segment.has_chinese(text):
        found += segment.content_words(text)
    return found


# Words of time say when, not what about: two turns that both say "next" (week, Wednesday) share no subject.
_WHEN = {stem(w) for w in """next last this coming week weeks month months year years day days today tonight tomorrow
    yesterday morning afternoon evening night weekend weekday monday tuesday wednesday thursday friday saturday sunday
    january february march april may june july august september october november december time""".split()} | set(
    "今天 明天 昨天 后天 前天 下周 上周 本周 这周 下个月 上个月 今年 明年 去年 周末 早上 晚上 下午 上午 中午".split())


def _signature(entry: Entry) -> tuple[set[str], set[str]]:
    """(entities, content words) of a turn, lower-cased.

    Kept on the entry: in a batch each turn is compared as itself and again as the next one's predecessor."""
    if getattr(entry, "_topic_signature", None) is None:
        text = "\n".join([entry.title, entry.summary, entry.body[:SIGNAL_CHARS]])
        entities = {e.lower() for e in (entry.entities or extract_entities(text))}
        entry._topic_signature = (entities, set(words(text)) - _WHEN)
    return entry._topic_signature


def _substance(tokens: set[str]) -> int:
    """How much a turn says, in English words: a Chinese word counts twice, segmentation keeping only its nouns
    and names where English keeps every content word (我对芒果过敏，吃了会起疹子 has three, 疹子 芒果 过敏)."""
    return sum(2 if _HAN.search(token) else 1 for token in tokens)


def _subject_changed(entry: Entry, previous: Entry) -> bool:
    """A substantive turn sharing no entity with its neighbour and topic starts a new topic when it shares none
    of their words, or names something new and shares almost none."""
    entities, tokens = _signature(entry)
    if _substance(tokens) < MIN_SIGNAL_TOKENS:
        return False
    prev_entities, prev_tokens = _signature(previous)
    topic = previous.topic
    seen_entities = prev_entities | {e.lower() for e in topic.entities}
    if entities & seen_entities:
        return False
    # The topic's running word counts are kept as written; compare them in the signature's (stemmed) form.
    seen_tokens = prev_tokens | {stem(w) for w, _ in (topic.signal or {}).get("words", [])} | set(topic.keywords)
    shared = tokens & seen_tokens
    if shared and not entities:
        return False  # names nothing new and still speaks of the topic ("should both databases run meanwhile?")
    return len(shared) / len(tokens) < SPLIT_BELOW


def on_entries_changed(sender, operation: str, entry_ids: list[int], **kwargs) -> None:
    """A forgotten turn leaves its topic's card: recount the topics it was in."""
    if operation == "forget":
        for topic in Topic.objects.filter(entries__pk__in=entry_ids).distinct():
            refresh(topic)


def refresh(topic: Topic) -> Topic:
    """Recount a topic from its live turns (after a forget, or once for a topic without running counts).

    Words and entities come from the first and last SAMPLE turns, so a long topic costs no more to recount.
    """
    live = topic.entries.live()
    stats = live.aggregate(n=Count("id"), start=Min("at"), end=Max("at"))
    if not stats["n"]:
        return topic
    entries = list(live.order_by("at", "id")[:SAMPLE])
    if stats["n"] > SAMPLE:
        entries += list(live.order_by("-at", "-id")[:min(SAMPLE, stats["n"] - SAMPLE)])
    topic.signal = {"entities": [], "words": [], "opening": _opening(entries[0])}
    for entry in entries:
        _count(topic.signal, entry)
    topic.started_at, topic.ended_at = stats["start"], stats["end"]
    topic.turn_count = stats["n"]
    categories = set(live.order_by().values_list("category", flat=True).distinct())
    topic.kind = next((k for k in KIND_PRIORITY if k in categories), "general")
    return _save_card(topic)


def _absorb(topic: Topic, entry: Entry) -> Topic:
    """Fold one new turn into the topic's running counts: no re-reading of the turns already in it."""
    if not topic.turn_count:
        topic.signal = {"entities": [], "words": [], "opening": _opening(entry)}
    _count(topic.signal, entry)
    topic.turn_count += 1
    topic.started_at, topic.ended_at = min(topic.started_at, entry.at), max(topic.ended_at, entry.at)
    topic.kind = next((k for k in KIND_PRIORITY if k in (topic.kind, entry.category)), "general")
    return topic


def _count(signal: dict, entry: Entry) -> None:
    """Add a turn's entities and words (each once per turn) to the counts, keeping the SIGNAL_KEEP most common."""
    text = "\n".join([entry.title, entry.summary, entry.body[:SIGNAL_CHARS]])
    names = list(dict.fromkeys(entry.entities or extract_entities(text)))
    said = list(dict.fromkeys(words(text, stemmed=False)))
    phrase = " ".join((entry.title or entry.summary).split())
    phrases = signal.setdefault("phrases", [])
    if information(phrase) >= 2 and phrase not in (p for p, _ in phrases):
        phrases.append([phrase, information(phrase)])
        phrases.sort(key=lambda p: -p[1])  # stable: among equals the earlier stays
        del phrases[PHRASES:]
    for key, items in (("entities", names), ("words", said)):
        counts = Counter(dict(signal.get(key, [])))
        counts.update(items)
        if len(counts) > 2 * SIGNAL_KEEP:
            # Keep the most common; among equals the newest, so later words still get a chance to add up.
            kept = {name for name, _ in sorted(reversed(counts.items()), key=lambda i: i[1], reverse=True)[:SIGNAL_KEEP]}
            counts = Counter({name: n for name, n in counts.items() if name in kept})
        signal[key] = [[name, n] for name, n in counts.items()]  # pairs: PostgreSQL's jsonb would reorder a dict


def _opening(entry: Entry) -> list[str]:
    """What the title needs from a topic's first turn: its phrase and the start of its body."""
    return [" ".join((entry.title or entry.summary).split()), " ".join(entry.body.split())[:40]]


def _save_card(topic: Topic) -> Topic:
    counts = Counter(dict(topic.signal["entities"]))
    # Among names said as often, the ones a person reads as the subject (Tidewater, Marco Rossi) come before
    # the acronyms and tech terms said beside them (RPS, PDF).
    ranked = sorted(counts.items(), key=lambda item: (-item[1], _generic_term(item[0])))
    topic.entities = [name for name, _ in ranked[:8]]
    topic.keywords = [word for word, _ in Counter(dict(topic.signal["words"])).most_common(12)]
    topic.title = _title(topic.entities, _central_phrase(topic.signal), topic.signal["opening"][1], topic.keywords)
    topic.save()
    return topic


def _generic_term(name: str) -> bool:
    return name in TECH_TERMS or (name.isascii() and name.isupper())


def _central_phrase(signal: dict) -> str:
    """Of the topic's most informative turn phrases (titles or summaries, a model's when there is one), the one
    whose words recur most across the topic; a topic from before phrases were kept falls back to its opening."""
    counts = dict(signal.get("words", []))
    candidates = [p for p, _ in signal.get("phrases", [])] or [signal["opening"][0]]

    def centrality(phrase: str) -> float:
        found = set(words(phrase, stemmed=False))
        return sum(counts.get(w, 0) for w in found) / math.sqrt(len(found) or 1)

    return max(candidates, key=centrality)


def _title(entities: list[str], phrase: str, body_start: str, keywords: list[str]) -> str:
    """Best entity (files, domains, paths first) / the topic's most central phrase; keywords only as a last resort."""
    ranked = sorted(entities, key=lambda e: 0 if re.search(r"[./]", e) else 1)
    parts = ranked[:1]
    if phrase and phrase not in parts:
        parts.append(clip(phrase, 60))
    parts += [e for e in ranked[1:] if e not in parts][: max(0, 2 - len(parts))]
    if not parts:
        words = [w for w in keywords if w.isascii() and len(w) >= 3][:3]
        parts = [" ".join(words) or body_start]
    return " / ".join(parts)[:300]
