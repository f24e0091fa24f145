"""The in-process cache: LRU, gone with the process."""

from __future__ import annotations

import time
from collections import OrderedDict

from .model import CacheStats, Clock

__all__ = ["MemoryCache"]


class MemoryCache:
    """In-process LRU with expiry; the fastest hit, lost on restart."""

    def __init__(self, *, ttl: float, max_entries: int, clock: Clock = time.time) -> None:
        self.ttl = ttl
        self.max_entries = max_entries
        self._clock = clock
        self._entries: OrderedDict[str, tuple[float, str]] = OrderedDict()
        self._hits = 0
        self._misses = 0

    async def get(self, key: str) -> str | None:
        found = self._entries.get(key)
        if found is None or found[0] <= self._clock():
            if found is not None:
                del self._entries[key]
            self._misses += 1
            return None
        self._entries.move_to_end(key)
        self._hits += 1
        return found[1]

    async def set(self, key: str, value: str) -> None:
        self._entries[key] = (self._clock() + self.ttl, value)
        self._entries.move_to_end(key)
        while len(self._entries) > self.max_entries:
            self._entries.popitem(last=False)

    async def stats(self) -> CacheStats:
        now = self._clock()
        for key in [k for k, (expires, _) in self._entries.items() if expires <= now]:
            del self._entries[key]
        return CacheStats(
            "memory", self._hits, self._misses, len(self._entries), self.max_entries, self.ttl
        )

    async def clear(self) -> None:
        self._entries.clear()

    async def aclose(self) -> None:
        self._entries.clear()
