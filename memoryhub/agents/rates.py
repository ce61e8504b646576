"""Per-token request counts in fixed one-minute windows, kept off the database.

Every agent call is counted, so the count must cost next to nothing and must not take SQLite's
one write lock (a read would then wait behind every write). Two places keep it:

- **One machine** (the default): a small table in a memory-mapped file beside the data
  (`state/rate-windows`, 64 KiB, 4,096 slots of token key, minute and count). Every web process
  of the machine maps the same file and bumps a slot under an `flock`, so the processes share one
  budget; a call costs a few microseconds. A token's slot is found by its key (from the token's
  hash, so a deleted and re-created token never inherits a count) with a short linear probe; a
  slot of an earlier minute is free. Should more tokens than the probe holds collide within one
  minute, the extra ones are counted in the process alone (logged): the limit then holds per
  process rather than not at all.
- **Several machines**: with `REDIS_URL` set, one `INCR` + `EXPIRE` on Redis (which django-q2
  already uses) per call, so the limit holds across web nodes. If Redis cannot be reached the
  call is counted on the machine instead (logged), so an outage degrades the limit, not the API.
"""

from __future__ import annotations

import logging
import mmap
import os
import struct
import threading
import time

from django.conf import settings

try:
    import fcntl
except ImportError:  # not POSIX: each process counts alone
    fcntl = None

log = logging.getLogger(__name__)

SLOT = struct.Struct("<QII")  # token key, minute since the epoch (mod 2**32), count
SLOTS = 4096
PROBE = 32
REDIS_TIMEOUT = 0.5  # seconds; a slower Redis counts the call on the machine instead


def token_key(token_hash: str) -> int:
    """A token's key in the windows: 63 bits of its stored hash (never 0, which marks a free slot)."""
    return (int(token_hash[:16], 16) >> 1) or 1


def count(key: int, now: float | None = None) -> int:
    """Count one call of the token `key` in the current minute; returns the calls so far this minute."""
    minute = int((time.time() if now is None else now) // 60)
    if settings.REDIS_URL:
        counted = _redis_count(key, minute)
        if counted is not None:
            return counted
    return _machine.count(key, minute)


class MachineWindows:
    """The windows every process of this machine shares through one memory-mapped file."""

    def __init__(self):
        self._lock = threading.Lock()
        self._map: tuple[int, str, mmap.mmap, int] | None = None  # (process id, path, map, descriptor)
        self._alone: dict[tuple[int, int], int] = {}  # (key, minute) -> count, when the table has no room

    def count(self, key: int, minute: int) -> int:
        minute &= 0xFFFFFFFF
        with self._lock:
            shared = self._mapped()
            if shared is None:
                return self._count_alone(key, minute)
            view, descriptor = shared
            fcntl.flock(descriptor, fcntl.LOCK_EX)
            try:
                counted = self._bump(view, key, minute)
            finally:
                fcntl.flock(descriptor, fcntl.LOCK_UN)
            if counted is None:
                log.warning("rate windows: no free slot for a token this minute; counting it in this process")
                return self._count_alone(key, minute)
            return counted

    @staticmethod
    def _bump(view: mmap.mmap, key: int, minute: int) -> int | None:
        start = key % SLOTS
        free = None
        for step in range(PROBE):
            offset = ((start + step) % SLOTS) * SLOT.size
            held, at, calls = SLOT.unpack_from(view, offset)
            if held == key:
                calls = calls + 1 if at == minute else 1
                SLOT.pack_into(view, offset, key, minute, calls)
                return calls
            if free is None and (held == 0 or at != minute):
                free = offset
        if free is None:
            return None
        SLOT.pack_into(view, free, key, minute, 1)
        return 1

    def _count_alone(self, key: int, minute: int) -> int:
        if len(self._alone) > 10_000:
            self._alone = {k: v for k, v in self._alone.items() if k[1] == minute}
        self._alone[(key, minute)] = self._alone.get((key, minute), 0) + 1
        return self._alone[(key, minute)]

    def _mapped(self) -> tuple[mmap.mmap, int] | None:
        """This process's map of the file (a forked child maps its own), or None off POSIX."""
        if fcntl is None:
            return None
        path = str(settings.STATE_DIR / "rate-windows")
        if self._map is None or self._map[:2] != (os.getpid(), path):
            if self._map is not None and self._map[0] == os.getpid():
                self._map[2].close()
                os.close(self._map[3])
            descriptor = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
            if os.fstat(descriptor).st_size < SLOTS * SLOT.size:
                fcntl.flock(descriptor, fcntl.LOCK_EX)
                try:
                    if os.fstat(descriptor).st_size < SLOTS * SLOT.size:
                        os.ftruncate(descriptor, SLOTS * SLOT.size)  # zero-filled: every slot free
                finally:
                    fcntl.flock(descriptor, fcntl.LOCK_UN)
            self._map = (os.getpid(), path, mmap.mmap(descriptor, SLOTS * SLOT.size), descriptor)
        return self._map[2], self._map[3]


_machine = MachineWindows()
_redis: tuple[str, object] | None = None  # (url, client)


def _redis_count(key: int, minute: int) -> int | None:
    """The count on Redis, or None when Redis did not answer (the machine counts the call then)."""
    global _redis
    import redis

    if _redis is None or _redis[0] != settings.REDIS_URL:
        _redis = (settings.REDIS_URL, redis.Redis.from_url(settings.REDIS_URL, socket_timeout=REDIS_TIMEOUT,
                                                           socket_connect_timeout=REDIS_TIMEOUT))
    name = f"memoryhub:rate:{key:x}:{minute}"
    try:
        pipe = _redis[1].pipeline(transaction=False)
        pipe.incr(name)
        pipe.expire(name, 120)
        calls, _ = pipe.execute()
        return int(calls)
    except redis.RedisError as exc:
        log.warning("rate windows: Redis did not answer (%s); counting on this machine", exc)
        return None
