"""Redact what was stored unredacted before #31: op log details (a search's query, a fact's subject) and
chat ids glued into an entry's channel. New rows are redacted as they are written (write/oplog.py,
write/gateway.channel_ids); this passes over the old ones once, from a data migration (its `apps`)."""

from __future__ import annotations

from memoryhub.core.redaction import redact
from memoryhub.memories.write.gateway import channel_ids

BATCH = 2000


def redact_stored_fields(apps) -> dict[str, int]:
    """Rewrite every op log detail and entry channel that holds a secret; returns how many rows changed."""
    oplog, entry = apps.get_model("memories", "OpLog"), apps.get_model("memories", "Entry")
    changed = {"oplog": 0, "channels": 0}
    for pk, detail in _rows(oplog.objects.exclude(detail="").values_list("pk", "detail")):
        clean = redact(detail).text
        if clean != detail:
            changed["oplog"] += oplog.objects.filter(pk=pk).update(detail=clean)
    for pk, channel in _rows(entry.objects.exclude(channel="").values_list("pk", "channel")):
        clean = channel_ids(channel)
        if clean != channel:
            changed["channels"] += entry.objects.filter(pk=pk).update(channel=clean)
    return changed


def _rows(values):
    """Rows a batch at a time, by primary key, so a large log never sits in memory at once."""
    last = 0
    while True:
        batch = list(values.filter(pk__gt=last).order_by("pk")[:BATCH])
        yield from batch
        if len(batch) < BATCH:
            return
        last = batch[-1][0]
