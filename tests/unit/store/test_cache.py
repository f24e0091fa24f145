"""store/cache.py and its backends: keys, hits, TTL, eviction, restarts, processes."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import anyio
import pytest

from netsift.errors import InvalidInput
from netsift.store.cache import Cache, MemoryCache, cache_key, normalize_query, open_cache
from netsift.store.sqlite_cache import SqliteCache, sqlite_path


class FakeClock:
    def __init__(self) -> None:
        self.now = 1_000.0

    def __call__(self) -> float:
        return self.now


def test_normalize_query() -> None:
    assert normalize_query("  Rust\tASYNC \n runtimes ") == "rust async runtimes"
    assert normalize_query("Straße") == "strasse"


def test_key_ignores_case_and_spacing_but_not_options() -> None:
    base = cache_key("Rust  async", providers=["brave"], count=10, merge=False)
    assert base == cache_key("rust async", providers=["brave"], count=10, merge=False)
    assert base != cache_key("rust async", providers=["brave"], count=5, merge=False)
    assert base != cache_key("rust async", providers=["duckduckgo"], count=10, merge=False)
    assert base != cache_key("rust async", providers=["brave", "duckduckgo"], count=10, merge=False)
    assert base.startswith("search:v1:")
    assert "rust" not in base


@pytest.mark.parametrize(
    ("url", "path"),
    [
        ("sqlite:////var/lib/x.db", "/var/lib/x.db"),
        ("sqlite:///rel/x.db", "rel/x.db"),
        ("sqlite://", ":memory:"),
        ("sqlite:///:memory:", ":memory:"),
    ],
)
def test_sqlite_path(url: str, path: str) -> None:
    assert sqlite_path(url) == path


def test_unknown_cache_url_says_what_is_allowed() -> None:
    with pytest.raises(InvalidInput, match=r"memory://, sqlite:/// or redis://"):
        open_cache("mongodb://x", ttl=1, max_entries=1)


@pytest.fixture(params=["memory", "sqlite", pytest.param("redis", marks=pytest.mark.redis)])
def backend(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "memory":
        return "memory://"
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'cache.sqlite3'}"
    redis_url: str = request.getfixturevalue("redis_url")
    return redis_url


@pytest.fixture
async def make(backend: str) -> AsyncIterator[Callable[..., Cache]]:
    opened: list[Cache] = []

    def factory(**kwargs: object) -> Cache:
        cache = open_cache(backend, **kwargs)  # type: ignore[arg-type]  # ttl/max_entries/clock
        opened.append(cache)
        return cache

    yield factory
    if opened:
        await opened[0].clear()
    for cache in opened:
        await cache.aclose()


async def test_miss_then_hit_with_stats(make: Callable[..., Cache]) -> None:
    cache = make(ttl=60, max_entries=10)
    await cache.clear()
    assert await cache.get("k") is None
    await cache.set("k", '{"query": "x"}')
    assert await cache.get("k") == '{"query": "x"}'
    await cache.set("k", '{"query": "y"}')  # overwrite
    assert await cache.get("k") == '{"query": "y"}'
    stats = await cache.stats()
    assert (stats.hits, stats.misses, stats.entries) == (2, 1, 1)
    assert stats.as_dict()["max_entries"] == 10


async def test_eviction_keeps_the_newest(make: Callable[..., Cache]) -> None:
    clock = FakeClock()
    cache = make(ttl=600, max_entries=3, clock=clock)
    await cache.clear()
    for i in range(5):
        clock.now += 1
        await cache.set(f"k{i}", str(i))
    assert (await cache.stats()).entries == 3
    assert [await cache.get(f"k{i}") for i in range(5)] == [None, None, "2", "3", "4"]


async def test_clear(make: Callable[..., Cache]) -> None:
    cache = make(ttl=60, max_entries=10)
    await cache.set("a", "1")
    await cache.clear()
    assert await cache.get("a") is None


@pytest.mark.parametrize("kind", [MemoryCache, SqliteCache])
async def test_ttl_with_an_injected_clock(kind: type[Cache], tmp_path: Path) -> None:
    clock = FakeClock()
    if kind is MemoryCache:
        cache: Cache = MemoryCache(ttl=3600, max_entries=10, clock=clock)
    else:
        cache = SqliteCache(f"sqlite:///{tmp_path / 'c.db'}", ttl=3600, max_entries=10, clock=clock)
    await cache.set("k", "v")
    clock.now += 3599
    assert await cache.get("k") == "v"
    clock.now += 2
    assert await cache.get("k") is None
    assert (await cache.stats()).entries == 0
    await cache.aclose()


@pytest.mark.redis
async def test_redis_ttl_is_redis_own_expiry(redis_url: str) -> None:
    cache = open_cache(redis_url, ttl=0.3, max_entries=10)
    await cache.clear()
    await cache.set("k", "v")
    assert await cache.get("k") == "v"
    await anyio.sleep(0.45)
    assert await cache.get("k") is None
    assert (await cache.stats()).entries == 0
    await cache.aclose()


@pytest.mark.redis
async def test_redis_is_shared_between_instances(redis_url: str) -> None:
    one = open_cache(redis_url, ttl=60, max_entries=10)
    two = open_cache(redis_url, ttl=60, max_entries=10)
    await one.clear()
    await one.set("k", "shared")
    assert await two.get("k") == "shared"
    assert (await one.stats()).hits == 1  # counters are the deployment's
    await one.clear()
    await one.aclose()
    await two.aclose()


async def test_sqlite_survives_a_restart(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'nested' / 'cache.sqlite3'}"
    first = open_cache(url, ttl=60, max_entries=10)
    await first.set("k", "v")
    await first.aclose()
    second = open_cache(url, ttl=60, max_entries=10)
    assert await second.get("k") == "v"
    await second.aclose()


async def test_sqlite_uses_wal(tmp_path: Path) -> None:
    cache = SqliteCache(f"sqlite:///{tmp_path / 'c.db'}", ttl=60, max_entries=10)
    await cache.set("k", "v")
    assert (tmp_path / "c.db-wal").exists()
    await cache.aclose()


async def test_sqlite_concurrent_tasks(tmp_path: Path) -> None:
    cache = SqliteCache(f"sqlite:///{tmp_path / 'c.db'}", ttl=60, max_entries=1000)
    async with anyio.create_task_group() as tg:
        for i in range(40):
            tg.start_soon(cache.set, f"k{i}", str(i))
    assert (await cache.stats()).entries == 40
    await cache.aclose()


WRITER = textwrap.dedent(
    """
    import sys, anyio
    from netsift.store.sqlite_cache import SqliteCache

    async def main() -> None:
        cache = SqliteCache(sys.argv[1], ttl=60, max_entries=10_000)
        for i in range(150):
            await cache.set(f"{sys.argv[2]}-{i}", "x" * 2000)
            assert await cache.get(f"{sys.argv[2]}-{i}") is not None
        await cache.aclose()

    anyio.run(main)
    """
)


def test_sqlite_concurrent_processes(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'shared.db'}"
    started = time.monotonic()
    writers = [
        subprocess.Popen([sys.executable, "-c", WRITER, url, name], stderr=subprocess.PIPE)
        for name in ("a", "b", "c")
    ]
    for writer in writers:
        _, err = writer.communicate(timeout=60)
        assert writer.returncode == 0, err.decode()
    assert time.monotonic() - started < 30

    async def count() -> int:
        cache = SqliteCache(url, ttl=60, max_entries=10_000)
        entries = (await cache.stats()).entries
        await cache.aclose()
        return entries

    assert anyio.run(count) == 450
