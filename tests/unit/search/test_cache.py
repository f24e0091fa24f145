"""search/cache/ and its backends: keys, hits, TTL, eviction, restarts, processes."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import time
from pathlib import Path

import anyio

from netsift.search.cache import cache_key, normalize_query
from netsift.search.cache.sqlite import SqliteCache


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


WRITER = textwrap.dedent(
    """
    import sys, anyio
    from netsift.search.cache.sqlite import SqliteCache

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
    url = str(tmp_path / "shared.db")
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
