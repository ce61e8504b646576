"""Create an API token and print it once (its last line is only the token)."""

from django.core.management.base import BaseCommand, CommandError

from memoryhub.agents.models import LOCAL_ORIGIN, ApiToken
from memoryhub.spaces.models import MemorySpace


class Command(BaseCommand):
    help = "Create an API token for an agent; the token is printed once and stored only as a hash."

    def add_arguments(self, parser):
        parser.add_argument("--name", required=True)
        parser.add_argument("--origin", default=LOCAL_ORIGIN,
                            help="Where the agent's traffic comes from (default local).")
        parser.add_argument("--space", action="append", default=[], help="Restrict the token to this space (repeat).")

    def handle(self, *args, name, origin, space, **options):
        spaces = []
        for slug in space:
            found = MemorySpace.objects.filter(slug=slug).first()
            if found is None:
                raise CommandError(f"no space {slug!r}")
            spaces.append(found)
        token, raw = ApiToken.issue(name=name, origin=origin, spaces=spaces)
        scope = ", ".join(s.slug for s in spaces) or "all spaces"
        self.stderr.write(f"Token {token.name!r} (origin {token.origin}, {scope}). Store it now; it is not shown again:")
        self.stdout.write(raw)
