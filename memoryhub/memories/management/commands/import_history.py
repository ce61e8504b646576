import json
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from memoryhub.memories.maintenance import importers
from memoryhub.memories.maintenance.importers import retag
from memoryhub.memories.management.commands._space import native_space


class Command(BaseCommand):
    help = ("Backfill history into a space: agents' transcripts (Claude Code, Codex), chat exports (ChatGPT, "
            "Claude.ai), a turns file, other memory engines' exports (Mem0, OpenMemory, Letta), a memoryhub export, "
            "session logs, MEMORY.md, Mnemon, memory vault, Mnemosyne. PATH may be a file, a folder or a zip. "
            "--retag applies a sessions.json origin map instead.")

    def add_arguments(self, parser):
        parser.add_argument("space", help="the space to import into (with --by-workspace: for turns with no project)")
        parser.add_argument("path")
        parser.add_argument("--format", default="auto", choices=["auto", *importers.FORMATS])
        parser.add_argument("--origin", default="local")
        parser.add_argument("--dry-run", action="store_true", help="say what would be imported and skipped; write "
                                                                   "nothing")
        parser.add_argument("--by-workspace", action="store_true",
                            help="each session into the space of the project directory its agent ran in")
        parser.add_argument("--retag", action="store_true", dest="retag_map", help="path is a sessions.json origin map")

    def handle(self, *args, space, path, format, origin, dry_run, by_workspace, retag_map, **options):
        target, source = native_space(space), Path(path).expanduser()
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
            result = importers.run(target, batch, dry_run=dry_run, actor="cli", by_workspace=by_workspace)
        except importers.Unreadable as exc:
            raise CommandError(str(exc)) from exc
        self.stdout.write(json.dumps(result, ensure_ascii=False))
