"""Which token a call carries, and whether it may go on: not paused, within its rate limit (/api/v1 and /mcp alike).

A call writes nothing to the database here but its token's "last used", at most once a minute and as
bookkeeping (core/background: never waited for, never failing the call). The token row is cached in the
process for `TOKEN_CACHE_SECONDS` (5 by default), so revoking or pausing a token reaches every web process
within that time (at once in the process that did it); the count of calls lives in rates.py.
"""

from __future__ import annotations

import time
from datetime import timedelta

from django.conf import settings
from django.utils import timezone

from memoryhub.agents import rates
from memoryhub.agents.models import ApiToken, hash_token
from memoryhub.core import background
from memoryhub.core.errors import ApiError

LAST_USED_PRECISION = timedelta(minutes=1)  # how stale the "last used" a person sees may get
_cache: dict[str, tuple[float, ApiToken]] = {}  # token hash -> (when it was read, the live token)


def authenticate(authorization: str) -> ApiToken:
    """The live token of an `Authorization: Bearer …` header value; raises unauthorized, or forbidden `paused`."""
    scheme, _, raw = authorization.partition(" ")
    if scheme.lower() != "bearer" or not raw.strip():
        raise ApiError("unauthorized", "missing bearer token: send Authorization: Bearer <token>")
    digest = hash_token(raw.strip())
    cached = _cache.get(digest)
    if cached is not None and time.monotonic() - cached[0] < settings.MEMORYHUB["TOKEN_CACHE_SECONDS"]:
        token = cached[1]
    else:
        token = _read(digest)
    if token.paused_at is not None:
        raise ApiError("paused", "this token is paused; a person can resume it on the dashboard's API tokens page")
    return token


def _read(digest: str) -> ApiToken:
    """The token from the database (and into the cache), its "last used" moved when it is a minute stale."""
    found = ApiToken.objects.raw(f"SELECT * FROM {ApiToken._meta.db_table} WHERE token_hash = %s AND revoked_at IS NULL",
                                 [digest])  # no ORM query building on the hot path
    token = next(iter(found), None)
    if token is None:
        _cache.pop(digest, None)
        raise ApiError("unauthorized", "invalid or revoked token")
    now = timezone.now()
    if token.last_used_at is None or now - token.last_used_at > LAST_USED_PRECISION:
        background.best_effort(_mark_used, token.pk, now)  # never holds up or fails the call
        token.last_used_at = now
    if len(_cache) > 10_000:
        _cache.clear()
    _cache[digest] = (time.monotonic(), token)
    return token


def _mark_used(token_id: int, now) -> None:
    ApiToken.objects.filter(pk=token_id).update(last_used_at=now)


def forget(token: ApiToken) -> None:
    """This process drops its cached copy (any change to the token here); others follow within the cache time."""
    _cache.pop(token.token_hash, None)


def revoke(token: ApiToken) -> bool:
    """Refuse the token for good (401 from then on); False when it was revoked already."""
    return _mark(token, "revoked_at", timezone.now())


def pause(token: ApiToken) -> bool:
    """Refuse the token's calls with 403 `paused` until it is resumed; it keeps its origin, spaces and sessions."""
    return _mark(token, "paused_at", timezone.now())


def resume(token: ApiToken) -> bool:
    return _mark(token, "paused_at", None)


def _mark(token: ApiToken, field: str, value) -> bool:
    """Set a revoke or pause mark where it is not so yet (a revoked token stays revoked); True when it changed."""
    live = ApiToken.objects.filter(pk=token.pk, revoked_at__isnull=True).filter(**{f"{field}__isnull": value is not None})
    changed = bool(live.update(**{field: value}))
    token.refresh_from_db(fields=["paused_at", "revoked_at"])
    forget(token)
    return changed


def rate_limit(token: ApiToken) -> None:
    """A fixed one-minute window per token, shared by the machine's web processes (by every node with Redis);
    over the limit → 429 with Retry-After."""
    limit = settings.MEMORYHUB["RATE_LIMIT_PER_MINUTE"]
    if limit <= 0:
        return
    now = time.time()
    if rates.count(rates.token_key(token.token_hash), now) > limit:
        raise ApiError("rate_limited", f"more than {limit} requests this minute",
                       headers={"Retry-After": str(max(1, 60 - int(now) % 60))})


def admit(authorization: str) -> ApiToken:
    """What every agent call passes first: a live, unpaused token within its rate limit."""
    token = authenticate(authorization)
    rate_limit(token)
    return token
