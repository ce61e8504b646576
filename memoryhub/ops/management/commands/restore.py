"""`manage.py restore ARCHIVE [--force]`: put a backup back in place. Stop the hub (web and workers) first."""

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from memoryhub.ops.backup import BackupError, restore


class Command(BaseCommand):
    help = "Restore a backup made by `manage.py backup`. Stop the hub first; --force replaces an existing database."

    def add_arguments(self, parser):
        parser.add_argument("archive")
        parser.add_argument("--force", action="store_true", help="replace the existing database and state files")

    def handle(self, *args, archive, force, **options):
        try:
            restored = restore(Path(archive), force=force)
        except BackupError as exc:
            raise CommandError(str(exc)) from exc
        for what, path in restored.items():
            self.stdout.write(f"restored {what}: {path}")
