import json

from django.core.management.base import BaseCommand

from memoryhub.memories.maintenance import compact


class Command(BaseCommand):
    help = "Trim the op log ring, old task results and finished jobs, then VACUUM (SQLite)."

    def add_arguments(self, parser):
        parser.add_argument("--days", type=int, default=None, help="keep finished jobs this many days")

    def handle(self, *args, days, **options):
        self.stdout.write(json.dumps(compact.compact(job_days=days)))
