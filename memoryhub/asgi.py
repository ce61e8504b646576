"""ASGI entry point (gunicorn -k uvicorn_worker.UvicornWorker memoryhub.asgi:application): /mcp to MCP, the rest to Django.

Django runs as a WSGI app on a fixed pool of threads (a2wsgi). Django's own ASGI handler
starts a new thread for every request, so every request opened and closed its own database
connection; pool threads keep theirs (CONN_MAX_AGE), which is most of a small request's cost.
"""

import os

from a2wsgi import WSGIMiddleware
from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memoryhub.settings")
django_app = WSGIMiddleware(get_wsgi_application(), workers=int(os.environ.get("MEMORYHUB_WEB_THREADS", "4")))

from memoryhub.mcp.app import McpApp  # noqa: E402  (Django must be set up before the MCP app imports models)

mcp_app = McpApp()


async def application(scope, receive, send):
    """Route by path; lifespan events go to the MCP app (Django has none)."""
    if scope["type"] == "lifespan" or scope.get("path", "").rstrip("/") == "/mcp":
        await mcp_app(scope, receive, send)
    else:
        await django_app(scope, receive, send)
