"""RedisCache: the scaled-out cache backend, shared by every API replica and worker.

Redis expires the entries itself (SET … PX), so a hit never returns a stale value. A sorted
set indexes the keys by write time: it counts the entries (members older than the TTL are
pruned first) and names the oldest to evict past `max_entries`. Hit and miss counters live in
a Redis hash, so the stats are those of the whole deployment.

When Redis stops answering (`RedisOutage`), searches go on uncached rather than failing (a
cache of this replica's own would answer differently from its peers): a warning is logged
once, `/readyz` and `/v1/info` say so, and Redis is tried again after a cooldown.
"""

from __future__ import annotations

import logging
import time
from typing import Any, TypeVar

from ...backends.redis import (
    COMMAND_TIMEOUT_SECONDS,
    CONNECT_TIMEOUT_SECONDS,
    RedisOutage,
    redis_errors,
)
from .model import CacheStats, Clock

__all__ = ["RedisCache"]

log = logging.getLogger(__name__)
T = TypeVar("T")


class RedisCache:
    """Cache entries as Redis strings under `prefix`, indexed by a sorted set."""

    def __init__(
        self,
        url: str,
        *,
        ttl: float,
        max_entries: int,
        clock: Clock = time.time,
        prefix: str = "netsift:cache:",
    ) -> None:
        import redis.asyncio

        # from_url only parses; the first command opens the connection.
        self._redis: Any = redis.asyncio.Redis.from_url(
            url,
            socket_connect_timeout=CONNECT_TIMEOUT_SECONDS,
            socket_timeout=COMMAND_TIMEOUT_SECONDS,
        )
        self._errors = redis_errors()
        self.outage = RedisOutage("the search cache", "searches go uncached")
        self.ttl = ttl
        self.max_entries = max_entries
        self._clock = clock
        self._prefix = prefix
        self._index = f"{prefix}index"
        self._counters = f"{prefix}stats"

    def _entry(self, key: str) -> str:
        return f"{self._prefix}entry:{key}"

    @property
    def degraded(self) -> str | None:
        return self.outage.degraded

    async def get(self, key: str) -> str | None:
        if self.outage.active:
            return None
        try:
            value = await self._shared_get(key)
        except self._errors as exc:
            self.outage.trip(exc)
            return None
        self.outage.heal()
        return value

    async def set(self, key: str, value: str) -> None:
        if self.outage.active:
            return
        try:
            await self._shared_set(key, value)
        except self._errors as exc:
            self.outage.trip(exc)

    async def stats(self) -> CacheStats:
        if not self.outage.active:
            try:
                return await self._shared_stats()
            except self._errors as exc:
                self.outage.trip(exc)
        return CacheStats("redis (down)", 0, 0, 0, self.max_entries, self.ttl)

    async def _shared_get(self, key: str) -> str | None:
        value = await self._redis.get(self._entry(key))
        await self._redis.hincrby(self._counters, "misses" if value is None else "hits", 1)
        return None if value is None else bytes(value).decode()

    async def _shared_set(self, key: str, value: str) -> None:
        now = self._clock()
        ttl_ms = max(1, round(self.ttl * 1000))
        async with self._redis.pipeline(transaction=True) as pipe:
            pipe.set(self._entry(key), value, px=ttl_ms)
            pipe.zadd(self._index, {key: now})
            pipe.zremrangebyscore(self._index, "-inf", now - self.ttl)
            pipe.zcard(self._index)
            *_, count = await pipe.execute()
        if count > self.max_entries:
            evicted = await self._redis.zpopmin(self._index, count - self.max_entries)
            if evicted:
                await self._redis.delete(*(self._entry(bytes(k).decode()) for k, _ in evicted))

    async def _shared_stats(self) -> CacheStats:
        now = self._clock()
        async with self._redis.pipeline(transaction=True) as pipe:
            pipe.zremrangebyscore(self._index, "-inf", now - self.ttl)
            pipe.zcard(self._index)
            pipe.hmget(self._counters, "hits", "misses")
            _, entries, (hits, misses) = await pipe.execute()
        return CacheStats(
            "redis", int(hits or 0), int(misses or 0), int(entries), self.max_entries, self.ttl
        )

    async def clear(self) -> None:
        """Drop every entry and counter under this cache's prefix (and nothing else)."""
        keys = [key async for key in self._redis.scan_iter(match=f"{self._prefix}*")]
        if keys:
            await self._redis.delete(*keys)

    async def aclose(self) -> None:
        await self._redis.aclose()
