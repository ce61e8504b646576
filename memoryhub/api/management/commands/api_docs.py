"""`manage.py api_docs [--check]`: render docs/api.md's argument tables from the operations' declarations."""

from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from memoryhub.operations.docs import Mismatch, rewrite

DOC = Path(settings.BASE_DIR) / "docs" / "api.md"


class Command(BaseCommand):
    help = "Rewrite the argument tables of docs/api.md from the operations' input models (--check: only compare)."

    def add_arguments(self, parser):
        parser.add_argument("--check", action="store_true", help="exit 1 when the file differs, change nothing")

    def handle(self, *args, check, **options):
        text = DOC.read_text(encoding="utf-8")
        try:
            new = rewrite(text)
        except Mismatch as exc:
            raise CommandError(str(exc)) from exc
        if new == text:
            self.stdout.write("docs/api.md's tables match the declarations")
        elif check:
            raise CommandError("docs/api.md's tables differ from the declarations; run manage.py api_docs")
        else:
            DOC.write_text(new, encoding="utf-8")
            self.stdout.write("docs/api.md's tables rewritten from the declarations")
