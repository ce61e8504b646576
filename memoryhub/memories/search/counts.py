"""Document counts of words, reused for a while.

Counting how many entries hold a word reads the word's whole posting list (FTS5) or visits every
matching row (PostgreSQL): milliseconds for a frequent word, and a search needs several. Counts
of frequent words move slowly relative to their size, so they are kept for `ttl` seconds; rare
words, cheap to count and where one more entry matters, are counted every time.
"""

from __future__ import annotations

import time
from typing import Callable


class ReusedCounts:
    def __init__(self, ttl: float = 120, size: int = 20_000):
        self.ttl, self.size = ttl, size
        self._kept: dict[str, tuple[float, int]] = {}  # word -> (when counted, entries holding it)

    def get(self, words: list[str], count: Callable[[list[str]], dict[str, int]], keep_from: int) -> dict[str, int]:
        """Counts of `words`; those not kept are counted with `count`, and kept when at least `keep_from`."""
        now = time.monotonic()
        found = {w: hit[1] for w in words if (hit := self._kept.get(w)) and now - hit[0] < self.ttl}
        missing = [w for w in words if w not in found]
        if missing:
            fresh = count(missing)
            if len(self._kept) > self.size:
                self._kept.clear()
            self._kept.update((w, (now, n)) for w, n in fresh.items() if n >= keep_from)
            found.update(fresh)
        return found

    def clear(self) -> None:
        self._kept.clear()
