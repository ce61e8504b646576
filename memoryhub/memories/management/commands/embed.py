import json
import math
from contextlib import nullcontext

from django.core.management.base import BaseCommand, CommandError

from memoryhub.memories.search import pgvectors, vectors
from memoryhub.memories.management.commands._space import native_space
from providers.base import ProviderError


class Command(BaseCommand):
    help = ("Embed the entries of a space that lack a vector of the configured model, without the worker's "
            "time limit: a big backlog after turning embeddings on or changing the model. On PostgreSQL with "
            "pgvector a backlog of 10,000 or more is loaded first and its HNSW index built after.")

    def add_arguments(self, parser):
        parser.add_argument("space")

    def handle(self, *args, space, **options):
        if not vectors.enabled():
            raise CommandError("embeddings are off: set MEMORYHUB_EMBEDDINGS_BASE_URL")
        target = native_space(space)
        if target.is_vault:
            raise CommandError(f"{space} is a vault space: its text never goes to the embedding service")

        def progress(done: int, total: int) -> None:
            self.stderr.write(f"{done} of {total} entries embedded")

        big = pgvectors.in_use() and vectors.status(target)["missing"] >= pgvectors.BULK_FROM
        try:
            with pgvectors.indexes_built_after() if big else nullcontext():
                done = vectors.embed_pending(target.pk, progress=progress, raise_errors=True, seconds=math.inf)
        except ProviderError as exc:
            raise CommandError(f"the embedding service failed: {exc.message}") from exc
        self.stdout.write(json.dumps({"space": space, "embedded": done, **vectors.status(target)}))
