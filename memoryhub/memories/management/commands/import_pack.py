from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from memoryhub.memories.maintenance import packs


class Command(BaseCommand):
    help = "Import a pack into a new native space (ids remapped)."

    def add_arguments(self, parser):
        parser.add_argument("pack")
        parser.add_argument("--slug", default="")
        parser.add_argument("--name", default="")

    def handle(self, *args, pack, slug, name, **options):
        try:
            space = packs.import_pack(Path(pack).read_bytes(), slug=slug, name=name)
        except (OSError, packs.PackError) as exc:
            raise CommandError(str(exc)) from exc
        self.stdout.write(f"imported into space {space.slug}")
