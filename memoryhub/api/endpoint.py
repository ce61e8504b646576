"""The decorator every API view wears: token auth, body limits, JSON parsing, one error shape."""

from __future__ import annotations

import json
import logging
import time
from dataclasses import dataclass, field
from datetime import timedelta
from functools import cached_property, wraps
from typing import Any, Callable

from django.conf import settings
from django.core.exceptions import RequestDataTooBig
from django.db import connection
from django.http import HttpRequest, JsonResponse
from django.utils import timezone
from django.views.decorators.csrf import csrf_exempt

from memoryhub.core import sql
from memoryhub.api.errors import ApiError, bad
from memoryhub.api.models import AgentSession, ApiToken, RateWindow, hash_token
from memoryhub.vault.grants import end_if_idle
from providers.base import ProviderError

log = logging.getLogger(__name__)
MAX_BODY = 1024 * 1024
MAX_DEPTH = 32
SEEN_FOR = 20  # seconds a process trusts its own refresh of a session (the stored clock moves every 30 s)
_seen_sessions: dict[tuple[int, str], float] = {}  # (token id, session id) -> when this process refreshed it


@dataclass
class Call:
    """One authenticated API call: who is calling and with what."""

    token: ApiToken
    body: dict[str, Any] = field(default_factory=dict)

    @property
    def origin(self) -> str:
        return self.token.origin

    @property
    def actor(self) -> str:
        return self.token.actor

    @cached_property
    def restricted_to(self) -> list[int]:
        """Ids of the spaces the token is limited to; empty when it may use all."""
        through = ApiToken.spaces.through._meta.db_table
        return [pk for (pk,) in sql.rows(f"SELECT memoryspace_id FROM {through} WHERE apitoken_id = %s", [self.token.pk])]

    def touch_session(self, session_id: str) -> None:
        """Keep the session alive, skipping the database when this process refreshed it moments ago.

        For a turn, which needs no session row: looking it up cost a tenth of the turn."""
        refreshed = _seen_sessions.get((self.token.pk, session_id))
        if refreshed is None or time.monotonic() - refreshed > SEEN_FOR:
            self.session(session_id)

    def session(self, session_id: str) -> AgentSession:
        """The agent session, created on first sight; refreshes its idle clock (after ending idle vault grants)."""
        if len(_seen_sessions) > 10_000:
            _seen_sessions.clear()
        _seen_sessions[(self.token.pk, session_id)] = time.monotonic()
        now = timezone.now()
        session, created = AgentSession.objects.get_or_create(token=self.token, session_id=session_id)
        if not created and (now - session.last_seen_at) > timedelta(seconds=30):
            end_if_idle(session, now)
            AgentSession.objects.filter(pk=session.pk).update(last_seen_at=now)
        return session


def authenticate(request: HttpRequest) -> ApiToken:
    header = request.headers.get("Authorization", "")
    scheme, _, raw = header.partition(" ")
    if scheme.lower() != "bearer" or not raw.strip():
        raise ApiError("unauthorized", "missing bearer token: send Authorization: Bearer <token>")
    found = ApiToken.objects.raw("SELECT * FROM api_apitoken WHERE token_hash = %s AND revoked_at IS NULL",
                                 [hash_token(raw.strip())])  # every call runs this: no ORM query building
    token = next(iter(found), None)
    if token is None:
        raise ApiError("unauthorized", "invalid or revoked token")
    now = timezone.now()
    if token.last_used_at is None or now - token.last_used_at > timedelta(minutes=1):
        ApiToken.objects.filter(pk=token.pk).update(last_used_at=now)
    return token


def rate_limit(token: ApiToken) -> None:
    """A fixed one-minute window per token; over the limit → 429 with Retry-After.

    One upsert counts the call and returns the count, atomically across web processes
    (SQLite ≥ 3.35 and PostgreSQL both speak ON CONFLICT … RETURNING).
    """
    limit = settings.MEMORYHUB["RATE_LIMIT_PER_MINUTE"]
    if limit <= 0:
        return
    now = time.time()
    minute = int(now // 60)
    table = RateWindow._meta.db_table
    with connection.cursor() as cur:
        cur.execute(f"INSERT INTO {table} (token_id, minute, count) VALUES (%s, %s, 1) "
                    f"ON CONFLICT (token_id, minute) DO UPDATE SET count = {table}.count + 1 RETURNING count",
                    [token.pk, minute])
        count = cur.fetchone()[0]
        if count == 1:  # the token's first call this minute clears its older windows
            cur.execute(f"DELETE FROM {table} WHERE token_id = %s AND minute < %s", [token.pk, minute])
    if count > limit:
        raise ApiError("rate_limited", f"more than {limit} requests this minute",
                       headers={"Retry-After": str(60 - int(now) % 60)})


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
                    token = authenticate(request)
                    rate_limit(token)
                    call = Call(token, parse_body(request) if request.method == "POST" else {})
                    result = view(request, call, *args, **kwargs)
                else:
                    result = view(request, *args, **kwargs)
                status = 200
                if isinstance(result, tuple):
                    result, status = result
                return JsonResponse(result, status=status, json_dumps_params={"ensure_ascii": False})
            except ApiError as exc:
                return exc.response()
            except ProviderError as exc:
                code = "provider_timeout" if exc.timeout else "provider_error"
                return ApiError(code, exc.message).response()
            except Exception:  # never a stack trace to a client
                log.exception("unhandled error in %s", request.path)
                return ApiError("internal", "internal error; the hub's log has details").response()

        return wrapper

    return decorate
