"""What the write gateway tells the rest of the hub, as Django signals sent inside the change's transaction.

- `entry_written(entry, actor, backfill)`: a new native entry was stored (not a repeat). `backfill`
  is true for imported history, which must never call a model (seed 003).
- `entries_changed(space, operation, entry_ids, actor)`: any change to a space's entries, named
  by its op log operation ("remember", "update", "forget", "archive", "merge", "retag", …).

Receivers run in the writer's transaction, so a failure rolls the change back; work that must
wait for the commit uses `transaction.on_commit`. Who listens is listed in one place: the
`ready()` of each app (memories/apps.py for the hub's own follow-ups).
"""

from django.dispatch import Signal

entry_written = Signal()
entries_changed = Signal()
