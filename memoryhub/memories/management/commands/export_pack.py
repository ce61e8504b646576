from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from memoryhub.memories.maintenance import packs
from memoryhub.memories.management.commands._space import native_space


class Command(BaseCommand):
    help = "Write a native space as a pack (.tar.gz with a manifest); no provider config or secrets inside."

    def add_arguments(self, parser):
        parser.add_argument("space")
        parser.add_argument("output")

    def handle(self, *args, space, output, **options):
        try:
            data = packs.export(native_space(space))
        except packs.PackError as exc:
            raise CommandError(str(exc)) from exc
        Path(output).write_bytes(data)
        self.stdout.write(f"{output}: {len(data)} bytes")
