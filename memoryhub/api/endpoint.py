"""The decorator every API view wears: token auth, body limits, JSON parsing, one error shape."""

from __future__ import annotations

from functools import wraps
from typing import Any, Callable

from django.core.exceptions import RequestDataTooBig
from django.http import HttpRequest, JsonResponse
from django.views.decorators.csrf import csrf_exempt

from memoryhub.access.call import Call
from memoryhub.agents.auth import admit
from memoryhub.agents.calls import MAX_BODY, api_error
from memoryhub.core import jsonin
from memoryhub.core.errors import ApiError, bad


def parse_body(request: HttpRequest) -> dict[str, Any]:
    declared = request.META.get("CONTENT_LENGTH") or "0"
    if not (declared.isascii() and declared.isdigit()):
        raise bad("Content-Length must be a number of bytes")
    if int(declared) > MAX_BODY:
        raise ApiError("too_large", f"request body is over {MAX_BODY} bytes")
    try:
        raw = request.body
    except RequestDataTooBig as exc:
        raise ApiError("too_large", f"request body is over {MAX_BODY} bytes") from exc
    if len(raw) > MAX_BODY:
        raise ApiError("too_large", f"request body is over {MAX_BODY} bytes")
    if not raw.strip():
        return {}
    data = jsonin.loads(raw, skip=("arguments",))  # a tool call's errors name the argument
    if not isinstance(data, dict):
        raise bad("body must be a JSON object")
    return data


def known_fields(body: dict, fields: tuple[str, ...]) -> None:
    """docs/api.md: an unknown body field is a 400 naming it, never silently dropped."""
    for key in body:
        if key not in fields:
            raise bad(f"unknown field {key!r}; this endpoint takes: {', '.join(fields) or 'no body'}", key)


def endpoint(*methods: str, auth: bool = True, fields: tuple[str, ...] = ()) -> Callable:
    """Wrap a view `(request, call, **kwargs) -> dict | (dict, status)` in the API's rules.

    `fields` are the body fields a POST may carry."""

    def decorate(view: Callable) -> Callable:
        @csrf_exempt
        @wraps(view)
        def wrapper(request: HttpRequest, *args: Any, **kwargs: Any) -> JsonResponse:
            try:
                if request.method not in methods:
                    raise bad(f"{request.method} is not allowed here; use {' or '.join(methods)}")
                if auth:
                    token = admit(request.headers.get("Authorization", ""))
                    call = Call(token, parse_body(request) if request.method == "POST" else {})
                    known_fields(call.body, fields)
                    result = view(request, call, *args, **kwargs)
                else:
                    result = view(request, *args, **kwargs)
                status = 200
                if isinstance(result, tuple):
                    result, status = result
                return JsonResponse(result, status=status, json_dumps_params={"ensure_ascii": False})
            except Exception as exc:  # never a stack trace to a client
                return api_error(exc, request.path).response()

        return wrapper

    return decorate
