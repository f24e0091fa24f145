"""The search cache with each backend, through the Client, over the simulators.

A hit is proven by the simulator not being asked; `cached` says so in the response.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import anyio
import pytest

from netsift.errors import AllProvidersFailed
from tests.offline_web.providers.fixtures import ProviderSims
from tests.paths import REPO

from .conftest import QUERY, ClientFactory


async def _twice(open_client: ClientFactory, sims: ProviderSims, cache_url: str) -> None:
    client = await open_client(providers=["brave"], cache_url=cache_url)
    first = await client.search(QUERY, count=4)
    again = await client.search("  Rust   ASYNC runtime ", count=4)  # the same search
    assert (first.cached, again.cached) == (False, True)
    assert again.results == first.results
    assert again.attempts == first.attempts
    assert sims["brave"].count == 1
    other = await client.search(QUERY, count=5)  # another count is another search
    assert not other.cached and sims["brave"].count == 2


async def test_memory_cache_hits_and_no_cache_bypasses_it(
    sims: ProviderSims, open_client: ClientFactory
) -> None:
    await _twice(open_client, sims, "memory://")
    client = await open_client(providers=["brave"], cache_url="memory://")
    await client.search(QUERY)
    fresh = await client.search(QUERY, no_cache=True)
    assert not fresh.cached and sims["brave"].count == 4
    stats = await client.search_service.cache_stats()
    assert stats["backend"] == "memory" and stats["hits"] == 0 and stats["entries"] == 1


async def test_sqlite_cache_survives_a_new_client(
    sims: ProviderSims, open_client: ClientFactory, tmp_path: Path
) -> None:
    url = f"sqlite:///{tmp_path / 'cache.sqlite3'}"
    await _twice(open_client, sims, url)
    later = await open_client(providers=["brave"], cache_url=url)
    found = await later.search(QUERY, count=4)
    assert found.cached and sims["brave"].count == 2


@pytest.mark.redis
async def test_redis_cache_is_shared_by_clients(
    sims: ProviderSims, open_client: ClientFactory, redis_url: str
) -> None:
    await _twice(open_client, sims, redis_url)
    replica = await open_client(providers=["brave"], cache_url=redis_url)
    found = await replica.search(QUERY, count=4)
    assert found.cached and sims["brave"].count == 2
    stats = await replica.search_service.cache_stats()
    assert stats["backend"] == "redis" and stats["hits"] == 2


async def test_a_failed_search_is_not_cached(
    sims: ProviderSims, open_client: ClientFactory
) -> None:
    sims["brave"].set("server_error", times=1)
    client = await open_client(providers=["brave"])
    with pytest.raises(AllProvidersFailed):
        await client.search(QUERY)
    found = await client.search(QUERY)
    assert not found.cached and found.provider == "brave"


async def test_an_unreachable_cache_degrades_to_no_cache(
    sims: ProviderSims, open_client: ClientFactory
) -> None:
    client = await open_client(providers=["brave"], cache_url="redis://127.0.0.1:1/0")
    first = await client.search(QUERY)
    second = await client.search(QUERY)
    assert first.provider == second.provider == "brave"
    assert not second.cached and sims["brave"].count == 2


SEARCHER = textwrap.dedent(
    """
    import sys

    import anyio

    from netsift.client import Client
    from netsift.config import Settings

    async def main() -> None:
        async with Client(Settings()) as client:
            for query in sys.argv[1:]:
                found = await client.search(query, count=3)
                print(found.cached, found.result_count, flush=True)

    anyio.run(main)
    """
)


async def test_sqlite_cache_is_shared_by_concurrent_processes(
    sims: ProviderSims, open_client: ClientFactory, tmp_path: Path
) -> None:
    url = f"sqlite:///{tmp_path / 'shared.sqlite3'}"
    env = {
        **os.environ,
        **sims.env(),
        "NETSIFT_CACHE_URL": url,
        "NETSIFT_PROVIDERS": "brave",
        "NETSIFT_PROVIDER_RATE_LIMITS": "brave=1000/second",
        "NETSIFT_DATA_DIR": str(tmp_path / "data"),
        "NETSIFT_CAPABILITIES": "search",
        "PYTHONPATH": str(REPO / "src"),
    }
    queries = [f"rust async runtime {n}" for n in range(5)]
    results: dict[int, subprocess.CompletedProcess[bytes]] = {}

    async def run(i: int) -> None:
        command = [sys.executable, "-c", SEARCHER, *queries[i:], *queries[:i]]
        results[i] = await anyio.run_process(command, env=env, check=False)

    async with anyio.create_task_group() as group:
        for i in range(3):
            group.start_soon(run, i)
    outputs = []
    for done in results.values():
        out, err = done.stdout.decode(), done.stderr.decode()
        assert done.returncode == 0, err
        assert "Traceback" not in err
        assert out.split()[1::2] == ["3"] * len(queries)
        outputs.append((out, err))
    hits = sum(out.split()[0::2].count("True") for out, _ in outputs)
    assert hits + sims["brave"].count == 3 * len(queries)
    client = await open_client(providers=["brave"], cache_url=url)
    for query in queries:
        assert (await client.search(query, count=3)).cached
