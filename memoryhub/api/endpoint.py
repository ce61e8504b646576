"""The decorator every API view wears: the methods it serves, token auth, the body, one error renderer.

A body is read whole before anything answers: with a Content-Length, or chunked (`Transfer-Encoding:
chunked`, no length), up to MAX_BODY. One over the cap is `413 too_large`, after reading what was sent up
to DRAIN_MAX (a lingering close, RFC 9112 §9.6): a server that answers and closes while the client is still
sending resets the connection, and the client may never see the 413. The JSON is parsed here; its text and
depth are checked by the operation that takes it (so one bad turn of a batch answers alone).
"""

from __future__ import annotations

from functools import wraps
from typing import Any, Callable

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views.decorators.csrf import csrf_exempt

from memoryhub.access.call import Call
from memoryhub.agents.auth import admit
from memoryhub.agents.calls import DRAIN_MAX, MAX_BODY, api_error
from memoryhub.core import jsonin
from memoryhub.core.errors import ApiError, bad, not_allowed

CHUNK = 64 * 1024


def too_large() -> ApiError:
    return ApiError("too_large", f"request body is over {MAX_BODY} bytes")


def drain(stream, limit: int) -> None:
    """Read and drop up to `limit` more bytes of the body."""
    while limit > 0 and (chunk := stream.read(min(CHUNK, limit))):
        limit -= len(chunk)


def read_body(request: HttpRequest) -> bytes:
    declared = request.META.get("CONTENT_LENGTH") or ""
    if not declared and "chunked" in request.META.get("HTTP_TRANSFER_ENCODING", "").lower():
        stream = request.META["wsgi.input"]  # the server has decoded the chunks; Django reads only a length
        raw = b""
        while len(raw) <= MAX_BODY and (chunk := stream.read(CHUNK)):
            raw += chunk
        if len(raw) > MAX_BODY:
            drain(stream, DRAIN_MAX)
            raise too_large()
        return raw
    declared = declared or "0"
    if not (declared.isascii() and declared.isdigit()):
        raise bad("Content-Length must be a number of bytes")
    if int(declared) > MAX_BODY:
        drain(request, min(int(declared), DRAIN_MAX))
        raise too_large()
    return request.body


def parse_body(request: HttpRequest) -> Any:
    raw = read_body(request)
    if not raw.strip():
        return {}
    data = jsonin.loads(raw, checked=False)  # each operation checks its own arguments (operations/base.py)
    if not isinstance(data, dict):
        raise bad("body must be a JSON object")
    return data


def endpoint(*methods: str, auth: bool = True) -> Callable:
    """Wrap a view `(request, call, **kwargs) -> dict | (dict, status)` in the API's rules.

    A method the view does not serve is `405` with `Allow` (a GET view serves HEAD too), before the token."""
    allowed = (*methods, "HEAD") if "GET" in methods and "HEAD" not in methods else methods

    def decorate(view: Callable) -> Callable:
        @csrf_exempt
        @wraps(view)
        def wrapper(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
            try:
                if request.method not in allowed:
                    raise not_allowed(request.method, allowed)
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

        wrapper.methods = allowed  # what the Allow header of a 405 lists
        return wrapper

    return decorate
