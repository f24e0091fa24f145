"""RateLimiter: netsift's own per-provider and global request limits (the `limits` library).

Providers publish limits (Brave 1/s on the free plan, arXiv one request per 3 s); going over
them earns a 429 or a block that the breaker then has to sit out. So netsift keeps under them
itself with a moving window per provider plus one global window. Before a request, when the
window is full, the caller either waits for the next slot (when it comes within a small
bound and the request's remaining time) or gets `RateLimited` at once, with `retry_after`,
so the service can fail over instead of stalling.

Storage is in-process memory, or Redis when netsift is scaled out so replicas share one
window per provider (`limits`' Lua scripts keep the moving window atomic there). When Redis
cannot be reached, the limiter falls back to in-process windows for the rest of its life: a
search must not fail because the shared limit store is down (the cache degrades the same way).

The `limits` library (with `deprecated` and `wrapt`, ~15 ms of CPU) is imported, and its
storage opened, when the first limit is checked: a cached search never checks one. Limit
strings handed in directly are parsed at once, so bad notation still fails at construction;
those from Settings were parsed by its validators already and wait for their first use.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any

import anyio

from ..config import Settings
from ..errors import InvalidInput, RateLimited

if TYPE_CHECKING:
    from limits import RateLimitItem
    from limits.aio.storage import Storage
    from limits.aio.strategies import MovingWindowRateLimiter

__all__ = ["DEFAULT_MAX_WAIT", "RateLimiter", "patience", "waiting_for_slots"]

DEFAULT_MAX_WAIT = 1.5  # longer than this and failing over to the next provider is faster
# How long the current caller will wait for a slot, when it would rather wait than lose the
# search (None: the limiter's own bound). Set by `waiting_for_slots`.
patience: ContextVar[float | None] = ContextVar("netsift_rate_limit_patience", default=None)


@contextmanager
def waiting_for_slots(seconds: float) -> Iterator[None]:
    """Inside, a full window is waited out for up to `seconds` rather than the usual 1.5 s,
    and the wait is not taken from the search's own timeout: for a caller whose searches are
    worth more than their time and that bounds it itself (research, by its deadline), so a
    wide round paced by a provider's published limit loses none of its searches."""
    token = patience.set(max(0.0, seconds))
    try:
        yield
    finally:
        patience.reset(token)


log = logging.getLogger(__name__)
_NAMESPACE = "netsift"
_GLOBAL = "*global*"
_STORAGE_SCHEMES = ("memory://", "redis://", "rediss://")


class RateLimiter:
    """Moving-window limits per provider name plus one global limit.

    `limit` strings use the `limits` notation: `"1/second"`, `"10 per minute"`,
    `"1/second;1000/day"`. `overrides` replace a provider's published limit by name.
    """

    def __init__(
        self,
        storage_url: str = "memory://",
        *,
        global_limit: str | None = "100/second",
        overrides: Mapping[str, str] | None = None,
        max_wait: float = DEFAULT_MAX_WAIT,
        sleep: Callable[[float], Awaitable[None]] = anyio.sleep,
        notation_checked: bool = False,
    ) -> None:
        if not storage_url.startswith(_STORAGE_SCHEMES):
            raise InvalidInput(
                f"rate limit storage must be memory:// or redis://, not {storage_url!r}"
            )
        self._pool: Any = None
        self._storage_url = storage_url
        self._store: tuple[Storage, MovingWindowRateLimiter] | None = None  # at the first check
        self._global_text = global_limit or ""
        self._override_text = dict(overrides or {})
        self._limits: tuple[list[RateLimitItem], dict[str, list[RateLimitItem]]] | None = None
        if not notation_checked:
            self._parsed_limits()  # bad notation fails here, not at the first search
        self._parsed: dict[str, list[RateLimitItem]] = {}
        self.max_wait = max_wait
        self._sleep = sleep
        self.degraded = False

    @classmethod
    def from_settings(cls, settings: Settings) -> RateLimiter:
        """Share limits through Redis when netsift is scaled out (Redis cache or REDIS_URL)."""
        cache_url = settings.effective_cache_url()
        shared = cache_url if cache_url.startswith(("redis://", "rediss://")) else None
        shared = shared or settings.redis_url
        return cls(
            shared or "memory://",
            global_limit=settings.search_rate_limit or None,
            overrides=dict(_pairs(settings.provider_rate_limits)),
            notation_checked=True,  # Settings' validators parsed every limit string
        )

    def _parsed_limits(self) -> tuple[list[RateLimitItem], dict[str, list[RateLimitItem]]]:
        """The global limit and the overrides, parsed once."""
        if self._limits is None:
            glob = self._global_text
            self._limits = (
                _parse(glob, "NETSIFT_SEARCH_RATE_LIMIT") if glob else [],
                {
                    name: _parse(value, f"the rate limit of {name}")
                    for name, value in self._override_text.items()
                },
            )
        return self._limits

    def _strategy(self) -> MovingWindowRateLimiter:
        """The moving-window strategy over the storage, opened at the first limit checked."""
        if self._store is None:
            from limits.aio.strategies import MovingWindowRateLimiter

            storage = self._open(self._storage_url)
            self._store = (storage, MovingWindowRateLimiter(storage))
        return self._store[1]

    def _open(self, url: str) -> Storage:
        from limits.aio.storage import Storage
        from limits.storage import storage_from_string

        if url.startswith(("redis://", "rediss://")):
            import redis.asyncio

            # Our own pool, so aclose() can release the connections limits would keep open.
            self._pool = redis.asyncio.ConnectionPool.from_url(url)
            storage = storage_from_string(
                f"async+{url}", implementation="redispy", connection_pool=self._pool
            )
        elif url.startswith("memory://"):
            storage = storage_from_string("async+memory://")
        else:
            raise InvalidInput(f"rate limit storage must be memory:// or redis://, not {url!r}")
        assert isinstance(storage, Storage)
        return storage

    def limit_for(self, name: str, published: str) -> str:
        """The limit in force for a provider: the override if any, else its published one."""
        return self._override_text.get(name, published)

    def _items(self, name: str, published: str) -> list[RateLimitItem]:
        overrides = self._parsed_limits()[1]
        if name in overrides:
            return overrides[name]
        if published not in self._parsed:
            from limits import parse_many

            self._parsed[published] = parse_many(published)
        return self._parsed[published]

    async def acquire(self, name: str, published: str, *, max_wait: float | None = None) -> float:
        """Take one slot for `name`, waiting up to `max_wait` seconds; returns the time waited.

        Raises `RateLimited` (with `details.local = True`, so nobody mistakes it for the
        provider's own 429) when the next slot is further away than the wait allowed.
        """
        own = patience.get()
        cap = self.max_wait if own is None else max(own, self.max_wait)
        bound = cap if max_wait is None else min(max_wait, cap)
        self._strategy()  # opening the storage fails as it did at construction, not degraded
        try:
            return await self._acquire(name, published, bound)
        except RateLimited:
            raise
        except Exception:
            if self.degraded:
                raise
            log.warning(
                "rate limit storage failed; using in-process limits from now on", exc_info=True
            )
            from limits.aio.strategies import MovingWindowRateLimiter

            storage = self._open("memory://")
            self._store = (storage, MovingWindowRateLimiter(storage))
            self.degraded = True
            return await self._acquire(name, published, bound)

    async def _acquire(self, name: str, published: str, bound: float) -> float:
        checks = [(item, name) for item in self._items(name, published)]
        checks += [(item, _GLOBAL) for item in self._parsed_limits()[0]]
        started = time.monotonic()
        while True:
            wait, full = await self._wait_needed(checks)
            if wait <= 0:
                if await self._hit_all(checks):
                    return time.monotonic() - started
                continue  # lost a race for the last slot: measure again
            waited = time.monotonic() - started
            if waited + wait > bound:
                if _GLOBAL in full:
                    who, limit = "all providers together", self._global_text
                else:
                    who, limit = name, self.limit_for(name, published)
                raise RateLimited(
                    f"{who} reached netsift's rate limit ({limit}); next slot in {wait:.1f}s",
                    retry_after=round(wait, 3),
                    details={"local": True, "provider": name},
                )
            await self._sleep(wait)

    async def _wait_needed(self, checks: list[tuple[RateLimitItem, str]]) -> tuple[float, set[str]]:
        """Seconds until every window has a free slot (0 when all have one), and the full ones."""
        wait = 0.0
        full: set[str] = set()
        for item, key in checks:
            if not await self._strategy().test(item, _NAMESPACE, key):
                stats = await self._strategy().get_window_stats(item, _NAMESPACE, key)
                wait = max(wait, stats.reset_time - time.time(), 0.01)
                full.add(key)
        return wait, full

    async def _hit_all(self, checks: list[tuple[RateLimitItem, str]]) -> bool:
        for item, key in checks:
            if not await self._strategy().hit(item, _NAMESPACE, key):
                return False
        return True

    async def reset(self) -> None:
        """Forget every window (tests, and an operator's "try again now")."""
        self._strategy()
        assert self._store is not None
        await self._store[0].reset()

    async def aclose(self) -> None:
        if self._pool is not None:
            await self._pool.aclose()
            self._pool = None


def _parse(limit: str, what: str) -> list[RateLimitItem]:
    from limits import parse_many

    try:
        return parse_many(limit)
    except ValueError as exc:
        raise InvalidInput(
            f"{what} must be in `limits` notation, e.g. 10/second or 1/second;1000/day,"
            f" not {limit!r}"
        ) from exc


def _pairs(entries: list[str]) -> list[tuple[str, str]]:
    """`name=limit` entries of a comma-list setting."""
    pairs = []
    for entry in entries:
        name, sep, limit = entry.partition("=")
        if not sep or not name.strip() or not limit.strip():
            raise InvalidInput(
                f"NETSIFT_PROVIDER_RATE_LIMITS entry {entry!r} must look like name=10/second"
            )
        pairs.append((name.strip().lower(), limit.strip()))
    return pairs
