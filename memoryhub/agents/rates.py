"""Per-token request counts in fixed one-minute windows, kept off the database.

Every agent call is counted, so the count must cost next to nothing and must not take SQLite's
one write lock (a read would then wait behind every write). Two places keep it:

- **One machine** (the default): a small table in a file beside the data (`state/rate-windows`,
  64 KiB, 4,096 slots of token key, minute and count). Every web process of the machine reads and
  bumps a slot in place under an `flock`, so the processes share one budget; a call costs a few
  microseconds. A token's slot is found by its key (from the token's
  hash, so a deleted and re-created token never inherits a count) with a short linear probe; a
  slot of an earlier minute is free. Should more tokens than the probe holds collide within one
  minute, the extra ones are counted in the process alone (logged): the limit then holds per
  process rather than not at all.
- **Several machines**: with `REDIS_URL` set, one `INCR` + `EXPIRE` on Redis (which django-q2
  already uses) per call, so the limit holds across web nodes. If Redis cannot be reached the
  call is counted on the machine instead (logged), so an outage degrades the limit, not the API.
"""

from __future__ import annotations

import errno
import logging
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
    """The windows every process of this machine shares through one small file, read and written in place.

    Plain `pread`/`pwrite` under the flock, not a memory map: a mapped file that someone truncates, or
    whose pages cannot be allocated on a full disk, kills the process touching it with SIGBUS. A file
    found short is extended again (its missing slots read as free), one that was replaced or deleted is
    reopened, and the file's blocks are reserved when it is made, so a full disk never fails a count later."""

    def __init__(self):
        self._lock = threading.Lock()
        self._file: tuple[int, str, int] | None = None  # (process id, path, descriptor)
        self._checked = 0.0  # when the path last named our file (monotonic)
        self._alone: dict[tuple[int, int], int] = {}  # (key, minute) -> count, when the file cannot count it

    def count(self, key: int, minute: int) -> int:
        minute &= 0xFFFFFFFF
        with self._lock:
            try:
                descriptor = self._descriptor()
                if descriptor is None:
                    return self._count_alone(key, minute)
                fcntl.flock(descriptor, fcntl.LOCK_EX)
                try:
                    counted = self._bump(descriptor, key, minute)
                finally:
                    fcntl.flock(descriptor, fcntl.LOCK_UN)
            except OSError as exc:  # a full disk, a state dir gone: the limit holds per process meanwhile
                log.warning("rate windows: %s; counting in this process", exc)
                self._forget()
                return self._count_alone(key, minute)
            if counted is None:
                log.warning("rate windows: no free slot for a token this minute; counting it in this process")
                return self._count_alone(key, minute)
            return counted

    @staticmethod
    def _bump(descriptor: int, key: int, minute: int) -> int | None:
        start = key % SLOTS
        first = min(PROBE, SLOTS - start)
        window = b""
        for offset, slots in ((start, first), (0, PROBE - first)):  # the probe wraps round the table's end
            part = os.pread(descriptor, slots * SLOT.size, offset * SLOT.size) if slots else b""
            if len(part) < slots * SLOT.size:  # someone truncated the file: what is missing counts as free
                _allocate(descriptor)
                part = part.ljust(slots * SLOT.size, b"\0")
            window += part
        free = None
        for step in range(PROBE):
            held, at, calls = SLOT.unpack_from(window, step * SLOT.size)
            offset = ((start + step) % SLOTS) * SLOT.size
            if held == key:
                calls = calls + 1 if at == minute else 1
                os.pwrite(descriptor, SLOT.pack(key, minute, calls), offset)
                return calls
            if free is None and (held == 0 or at != minute):
                free = offset
        if free is None:
            return None
        os.pwrite(descriptor, SLOT.pack(key, minute, 1), free)
        return 1

    def _count_alone(self, key: int, minute: int) -> int:
        if len(self._alone) > 10_000:
            self._alone = {k: v for k, v in self._alone.items() if k[1] == minute}
        self._alone[(key, minute)] = self._alone.get((key, minute), 0) + 1
        return self._alone[(key, minute)]

    def _descriptor(self) -> int | None:
        """This process's descriptor of the file (a forked child opens its own), or None off POSIX.

        Once a second it checks that the path still names that file: one deleted or replaced under a
        running hub would otherwise leave this process counting alone in a file nobody else opens."""
        if fcntl is None:
            return None
        path = str(settings.STATE_DIR / "rate-windows")
        now = time.monotonic()
        if self._file is not None and self._file[:2] == (os.getpid(), path) and now - self._checked > 1.0:
            try:
                replaced = os.stat(path).st_ino != os.fstat(self._file[2]).st_ino
            except FileNotFoundError:
                replaced = True
            if replaced:
                self._forget()
            self._checked = now
        if self._file is None or self._file[:2] != (os.getpid(), path):
            self._forget()
            descriptor = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
            try:
                if os.fstat(descriptor).st_size < SLOTS * SLOT.size:
                    fcntl.flock(descriptor, fcntl.LOCK_EX)
                    try:
                        _allocate(descriptor)
                    finally:
                        fcntl.flock(descriptor, fcntl.LOCK_UN)
            except BaseException:
                os.close(descriptor)
                raise
            self._file, self._checked = (os.getpid(), path, descriptor), now
        return self._file[2]

    def _forget(self) -> None:
        if self._file is not None and self._file[0] == os.getpid():
            os.close(self._file[2])
        self._file = None


def _allocate(descriptor: int) -> None:
    """The file at its full size with its blocks reserved (zeros: every slot free); call under the flock."""
    if os.fstat(descriptor).st_size < SLOTS * SLOT.size:
        os.ftruncate(descriptor, SLOTS * SLOT.size)
    if hasattr(os, "posix_fallocate"):
        try:
            os.posix_fallocate(descriptor, 0, SLOTS * SLOT.size)
        except OSError as exc:
            if exc.errno not in (errno.EOPNOTSUPP, errno.EINVAL):  # a file system without it: sparse is all we get
                raise


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
