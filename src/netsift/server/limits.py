"""Per-client limits of the HTTP server: a request rate and a search quota (`limits` library).

The rate limit (`NETSIFT_SERVER_RATE_LIMIT`, every API request) keeps one client from
starving the others; the quota (`NETSIFT_SERVER_SEARCH_QUOTA`, searches, a batch counting
each of its queries) is what a host sells or budgets. Both answer 429 with `Retry-After`.
Windows live in memory, or in Redis when `REDIS_URL` is set, so every replica and worker
counts the same client against the same window.
"""

from __future__ import annotations

import math
import time
from typing import Any

from limits import RateLimitItem, parse_many
from limits.aio.storage import Storage
from limits.aio.strategies import MovingWindowRateLimiter
from limits.storage import storage_from_string

from ..config import Settings
from ..errors import InvalidInput, QuotaExceeded, RateLimited

__all__ = ["ClientLimits"]

_NAMESPACE = "netsift-server"


def _parse(limit: str | None, setting: str) -> list[RateLimitItem]:
    if not limit:
        return []
    try:
        return parse_many(limit)
    except ValueError as exc:
        raise InvalidInput(
            f"{setting} must be in `limits` notation, e.g. 600/minute or 1000/day, not {limit!r}"
        ) from exc


class ClientLimits:
    """Moving windows per client id: `hit_request` for every call, `spend_searches` for quota."""

    def __init__(
        self, *, rate_limit: str | None, search_quota: str | None, storage_url: str = "memory://"
    ) -> None:
        self.rate_limit = rate_limit or None
        self.search_quota = search_quota or None
        self._rate = _parse(rate_limit, "NETSIFT_SERVER_RATE_LIMIT")
        self._quota = _parse(search_quota, "NETSIFT_SERVER_SEARCH_QUOTA")
        self._pool: Any = None
        self._storage = self._open(storage_url)
        self._strategy = MovingWindowRateLimiter(self._storage)

    @classmethod
    def from_settings(cls, settings: Settings) -> ClientLimits:
        return cls(
            rate_limit=settings.server_rate_limit,
            search_quota=settings.server_search_quota,
            storage_url=settings.redis_url or "memory://",
        )

    def _open(self, url: str) -> Storage:
        if url.startswith(("redis://", "rediss://")):
            import redis.asyncio

            self._pool = redis.asyncio.ConnectionPool.from_url(url)
            storage = storage_from_string(
                f"async+{url}", implementation="redispy", connection_pool=self._pool
            )
        else:
            storage = storage_from_string("async+memory://")
        assert isinstance(storage, Storage)
        return storage

    async def hit_request(self, client_id: str) -> None:
        """Count one API request for `client_id`; raises RateLimited when the window is full."""
        for item in self._rate:
            if not await self._strategy.hit(item, _NAMESPACE, "rate", client_id):
                wait = await self._wait(item, "rate", client_id)
                raise RateLimited(
                    f"too many requests from this client (limit {self.rate_limit}); "
                    f"retry in {wait}s",
                    retry_after=wait,
                    details={"limit": self.rate_limit, "scope": "client"},
                )

    async def spend_searches(self, client_id: str, count: int) -> None:
        """Take `count` searches from the client's quota, all or none; raises QuotaExceeded."""
        for item in self._quota:
            if not await self._strategy.test(item, _NAMESPACE, "quota", client_id, cost=count):
                wait = await self._wait(item, "quota", client_id)
                raise QuotaExceeded(
                    f"this client's search quota ({self.search_quota}) does not cover "
                    f"{count} more search{'es' if count != 1 else ''}; retry in {wait}s",
                    details={"retry_after": wait, "limit": self.search_quota, "requested": count},
                    retryable=True,
                )
        for item in self._quota:
            await self._strategy.hit(item, _NAMESPACE, "quota", client_id, cost=count)

    async def _wait(self, item: RateLimitItem, *keys: str) -> int:
        stats = await self._strategy.get_window_stats(item, _NAMESPACE, *keys)
        return max(1, math.ceil(stats.reset_time - time.time()))

    async def reset(self) -> None:
        await self._storage.reset()

    async def aclose(self) -> None:
        if self._pool is not None:
            await self._pool.aclose()
            self._pool = None
