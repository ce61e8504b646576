"""Serve the hub: gunicorn + uvicorn workers (Django, whitenoise, MCP at /mcp) and a django-q2 worker, one Ctrl-C.

`serve` supervises what it starts (memoryhub/ops/supervise.py): a child that dies is started again with
backoff, and nothing it started outlives it.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand

from memoryhub.ops.supervise import Child, Supervisor


def web_command(bind: str, workers: int, *, reuse_port: bool) -> list[str]:
    """One gunicorn master with `workers` uvicorn workers. X-Forwarded-For is believed only from the proxies
    MEMORYHUB_TRUSTED_PROXIES names (none by default): from anyone else it would let a client pick its own
    address, and with it its own login-throttling bucket."""
    command = [sys.executable, "-m", "gunicorn", "memoryhub.asgi:application", "--bind", bind,
               "-c", "python:memoryhub.ops.gunicorn_hooks",
               "--worker-class", "uvicorn_worker.UvicornWorker", "--graceful-timeout", "10",
               "--access-logfile", "-", "--forwarded-allow-ips", ",".join(settings.TRUSTED_PROXIES),
               "--workers", str(workers)]
    return [*command, "--reuse-port"] if reuse_port else command


class Command(BaseCommand):
    help = "Run the web server and the background worker until interrupted; restart either if it dies."

    def add_arguments(self, parser):
        parser.add_argument("--bind", default=settings.BIND)
        parser.add_argument("--web-workers", type=int, default=int(os.environ.get("MEMORYHUB_WEB_WORKERS", "2")))
        parser.add_argument("--no-worker", action="store_true", help="Serve the web only (workers run elsewhere).")

    def handle(self, *args, bind, web_workers, no_worker, **options):
        cwd = Path(settings.BASE_DIR)
        children = []
        if sys.platform == "linux" and not bind.startswith("unix:") and web_workers > 1:
            # One single-worker gunicorn per process, each with its own SO_REUSEPORT socket: the
            # kernel spreads connections over them. Workers sharing one socket do not: an event
            # loop accepts every waiting connection at once, so one process served all eight
            # keep-alive clients of the ingest bench while the other idled.
            children += [Child(f"web-{n + 1}", web_command(bind, 1, reuse_port=True), cwd) for n in range(web_workers)]
        else:
            children.append(Child("web", web_command(bind, web_workers, reuse_port=False), cwd))
        if not no_worker:
            children.append(Child("worker", [sys.executable, str(cwd / "manage.py"), "qcluster"], cwd))

        def ready() -> None:
            self.stdout.write(f"memoryhub is serving on http://{bind} (Ctrl-C stops web and worker)")
            self.stdout.flush()

        exit_code = Supervisor(children).run(ready)
        self.stdout.write("memoryhub stopped.")
        if exit_code:
            sys.exit(exit_code)
