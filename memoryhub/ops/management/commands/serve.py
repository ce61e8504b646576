"""Serve the hub: gunicorn + uvicorn workers (Django, whitenoise, MCP at /mcp) and a django-q2 worker, one Ctrl-C.

`serve` supervises what it starts (memoryhub/ops/supervise.py): a child that dies is started again with
backoff, and nothing it started outlives it. It says "serving on …" once the port answers, not when the servers
were merely started; a port something else holds ends at once in a sentence saying so and how to pick another
(MEMORYHUB_BIND), not in gunicorn's retries.
"""

from __future__ import annotations

import errno
import os
import socket
import sys
import threading
import time
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
        address = tcp_address(bind)
        if address and (taken := port_taken(*address)):
            self.stderr.write(taken)
            sys.exit(1)
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
            """The servers are started: a thread says so once the port answers (at once for a unix socket)."""
            threading.Thread(target=self.announce, args=(bind, address), daemon=True).start()

        exit_code = Supervisor(children).run(ready)
        self.stdout.write("memoryhub stopped.")
        if exit_code:
            sys.exit(exit_code)

    def announce(self, bind: str, address: tuple[str, int] | None) -> None:
        while address is not None and not answers(*address):
            time.sleep(0.2)
        self.stdout.write(f"memoryhub is serving on http://{bind} (Ctrl-C stops web and worker)")
        self.stdout.flush()


def tcp_address(bind: str) -> tuple[str, int] | None:
    """(host, port) of a gunicorn bind ("127.0.0.1:8000", "[::1]:8000", ":8000"); None for a unix socket."""
    if bind.startswith(("unix:", "fd://")):
        return None
    host, _, port = bind.rpartition(":")
    host = host.strip("[]") or "0.0.0.0"
    return (host, int(port)) if port.isdigit() else None


def port_taken(host: str, port: int) -> str:
    """Why the hub cannot listen there, as a sentence; "" when it can. A probe bound without SO_REUSEPORT, so a
    second memoryhub on the same port is found too (its workers would otherwise share the port with the first)."""
    try:
        family = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0][0]
        with socket.socket(family, socket.SOCK_STREAM) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # a port in TIME_WAIT is free
            probe.bind((host, port))
    except OSError as exc:
        if exc.errno == errno.EADDRINUSE:
            return (f"Port {port} on {host} is already in use (another memoryhub, or another program). Stop it, or "
                    f"serve on another port: MEMORYHUB_BIND={host}:{port + 1} make run")
        return (f"memoryhub cannot listen on {host}:{port}: {exc.strerror or exc}. Set MEMORYHUB_BIND to an address "
                "of this machine.")
    return ""


def answers(host: str, port: int) -> bool:
    """Whether the web server accepts connections yet (a wildcard bind is asked on loopback)."""
    target = {"0.0.0.0": "127.0.0.1", "::": "::1"}.get(host, host)
    try:
        with socket.create_connection((target, port), timeout=0.5):
            return True
    except OSError:
        return False
