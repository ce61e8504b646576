"""Serve the hub: gunicorn + uvicorn workers (Django, whitenoise, MCP at /mcp) and a django-q2 worker, one Ctrl-C."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

from django.conf import settings
from django.core.management.base import BaseCommand


class Command(BaseCommand):
    help = "Run the web server and the background worker until interrupted."

    def add_arguments(self, parser):
        parser.add_argument("--bind", default=settings.BIND)
        parser.add_argument("--web-workers", type=int, default=int(os.environ.get("MEMORYHUB_WEB_WORKERS", "2")))
        parser.add_argument("--no-worker", action="store_true", help="Serve the web only (workers run elsewhere).")

    def handle(self, *args, bind, web_workers, no_worker, **options):
        web = [sys.executable, "-m", "gunicorn", "memoryhub.asgi:application", "--bind", bind,
               "--worker-class", "uvicorn_worker.UvicornWorker", "--graceful-timeout", "10",
               "--access-logfile", "-", "--forwarded-allow-ips", os.environ.get("MEMORYHUB_FORWARDED_ALLOW_IPS", "127.0.0.1")]
        worker = [sys.executable, str(settings.BASE_DIR / "manage.py"), "qcluster"]
        # Own sessions: the terminal's Ctrl-C reaches only us, and we stop each child by its PID
        # (signalling qcluster's whole process group leaves it hanging).
        children = {}
        if sys.platform == "linux" and not bind.startswith("unix:") and web_workers > 1:
            # One single-worker gunicorn per process, each with its own SO_REUSEPORT socket: the
            # kernel spreads connections over them. Workers sharing one socket do not: an event
            # loop accepts every waiting connection at once, so one process served all eight
            # keep-alive clients of the ingest bench while the other idled.
            for n in range(web_workers):
                children[f"web-{n + 1}"] = subprocess.Popen([*web, "--workers", "1", "--reuse-port"],
                                                            start_new_session=True, cwd=settings.BASE_DIR)
        else:
            children["web"] = subprocess.Popen([*web, "--workers", str(web_workers)], start_new_session=True,
                                               cwd=settings.BASE_DIR)
        if not no_worker:
            children["worker"] = subprocess.Popen(worker, start_new_session=True, cwd=settings.BASE_DIR)
        self.stdout.write(f"memoryhub is serving on http://{bind} (Ctrl-C stops web and worker)", ending="\n")
        self.stdout.flush()
        stopping = False

        def stop(signum, frame):
            nonlocal stopping
            stopping = True

        signal.signal(signal.SIGINT, stop)
        signal.signal(signal.SIGTERM, stop)
        exit_code = 0
        while not stopping:
            for name, proc in children.items():
                if proc.poll() is not None:
                    self.stderr.write(f"{name} exited with {proc.returncode}; stopping")
                    exit_code = proc.returncode or 1
                    stopping = True
            time.sleep(0.3)
        self.shutdown(children)
        if exit_code:
            sys.exit(exit_code)

    def shutdown(self, children: dict[str, subprocess.Popen]) -> None:
        for proc in children.values():
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
        deadline = time.monotonic() + 20
        for name, proc in children.items():
            try:
                proc.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                self.stderr.write(f"{name} did not stop in time; killing it")
                proc.kill()
                proc.wait()
        self.stdout.write("memoryhub stopped.")
