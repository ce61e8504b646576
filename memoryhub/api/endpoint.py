"""The decorator every API view wears: token auth, body limits, JSON parsing, one error shape."""

from __future__ import annotations

import json
from functools import wraps
from typing import Any, Callable

from django.core.exceptions import RequestDataTooBig
from django.http import HttpRequest, JsonResponse
from django.views.decorators.csrf import csrf_exempt

from memoryhub.access.call import Call
from memoryhub.agents.auth import admit
from memoryhub.agents.calls import MAX_BODY, api_error
from memoryhub.core.errors import ApiError, bad

MAX_DEPTH = 32


def _depth(value: Any, level: int = 0) -> int:
    if level > MAX_DEPTH:
        return level
    if isinstance(value, dict):
        return max((_depth(v, level + 1) for v in value.values()), default=level + 1)
    if isinstance(value, list):
        return max((_depth(v, level + 1) for v in value), default=level + 1)
    return level


def parse_body(request: HttpRequest) -> dict[str, Any]:
    declared = request.META.get("CONTENT_LENGTH") or "0"
    if declared.isdigit() and int(declared) > MAX_BODY:
        raise ApiError("too_large", f"request body is over {MAX_BODY} bytes")
    try:
        raw = request.body
    except RequestDataTooBig as exc:
        raise ApiError("too_large", f"request body is over {MAX_BODY} bytes") from exc
    if len(raw) > MAX_BODY:
        raise ApiError("too_large", f"request body is over {MAX_BODY} bytes")
    if not raw.strip():
        return {}
    try:
        data = json.loads(raw)
    except (ValueError, RecursionError) as exc:
        raise bad("body is not valid JSON") from exc
    if not isinstance(data, dict):
        raise bad("body must be a JSON object")
    if _depth(data) > MAX_DEPTH:
        raise bad(f"body is nested deeper than {MAX_DEPTH} levels")
    return data


def endpoint(*methods: str, auth: bool = True) -> Callable:
    """Wrap a view `(request, call, **kwargs) -> dict | (dict, status)` in the API's rules."""

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
