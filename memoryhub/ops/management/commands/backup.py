"""`manage.py backup [--to DIR]`: a consistent online backup of the embedded hub (see memoryhub.ops.backup)."""

from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from memoryhub.ops.backup import BackupError, backup


class Command(BaseCommand):
    help = "Back up the SQLite database, the provider secrets file and the secret key into one archive (0600)."

    def add_arguments(self, parser):
        parser.add_argument("--to", default=str(settings.DATA_DIR / "backups"), help="directory for the archive")

    def handle(self, *args, to, **options):
        try:
            path = backup(Path(to))
        except BackupError as exc:
            raise CommandError(str(exc)) from exc
        self.stdout.write("backup written; it holds provider secrets, keep it private")
        self.stdout.write(str(path))
