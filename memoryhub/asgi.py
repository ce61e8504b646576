"""ASGI entry point (gunicorn -k uvicorn_worker.UvicornWorker memoryhub.asgi:application): /mcp to MCP, the rest to Django."""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memoryhub.settings")
django_app = get_asgi_application()  # sets Django up before the MCP app imports models

from memoryhub.mcp.app import McpApp  # noqa: E402

mcp_app = McpApp()


async def application(scope, receive, send):
    """Route by path; lifespan events go to the MCP app (Django's handler has none)."""
    if scope["type"] == "lifespan" or scope.get("path", "").rstrip("/") == "/mcp":
        await mcp_app(scope, receive, send)
    else:
        await django_app(scope, receive, send)
