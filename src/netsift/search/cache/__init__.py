"""The search cache: a Protocol and its backends, chosen by URL.

    memory://              in-process; LRU; gone with the process
    sqlite:///path         embedded default (user data dir); survives restarts; shared by
                           processes on one machine (sqlite.py)
    redis://host:port/db   scaled out: every replica shares it (redis.py)

Values are text (the service stores SearchResponse JSON) so every backend stores the same
bytes, and a response read back is exactly the response written. Keys come from `cache_key`,
which normalizes the query so "Rust  Async" and "rust async" share one entry. Entries expire
after `ttl` seconds and the oldest are evicted past `max_entries`.
"""

from __future__ import annotations

import time

from ...backends import parse_store_url
from .memory import MemoryCache
from .model import Cache, CacheStats, Clock, cache_key, normalize_query

__all__ = [
    "Cache",
    "CacheStats",
    "Clock",
    "MemoryCache",
    "cache_key",
    "normalize_query",
    "open_cache",
]


def open_cache(url: str, *, ttl: float, max_entries: int, clock: Clock = time.time) -> Cache:
    """The backend for `url`; opening does no I/O (connections are made on first use)."""
    store = parse_store_url(url, what="NETSIFT_CACHE_URL")
    if store.kind == "memory":
        return MemoryCache(ttl=ttl, max_entries=max_entries, clock=clock)
    if store.kind == "sqlite":
        from .sqlite import SqliteCache

        return SqliteCache(store.path, ttl=ttl, max_entries=max_entries, clock=clock)
    from .redis import RedisCache

    return RedisCache(url, ttl=ttl, max_entries=max_entries, clock=clock)
