"""The hub's one error type: what a caller did wrong or what failed, as the agent API answers it.

Its JSON shape is docs/api.md's `{"error": {"code", "message", "field"}}`. Every layer may raise it
(the space service refuses a bad slug with it, the dashboard shows its message on the form); the
faces turn it into their answer (`response()` for HTTP, an MCP tool error for MCP).
"""

from __future__ import annotations

from django.http import JsonResponse

STATUS = {
    "bad_request": 400, "unauthorized": 401, "forbidden": 403, "paused": 403, "not_found": 404, "conflict": 409,
    "too_large": 413, "unsupported": 422, "rate_limited": 429, "internal": 500, "provider_error": 502,
    "busy": 503, "provider_timeout": 504, "insufficient_storage": 507,
}


class ApiError(Exception):
    def __init__(self, code: str, message: str, field: str | None = None, headers: dict | None = None):
        super().__init__(message)
        self.code = code
        self.message = message
        self.field = field
        self.headers = headers or {}

    @property
    def status(self) -> int:
        return STATUS[self.code]

    def as_dict(self) -> dict:
        """The error object of `{"error": …}`."""
        body = {"code": self.code, "message": self.message}
        if self.field:
            body["field"] = self.field
        return body

    def response(self) -> JsonResponse:
        response = JsonResponse({"error": self.as_dict()}, status=self.status)
        for key, value in self.headers.items():
            response[key] = value
        return response


def bad(message: str, field: str | None = None) -> ApiError:
    return ApiError("bad_request", message, field)
