"""Per-client limits of the HTTP server: a request rate and a search quota (`limits` notation).

The rate limit (`NETSIFT_SERVER_RATE_LIMIT`, every API request) keeps one client from
starving the others; the quota (`NETSIFT_SERVER_SEARCH_QUOTA`, searches, a batch counting
each of its queries) is what a host sells or budgets. Both answer 429 with `Retry-After`.
Both are moving windows. They live in Redis when `REDIS_URL` is set (the `limits` library),
so every replica and worker counts the same client against the same window; otherwise in
this process (`LocalWindows`), which checks a request without a thread hop or a lock: the
`limits` in-memory storage hands its expiry sweep to a worker thread on nearly every hit,
which cost more than the cached search the request was for.
"""

from __future__ import annotations

import math
import time
from collections import deque
from collections.abc import Awaitable, Callable
from typing import Any, Protocol, TypeVar

from limits import RateLimitItem, parse_many
from limits.aio.storage import Storage
from limits.aio.strategies import MovingWindowRateLimiter
from limits.storage import storage_from_string

from ..backends.redis import (
    COMMAND_TIMEOUT_SECONDS,
    CONNECT_TIMEOUT_SECONDS,
    RedisOutage,
    redis_errors,
)
from ..config import Settings
from ..errors import InvalidInput, QuotaExceeded, RateLimited

T = TypeVar("T")

__all__ = ["ClientLimits", "LocalWindows"]

_NAMESPACE = "netsift-server"
_LIMITS_REDIS_PREFIX = "LIMITS"  # what the `limits` library puts before its keys in Redis


def _parse(limit: str | None, setting: str) -> list[RateLimitItem]:
    if not limit:
        return []
    try:
        return parse_many(limit)
    except ValueError as exc:
        raise InvalidInput(
            f"{setting} must be in `limits` notation, e.g. 600/minute or 1000/day, not {limit!r}"
        ) from exc


class Windows(Protocol):
    """Moving windows: `hit` takes `cost` if it fits, `test` only asks, `wait` says when."""

    async def hit(self, item: RateLimitItem, *keys: str, cost: int = 1) -> bool: ...

    async def test(self, item: RateLimitItem, *keys: str, cost: int = 1) -> bool: ...

    async def wait(self, item: RateLimitItem, *keys: str) -> int: ...

    async def give_back(self, item: RateLimitItem, *keys: str, cost: int = 1) -> None:
        """Undo the newest `cost` hits (taken for work that never ran)."""
        ...

    async def reset(self) -> None: ...


class LocalWindows:
    """Moving windows in this process: per key, the times of the hits still inside it.

    Each key's deque is pruned when the key is used, so a check is O(expired hits); keys
    nobody used for a whole window are dropped every `SWEEP_EVERY` hits.
    """

    SWEEP_EVERY = 4096

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._hits: dict[str, deque[float]] = {}
        self._span: dict[str, float] = {}
        self._since_sweep = 0

    def _window(self, item: RateLimitItem, keys: tuple[str, ...]) -> tuple[deque[float], float]:
        key = item.key_for(*keys)
        now = self._clock()
        hits = self._hits.get(key)
        if hits is None:
            hits = self._hits[key] = deque()
            self._span[key] = item.get_expiry()
        cutoff = now - item.get_expiry()
        while hits and hits[0] < cutoff:
            hits.popleft()
        return hits, now

    async def hit(self, item: RateLimitItem, *keys: str, cost: int = 1) -> bool:
        self._since_sweep += 1
        if self._since_sweep >= self.SWEEP_EVERY:  # before this key's window is taken
            self._sweep(self._clock())
        hits, now = self._window(item, keys)
        if len(hits) + cost > item.amount:
            return False
        hits.extend([now] * cost)
        return True

    async def test(self, item: RateLimitItem, *keys: str, cost: int = 1) -> bool:
        hits, _ = self._window(item, keys)
        return len(hits) + cost <= item.amount

    async def wait(self, item: RateLimitItem, *keys: str) -> int:
        hits, now = self._window(item, keys)
        if not hits:
            return 1
        return max(1, math.ceil(hits[0] + item.get_expiry() - now))

    async def give_back(self, item: RateLimitItem, *keys: str, cost: int = 1) -> None:
        hits, _ = self._window(item, keys)
        for _ in range(min(cost, len(hits))):
            hits.pop()

    async def reset(self) -> None:
        self._hits.clear()
        self._span.clear()

    def _sweep(self, now: float) -> None:
        self._since_sweep = 0
        idle = [k for k, hits in self._hits.items() if not hits or hits[-1] < now - self._span[k]]
        for key in idle:
            del self._hits[key]
            del self._span[key]


class SharedWindows:
    """Moving windows in Redis through the `limits` library, shared by every process.

    While Redis does not answer, this process counts on its own (`LocalWindows`) and `/readyz`
    says so: a lost Redis loosens the limits to per-process, it does not fail every request.
    """

    def __init__(self, url: str) -> None:
        import redis.asyncio

        self._local = LocalWindows()
        self._errors = redis_errors()
        self.outage = RedisOutage("per-client limits", "counted per process")
        pool: Any = redis.asyncio.ConnectionPool.from_url(
            url,
            socket_connect_timeout=CONNECT_TIMEOUT_SECONDS,
            socket_timeout=COMMAND_TIMEOUT_SECONDS,
        )
        self._pool = pool
        storage = storage_from_string(
            f"async+{url}", implementation="redispy", connection_pool=pool
        )
        assert isinstance(storage, Storage)
        self._storage = storage
        self._strategy = MovingWindowRateLimiter(storage)

    async def _shared(self, call: Awaitable[T], local: Callable[[], Awaitable[T]]) -> T:
        try:
            value = await call
        except self._errors as exc:
            self.outage.trip(exc)
            return await local()
        self.outage.heal()
        return value

    async def hit(self, item: RateLimitItem, *keys: str, cost: int = 1) -> bool:
        if self.outage.active:
            return await self._local.hit(item, *keys, cost=cost)
        return await self._shared(
            self._strategy.hit(item, _NAMESPACE, *keys, cost=cost),
            lambda: self._local.hit(item, *keys, cost=cost),
        )

    async def test(self, item: RateLimitItem, *keys: str, cost: int = 1) -> bool:
        if self.outage.active:
            return await self._local.test(item, *keys, cost=cost)
        return await self._shared(
            self._strategy.test(item, _NAMESPACE, *keys, cost=cost),
            lambda: self._local.test(item, *keys, cost=cost),
        )

    async def wait(self, item: RateLimitItem, *keys: str) -> int:
        if self.outage.active:
            return await self._local.wait(item, *keys)

        async def shared() -> int:
            stats = await self._strategy.get_window_stats(item, _NAMESPACE, *keys)
            return max(1, math.ceil(stats.reset_time - time.time()))

        return await self._shared(shared(), lambda: self._local.wait(item, *keys))

    async def give_back(self, item: RateLimitItem, *keys: str, cost: int = 1) -> None:
        """The moving window is a Redis list, newest hit first (the `limits` library's
        layout, LIMITS:<key>): the newest `cost` entries are popped."""
        if self.outage.active:
            await self._local.give_back(item, *keys, cost=cost)
            return
        name = f"{_LIMITS_REDIS_PREFIX}:{item.key_for(_NAMESPACE, *keys)}"

        async def pop() -> None:
            import redis.asyncio

            connection = redis.asyncio.Redis(connection_pool=self._pool)
            await connection.lpop(name, cost)

        await self._shared(pop(), lambda: self._local.give_back(item, *keys, cost=cost))

    async def reset(self) -> None:
        await self._storage.reset()

    async def aclose(self) -> None:
        await self._pool.aclose()


class ClientLimits:
    """Moving windows per client id: `hit_request` for every call, `spend_searches` for quota."""

    def __init__(
        self, *, rate_limit: str | None, search_quota: str | None, storage_url: str = "memory://"
    ) -> None:
        self.rate_limit = rate_limit or None
        self.search_quota = search_quota or None
        self._rate = _parse(rate_limit, "NETSIFT_SERVER_RATE_LIMIT")
        self._quota = _parse(search_quota, "NETSIFT_SERVER_SEARCH_QUOTA")
        self._shared: SharedWindows | None = None
        self._windows: Windows
        if storage_url.startswith(("redis://", "rediss://")):
            self._shared = SharedWindows(storage_url)
            self._windows = self._shared
        else:
            self._windows = LocalWindows()

    @classmethod
    def from_settings(cls, settings: Settings) -> ClientLimits:
        return cls(
            rate_limit=settings.server_rate_limit,
            search_quota=settings.server_search_quota,
            storage_url=settings.redis_url or "memory://",
        )

    async def hit_request(self, client_id: str) -> None:
        """Count one API request for `client_id`; raises RateLimited when the window is full."""
        for item in self._rate:
            if not await self._windows.hit(item, "rate", client_id):
                wait = await self._windows.wait(item, "rate", client_id)
                raise RateLimited(
                    f"too many requests from this client (limit {self.rate_limit}); "
                    f"retry in {wait}s",
                    retry_after=wait,
                    details={"limit": self.rate_limit, "scope": "client"},
                )

    async def spend_searches(self, client_id: str, count: int) -> None:
        """Take `count` searches from the client's quota, or raise QuotaExceeded.

        The take itself is the check: each window's `hit` adds the cost only if it fits, in
        one step (a Lua script on Redis), so searches admitted at once by many tasks or
        workers never overspend. A first pass asks every window, so a take that cannot fit
        leaves the others untouched (all or none, unless another caller takes the last
        searches between the two passes: then the quota errs on the side of its limit)."""
        for item in self._quota:
            if not await self._windows.test(item, "quota", client_id, cost=count):
                raise await self._exceeded(item, client_id, count)
        for item in self._quota:
            if not await self._windows.hit(item, "quota", client_id, cost=count):
                raise await self._exceeded(item, client_id, count)

    async def release_searches(self, client_id: str, count: int) -> None:
        """Give back `count` searches taken by `spend_searches` that were never sent."""
        for item in self._quota:
            await self._windows.give_back(item, "quota", client_id, cost=count)

    async def _exceeded(self, item: RateLimitItem, client_id: str, count: int) -> QuotaExceeded:
        wait = await self._windows.wait(item, "quota", client_id)
        return QuotaExceeded(
            f"this client's search quota ({self.search_quota}) does not cover "
            f"{count} more search{'es' if count != 1 else ''}; retry in {wait}s",
            details={"retry_after": wait, "limit": self.search_quota, "requested": count},
            retryable=True,
        )

    @property
    def degraded(self) -> str | None:
        """A line for `/readyz` while the shared windows stand in locally for a lost Redis."""
        return self._shared.outage.degraded if self._shared is not None else None

    async def reset(self) -> None:
        await self._windows.reset()

    async def aclose(self) -> None:
        if self._shared is not None:
            await self._shared.aclose()
            self._shared = None
