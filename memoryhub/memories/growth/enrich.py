"""Edges, topics and (with a model configured) model-read facts for new native entries, added by the worker
after the write has committed.

A write only marks its entry pending, and `on_entries_changed` (subscribed to the write
gateway) makes sure one worker run per space is queued, so an agent's turn is answered without
waiting for the graph and the topic cards (which read the neighbours and cost more than the
write itself). The run takes every pending entry of the space in time order, in batches; a
sweep every minute catches a space whose run was lost (a killed worker, or a write that
committed just after a run looked).
"""

from __future__ import annotations

from datetime import timedelta

from django.db import transaction
from django.utils import timezone

from memoryhub.core import sql
from memoryhub.jobs import runner
from memoryhub.memories.growth import learn, topics
from memoryhub.memories.models import EdgeType, Entry, Kind
from memoryhub.memories.search import vectors
from memoryhub.memories.text import entities
from memoryhub.memories.write import gateway
from memoryhub.spaces.models import MemorySpace

PROXIMITY_HOURS = 24
PROXIMITY_MAX = 10
ENTITY_NEIGHBOURS = 5
ENTITY_EDGE_CAP = 50
BATCH = 50
REQUEUE_AFTER = timedelta(minutes=5)  # a queued run older than this is taken as lost
EMBED_SECONDS = 30.0


def on_entries_changed(sender, space: MemorySpace, operation: str, **kwargs) -> None:
    """A new entry waits for its edges and topic; an edited one, with embeddings on, for its new vector
    (the five-minute sweep catches it if the embedding service fails)."""
    if operation == "remember" or (operation == "update" and vectors.enabled()):
        schedule(space)


def schedule(space: MemorySpace) -> None:
    """Queue a run for the space unless one is already waiting. Call inside the write's transaction."""
    now = timezone.now()
    if sql.run("UPDATE spaces_memoryspace SET enrich_queued_at = %s "
               "WHERE id = %s AND (enrich_queued_at IS NULL OR enrich_queued_at < %s)",
               [sql.moment(now), space.pk, sql.moment(now - REQUEUE_AFTER)]):
        runner.submit("enrich", space.pk, label=f"enrich-{space.pk}")


def run(space_id: int) -> int:
    """Enrich every pending entry of a space, oldest first, then let the model read facts from the new turns
    (learn.py) and embed what lacks a vector (when a model and embeddings are configured); returns how many
    entries were enriched."""
    # Clear the mark first: a write committing from now on queues a new run rather than being missed.
    MemorySpace.objects.filter(pk=space_id).update(enrich_queued_at=None)
    done = 0
    turns: list[int] = []
    while True:
        with transaction.atomic():
            # Two runs of one space never take the same entry (PostgreSQL; SQLite writes one at a time anyway).
            batch = list(Entry.objects.filter(space_id=space_id, enrich_pending=True)
                         .select_for_update(skip_locked=True).order_by("at", "id")[:BATCH])
            live = [entry for entry in batch if entry.deleted_at is None]  # a forgotten entry gets nothing
            for entry in live:
                link_automatically(entry)
            topics.assign_all([entry for entry in live if entry.kind == Kind.TURN])
            gateway.enriched([e.pk for e in batch])
            turns += [entry.pk for entry in live if entry.kind == Kind.TURN]
        done += len(batch)
        if len(batch) < BATCH:
            break
    # Outside the batches' transactions: these wait on a model and on the embedding service.
    if turns:
        learn.from_turns(space_id, turns)
    vectors.embed_pending(space_id, seconds=EMBED_SECONDS)
    return done


def sweep() -> int:
    """Every minute: run for spaces that still have pending entries a minute after they were written."""
    cutoff = timezone.now() - timedelta(minutes=1)
    spaces = set(Entry.objects.filter(enrich_pending=True, created_at__lt=cutoff)
                 .values_list("space_id", flat=True).distinct())
    return sum(run(space_id) for space_id in spaces)


def link_automatically(entry: Entry) -> int:
    """Temporal (same-session backbone, 24 h proximity) and entity edges, as Mnemon makes them.

    Reads ids and times only, in plain SQL (the worker links every new entry).
    """
    edges: list[tuple] = []
    space, at = entry.space_id, sql.moment(entry.at)
    # Entries before this one in (time, id) order: the ones it would have found had it been linked
    # the moment it was written, even when later writes share its time.
    live = "FROM memories_entry WHERE space_id = %s AND deleted_at IS NULL AND (at < %s OR (at = %s AND id < %s))"
    backbone = None
    if entry.session_id:
        row = sql.one(f"SELECT id {live} AND session_id = %s ORDER BY at DESC, id DESC LIMIT 1",
                      [space, at, at, entry.pk, entry.session_id])
        if row:
            backbone = row[0]
            edges += _pair(backbone, entry.pk, EdgeType.TEMPORAL, 1.0,
                           {"sub_type": "backbone", "direction": "precedes"},
                           {"sub_type": "backbone", "direction": "succeeds"})
    window = sql.rows(f"SELECT id, at {live} AND id <> %s AND at >= %s ORDER BY at DESC, id DESC LIMIT %s",
                      [space, at, at, entry.pk, backbone or 0, sql.moment(entry.at - timedelta(hours=PROXIMITY_HOURS)),
                       PROXIMITY_MAX])
    for other, other_at in window:
        hours = abs((entry.at - sql.from_moment(other_at)).total_seconds()) / 3600
        meta = {"sub_type": "proximity", "hours_diff": round(hours, 2)}
        edges += _pair(other, entry.pk, EdgeType.TEMPORAL, round(1 / (1 + hours), 4), meta, meta)
    per_name: dict[str, int] = {}
    names = list(entry.entities or [])
    refs = sql.rows(
        f"SELECT r.name, r.entry_id FROM memories_entityref r JOIN memories_entry e ON e.id = r.entry_id "
        f"WHERE r.space_id = %s AND r.name IN ({sql.placeholders(names)}) AND e.deleted_at IS NULL "
        f"AND (e.at < %s OR (e.at = %s AND e.id < %s)) ORDER BY e.at DESC, e.id DESC LIMIT %s",
        [space, *names, at, at, entry.pk, ENTITY_EDGE_CAP * 4]) if names else []
    entity_edges = 0
    kinds = entities.kinds(f"{entry.title}\n{entry.body}") if refs else {}
    for name, other in refs:
        if entity_edges >= ENTITY_EDGE_CAP or per_name.get(name, 0) >= ENTITY_NEIGHBOURS:
            continue
        per_name[name] = per_name.get(name, 0) + 1
        meta = {"entity": name, "kind": kinds.get(name, "name")}  # a person, place, organisation, file …
        edges += _pair(other, entry.pk, EdgeType.ENTITY, 1.0, meta, meta)
        entity_edges += 1
    now = sql.moment(timezone.now())
    sql.run_many("INSERT INTO memories_edge (source_id, target_id, edge_type, weight, metadata, created_at) "
                 "VALUES (%s, %s, %s, %s, %s, %s) ON CONFLICT DO NOTHING",
                 [(*edge[:4], sql.json_value(edge[4]), now) for edge in edges])
    return len(edges)


def _pair(a: int, b: int, edge_type: str, weight: float, forward: dict, backward: dict) -> list[tuple]:
    return [(a, b, edge_type, weight, forward), (b, a, edge_type, weight, backward)]
