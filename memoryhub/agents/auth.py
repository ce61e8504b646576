"""Which token a call carries, and whether it is over its rate limit (the same for /api/v1 and /mcp)."""

from __future__ import annotations

import time
from datetime import timedelta

from django.conf import settings
from django.db import connection
from django.utils import timezone

from memoryhub.agents.models import ApiToken, RateWindow, hash_token
from memoryhub.core.errors import ApiError


def authenticate(authorization: str) -> ApiToken:
    """The live token of an `Authorization: Bearer …` header value; raises unauthorized."""
    scheme, _, raw = authorization.partition(" ")
    if scheme.lower() != "bearer" or not raw.strip():
        raise ApiError("unauthorized", "missing bearer token: send Authorization: Bearer <token>")
    found = ApiToken.objects.raw(f"SELECT * FROM {ApiToken._meta.db_table} WHERE token_hash = %s AND revoked_at IS NULL",
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


def admit(authorization: str) -> ApiToken:
    """What every agent call passes first: a live token within its rate limit."""
    token = authenticate(authorization)
    rate_limit(token)
    return token
