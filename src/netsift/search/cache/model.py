"""What a search cache is: the protocol its backends keep, its counters and its keys."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from typing import Any, Protocol

__all__ = [
    "Cache",
    "CacheStats",
    "Clock",
    "cache_key",
    "normalize_query",
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
