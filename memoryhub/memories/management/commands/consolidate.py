import json

from django.core.management.base import BaseCommand, CommandError

from memoryhub.memories.maintenance import consolidate
from memoryhub.memories.management.commands._space import native_space
from memoryhub.memories.models import ConsolidationRun


class Command(BaseCommand):
    help = "Show a space's consolidation plan; --apply carries it out, --undo RUN restores the state before a run."

    def add_arguments(self, parser):
        parser.add_argument("space")
        parser.add_argument("--apply", action="store_true")
        parser.add_argument("--undo", type=int, metavar="RUN")

    def handle(self, *args, space, apply, undo, **options):
        target = native_space(space)
        if undo:
            run = ConsolidationRun.objects.filter(pk=undo, space=target).first()
            if run is None:
                raise CommandError(f"no consolidation run {undo} in {space}")
            self.stdout.write(json.dumps({"undone": [r.pk for r in consolidate.undo(run, actor="cli")]}))
        elif apply:
            run = consolidate.apply(target, actor="cli")
            self.stdout.write(json.dumps({"run": run.pk, **run.counts}))
        else:
            self.stdout.write(json.dumps(consolidate.plan(target).counts))
