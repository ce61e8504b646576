import json

from django.core.management.base import BaseCommand, CommandError

from memoryhub.memories.maintenance import gc
from memoryhub.memories.management.commands._space import native_space
from memoryhub.memories.models import Entry


class Command(BaseCommand):
    help = "Suggest weak memories of a space (never deletes); --keep ID marks one as wanted."

    def add_arguments(self, parser):
        parser.add_argument("space")
        parser.add_argument("--threshold", type=float, default=gc.DEFAULT_THRESHOLD)
        parser.add_argument("--limit", type=int, default=gc.DEFAULT_LIMIT)
        parser.add_argument("--keep", type=int, metavar="ID")

    def handle(self, *args, space, threshold, limit, keep, **options):
        target = native_space(space)
        if keep:
            entry = Entry.objects.live().filter(pk=keep, space=target).first()
            if entry is None:
                raise CommandError(f"no live entry {keep} in {space}")
            kept = gc.keep(entry, actor="cli")
            self.stdout.write(json.dumps({"id": keep, "status": "retained", "new_access": entry.hits,
                                          "effective_importance": kept.effective_importance, "immune": kept.immune}))
            return
        found = gc.run(target, threshold=threshold, limit=limit, actor="cli")
        self.stdout.write(json.dumps({"threshold": threshold, "candidates_found": len(found), "candidates": [
            {"id": c.entry.pk, "summary": c.entry.summary, "effective_importance": c.effective_importance,
             "days_since_access": c.days_since_access, "edge_count": c.edge_count} for c in found]},
            ensure_ascii=False))
