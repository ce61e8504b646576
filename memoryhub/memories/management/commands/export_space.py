from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from memoryhub.memories.maintenance import open_export
from memoryhub.memories.management.commands._space import native_space


class Command(BaseCommand):
    help = ("Write a native space (or --all) as the open export: JSON lines of entries, facts, topics and links "
            "(docs/memory.md, \"Open export\"), or --markdown to read. Vault spaces only with --include-vault; "
            "provider settings, secrets and tokens are never in it.")

    def add_arguments(self, parser):
        parser.add_argument("space", nargs="?", help="the space's slug (or --all)")
        parser.add_argument("--all", action="store_true", dest="every", help="every native space")
        parser.add_argument("-o", "--output", default="-", help="the file to write (default: standard output)")
        parser.add_argument("--markdown", action="store_true", help="readable Markdown instead of JSON lines")
        parser.add_argument("--include-vault", action="store_true",
                            help="a person confirms that vault memories may leave the hub in this file")

    def handle(self, *args, space, every, output, markdown, include_vault, **options):
        if bool(space) == every:
            raise CommandError("name one space, or give --all")
        spaces = open_export.all_spaces() if every else [native_space(space)]
        try:
            chosen = open_export.exportable(spaces, include_vault=include_vault)
        except open_export.VaultNotConfirmed as exc:
            raise CommandError(f"{exc}: add --include-vault to export it") from exc
        lines = open_export.markdown(chosen) if markdown else open_export.jsonl(chosen)
        left_out = [s.slug for s in spaces if s not in chosen]
        if output == "-":
            for line in lines:
                self.stdout.write(line, ending="")
        else:
            with Path(output).open("w", encoding="utf-8") as f:
                f.writelines(lines)
            self.stderr.write(f"{output}: {', '.join(s.slug for s in chosen) or 'no spaces'}")
        if left_out:
            self.stderr.write(f"left out (vault spaces, no --include-vault): {', '.join(left_out)}")
