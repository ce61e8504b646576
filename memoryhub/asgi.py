"""ASGI entry point (gunicorn -k uvicorn_worker.UvicornWorker memoryhub.asgi:application): /mcp to MCP, the rest to Django.

Django runs as a WSGI app on a fixed pool of threads (a2wsgi). Django's own ASGI handler
starts a new thread for every request, so every request opened and closed its own database
connection; pool threads keep theirs (CONN_MAX_AGE), which is most of a small request's cost.
"""

import asyncio
import os

from a2wsgi import WSGIMiddleware
from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memoryhub.settings")
THREADS = int(os.environ.get("MEMORYHUB_WEB_THREADS", "4"))
django_app = WSGIMiddleware(get_wsgi_application(), workers=THREADS)

# Requests that may wait for SQLite's one write lock, and how many of the threads they may hold at once.
# Each waits on a request thread; with every thread waiting, a search queued behind them for a free one
# (p95 over 1 s at 100k entries while 8 agents wrote in batches). One thread stays for the reads: GET and
# HEAD, and the operations declared `reads` (their bookkeeping never waits: core/background). Anything
# else (every other API call, every dashboard POST) counts as a write, so a new path is guarded unless its
# operation says it only reads. /mcp needs no guard: each MCP request runs on a thread of its own (mcp/app.py).
from memoryhub.mcp.app import McpApp  # noqa: E402  (Django must be set up before the MCP app imports models)
from memoryhub.operations.registry import read_only_paths  # noqa: E402

READ_PATHS = read_only_paths()
_write_threads: asyncio.Semaphore | None = None


def may_wait_for_writes(scope) -> bool:
    """True for a request that may wait for the write lock on a request thread (see above)."""
    if scope["method"] in ("GET", "HEAD", "OPTIONS"):
        return False
    return scope.get("path", "").rstrip("/") not in READ_PATHS


mcp_app = McpApp()


async def application(scope, receive, send):
    """Route by path; lifespan events go to the MCP app (Django has none)."""
    path = scope.get("path", "").rstrip("/")
    if scope["type"] == "lifespan" or path == "/mcp":
        await mcp_app(scope, receive, send)
    elif scope["type"] == "http" and THREADS > 1 and may_wait_for_writes(scope):
        global _write_threads
        _write_threads = _write_threads or asyncio.Semaphore(THREADS - 1)  # made in the server's event loop
        async with _write_threads:
            await django_app(scope, receive, send)
    else:
        await django_app(scope, receive, send)
