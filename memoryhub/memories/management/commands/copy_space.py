import json

from django.core.management.base import BaseCommand, CommandError

from memoryhub.memories.maintenance import copies
from memoryhub.spaces.models import MemorySpace
from providers.base import ProviderError


def _space(slug: str) -> MemorySpace:
    space = MemorySpace.objects.filter(slug=slug).first()
    if space is None:
        raise CommandError(f"no space {slug!r}")
    return space


class Command(BaseCommand):
    help = ("Copy a space's memories into another space (any engine) with a receipt per memory; run it again to "
            "send only what has not arrived. --preview says what would go and what the target cannot keep; "
            "--remove-from-source then removes what arrived (committed or accepted) from the source.")

    def add_arguments(self, parser):
        parser.add_argument("source")
        parser.add_argument("target")
        parser.add_argument("--preview", action="store_true", help="say what would go; send nothing")
        parser.add_argument("--remove-from-source", action="store_true",
                            help="after a copy: remove from the source what its receipts say arrived")

    def handle(self, *args, source, target, preview, remove_from_source, **options):
        source_space, target_space = _space(source), _space(target)
        try:
            if preview:
                found = copies.preview(source_space, target_space)
                found.pop("copy", None)
                self.stdout.write(json.dumps(found, ensure_ascii=False, default=str))
                return
            copy = copies.pair(source_space, target_space, actor="cli")
            result = copies.forget(copy, actor="cli") if remove_from_source else copies.run(copy, actor="cli")
        except (copies.CopyRefused, ProviderError) as exc:
            raise CommandError(getattr(exc, "message", "") or str(exc)) from exc
        self.stdout.write(json.dumps(result, ensure_ascii=False))
