"""The hub's one error type, and the one way it is rendered for a caller.

Its JSON shape is docs/api.md's `{"error": {"code", "message", "field"}}`. Every layer may raise it
(the space service refuses a bad slug with it, the dashboard shows its message on the form); every
face renders it with `rendered()` — the agent API's views and Django's error pages for agent paths
(`response()`), the MCP app's HTTP answers, and the API object inside an MCP tool error (`body()`) —
so the status, the headers (`WWW-Authenticate`, `Allow`, `Retry-After`) and the bytes are decided here once.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from django.http import HttpResponse

STATUS = {
    "bad_request": 400, "unauthorized": 401, "forbidden": 403, "paused": 403, "not_found": 404,
    "method_not_allowed": 405, "conflict": 409, "too_large": 413, "unsupported": 422, "rate_limited": 429,
    "internal": 500, "provider_error": 502, "busy": 503, "provider_timeout": 504, "insufficient_storage": 507,
}
JSON = "application/json"


@dataclass(frozen=True)
class Rendered:
    """An error as any HTTP face sends it."""

    status: int
    headers: dict[str, str]
    content: bytes


class ApiError(Exception):
    def __init__(self, code: str, message: str, field: str | None = None, headers: dict | None = None):
        super().__init__(message)
        self.code = code
        self.message = message
        self.field = field
        self.headers = headers or {}
        self.told = None  # the words before they were filled in, for a face that says them in the reader's language

    @property
    def status(self) -> int:
        return STATUS[self.code]

    def as_dict(self) -> dict:
        """The error object of `{"error": …}`."""
        body = {"code": self.code, "message": self.message}
        if self.field:
            body["field"] = self.field
        return body

    def body(self) -> dict:
        return {"error": self.as_dict()}

    def rendered(self) -> Rendered:
        headers = dict(self.headers)
        if self.code == "unauthorized":  # RFC 9110: a 401 names the scheme it wants
            headers.setdefault("WWW-Authenticate", 'Bearer realm="memoryhub"')
        return Rendered(self.status, headers, json.dumps(self.body(), ensure_ascii=False).encode())

    def response(self) -> HttpResponse:
        rendered = self.rendered()
        return HttpResponse(rendered.content, status=rendered.status, headers=rendered.headers, content_type=JSON)


def bad(message: str, field: str | None = None) -> ApiError:
    return ApiError("bad_request", message, field)


def not_allowed(method: str, allowed: tuple[str, ...]) -> ApiError:
    """405 for a method this path does not serve, with the `Allow` header that lists the ones it does."""
    return ApiError("method_not_allowed", f"{method} is not allowed here; use {' or '.join(allowed)}",
                    headers={"Allow": ", ".join(allowed)})
