"""The search cache: a Protocol and its backends, chosen by URL.

    memory://              in-process; LRU; gone with the process
    sqlite:///path         embedded default (user data dir); survives restarts; shared by
                           processes on one machine (sqlite_cache.py)
    redis://host:port/db   scaled out: every replica shares it (redis_cache.py)

Values are text (the service stores SearchResponse JSON) so every backend stores the same
bytes, and a response read back is exactly the response written. Keys come from `cache_key`,
which normalizes the query so "Rust  Async" and "rust async" share one entry. Entries expire
after `ttl` seconds and the oldest are evicted past `max_entries`.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from typing import Any, Protocol

from ..errors import InvalidInput

__all__ = [
    "Cache",
    "CacheStats",
    "MemoryCache",
    "cache_key",
    "normalize_query",
    "open_cache",
]

Clock = Callable[[], float]


@dataclass(frozen=True)
class CacheStats:
    """Counters for `netsift providers`, `/v1/info` and tests.

    Hits and misses are this process's for memory and SQLite, every replica's for Redis.
    """

    backend: str
    hits: int
    misses: int
    entries: int
    max_entries: int
    ttl: float

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


class Cache(Protocol):
    """What the search service needs from a cache backend."""

    async def get(self, key: str) -> str | None:
        """The value stored under `key`, or None when absent or expired."""

    async def set(self, key: str, value: str) -> None:
        """Store `value`, expiring after the cache's TTL; may evict the oldest entries."""

    async def stats(self) -> CacheStats: ...

    async def clear(self) -> None: ...

    async def aclose(self) -> None: ...


def normalize_query(query: str) -> str:
    """Casefolded with whitespace collapsed: the form two equal searches share."""
    return " ".join(query.casefold().split())


def cache_key(query: str, *, providers: Sequence[str], **options: Any) -> str:
    """A stable key for one search: normalized query, options and the providers in order.

    Provider order is part of the key because failover order decides who answers. The key is
    a hash, so Redis and SQLite never hold the query text in their key space.
    """
    material = json.dumps(
        {"q": normalize_query(query), "providers": list(providers), **options},
        sort_keys=True,
        separators=(",", ":"),
        ensure_ascii=False,
    )
    return "search:v1:" + hashlib.sha256(material.encode()).hexdigest()


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


def open_cache(url: str, *, ttl: float, max_entries: int, clock: Clock = time.time) -> Cache:
    """The backend for `url`; opening does no I/O (connections are made on first use)."""
    if url.startswith("memory://"):
        return MemoryCache(ttl=ttl, max_entries=max_entries, clock=clock)
    if url.startswith("sqlite://"):
        from .sqlite_cache import SqliteCache

        return SqliteCache(url, ttl=ttl, max_entries=max_entries, clock=clock)
    if url.startswith(("redis://", "rediss://", "unix://")):
        from .redis_cache import RedisCache

        return RedisCache(url, ttl=ttl, max_entries=max_entries, clock=clock)
    raise InvalidInput(
        f"NETSIFT_CACHE_URL must start with memory://, sqlite:/// or redis://, not {url!r}"
    )
