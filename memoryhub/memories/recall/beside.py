"""The turns just before and after the block's turn hits: a question's answer is often the reply to its best
match, or the line that match answers, though it shares no word with the question (block.py shows them whole
in the room the hits leave)."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

from memoryhub.core import sql
from memoryhub.memories.models import Entry
from memoryhub.memories.search import fulltext as fts
from memoryhub.memories.text.prose import low_information


@dataclass
class Beside:
    entry: Entry
    hit: int  # the entry id of the hit it is beside
    before: bool  # said just before the hit (else just after)


def turns_beside(hits: list[int], shown: Collection[int], search_filters: tuple[list[str], list], *,
                 longest: int, known: Collection[str] = frozenset()) -> list[Beside]:
    """For each of `hits` (turn ids, best first) the turn before it, then the one after, when the search's own
    filters admit it, it says something, it is at most `longest` characters, the block does not show it
    (`shown`) and the reader does not have its text already (`known`). Three queries, whatever the space's size."""
    if not hits or not search_filters[0]:
        return []
    rows = sql.rows(f"SELECT source_id, target_id, {sql.json_text('metadata', 'direction')} FROM memories_edge "
                    f"WHERE source_id IN ({sql.placeholders(hits)}) AND edge_type = 'temporal' "
                    f"AND {sql.json_text('metadata', 'sub_type')} = %s", [*hits, "backbone"])
    around: dict[int, list[tuple[int, bool]]] = {}  # a hit -> (the turn before it, True), then (the one after, False)
    for source, target, direction in sorted(rows, key=lambda row: row[2] != "succeeds"):
        around.setdefault(source, []).append((target, direction == "succeeds"))
    wanted = [t for pk in hits for t, _ in around.get(pk, []) if t not in shown]
    admitted = [pk for pk, _hits, kind in fts.allowed(wanted, *search_filters) if kind == "turn"]
    entries = Entry.objects.in_bulk(admitted)
    taken = set(shown)
    out: list[Beside] = []
    for hit in hits:
        for target, before in around.get(hit, []):
            entry = entries.get(target)
            if (entry is None or target in taken or len(entry.body) > longest or low_information(entry.body)
                    or entry.body.strip() in known):
                continue
            taken.add(target)
            out.append(Beside(entry, hit, before))
    return out
