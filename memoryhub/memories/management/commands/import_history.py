import json
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from memoryhub.memories.maintenance import importers
from memoryhub.memories.maintenance.importers import retag
from memoryhub.memories.management.commands._space import native_space


class Command(BaseCommand):
    help = "Backfill history (session logs, MEMORY.md, Mnemon, memory vault, Mnemosyne) into a space; --retag applies a sessions.json origin map."

    def add_arguments(self, parser):
        parser.add_argument("space")
        parser.add_argument("path")
        parser.add_argument("--format", default="auto", choices=["auto", *importers.FORMATS])
        parser.add_argument("--origin", default="local")
        parser.add_argument("--dry-run", action="store_true")
        parser.add_argument("--retag", action="store_true", dest="retag_map", help="path is a sessions.json origin map")

    def handle(self, *args, space, path, format, origin, dry_run, retag_map, **options):
        target, source = native_space(space), Path(path)
        if not source.exists():
            raise CommandError(f"{path} does not exist")
        if retag_map:
            mapping = retag.load_mapping(source, origin if origin != "local" else "qq")
            if dry_run:
                self.stdout.write(json.dumps({"would_change": len(retag.preview(target, mapping))}))
            else:
                self.stdout.write(json.dumps({"changed": retag.apply(target, mapping, actor="cli")}))
            return
        try:
            batch = importers.load(source, format, origin)
        except ValueError as exc:
            raise CommandError(str(exc)) from exc
        self.stdout.write(json.dumps(importers.run(target, batch, dry_run=dry_run, actor="cli"), ensure_ascii=False))

