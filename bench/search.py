"""Search benchmark: cached latency, batch parallelism, failover cost, DuckDuckGo parsing vs ddgs.

    .venv/bin/python bench/search.py [--latency 0.3] [--cached 2000] [--parses 300]

Runs the provider simulators (tests/offline_web/providers) in this process on 127.0.0.1 with
an added latency per provider call (300 ms by default, a realistic API round trip) and drives
the real Client through the real HttpClient, guard on, loopback allowed. Not a test: it prints
a table of figures and the ratios to their goals.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from tempfile import TemporaryDirectory
from typing import Any

import anyio
import httpx

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.offline_web.providers import build_app, new_state  # noqa: E402
from tests.offline_web.providers.corpus import documents  # noqa: E402
from tests.offline_web.providers.duckduckgo import build_html_page  # noqa: E402
from tests.offline_web.providers.fixtures import ProviderSims  # noqa: E402
from tests.offline_web.server import serve  # noqa: E402

from netsift.client import Client  # noqa: E402
from netsift.config import Settings  # noqa: E402
from netsift.models import Query  # noqa: E402
from netsift.search.providers.duckduckgo import DuckDuckGo  # noqa: E402

QUERY = "rust async runtime"
PROVIDERS = ("duckduckgo", "brave", "tavily", "wikipedia")
Row = tuple[str, str, str]


def percentile(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, round(q / 100 * (len(ordered) - 1)))]


def settings_for(sims: ProviderSims, data: Path, **overrides: Any) -> Settings:
    values = sims.settings_values()
    values.update(
        data_dir=data,
        cache_url="memory://",
        capabilities=["search"],
        max_searches_per_session=1_000_000,
        provider_rate_limits=[f"{name}=1000/second" for name in PROVIDERS],
    )
    values.update(overrides)
    return Settings(**values)


async def cached_latency(settings: Settings, runs: int) -> list[float]:
    """Seconds per search answered from the cache, measured around `client.search`."""
    async with Client(settings) as client:
        await client.search(QUERY, providers=["brave"])
        samples = []
        for _ in range(runs):
            started = time.perf_counter()
            found = await client.search(QUERY, providers=["brave"])
            samples.append(time.perf_counter() - started)
            assert found.cached
    return samples


async def batch(settings: Settings) -> tuple[float, float, float]:
    """(wall time, sum of the attempts' latencies, mean attempt latency) of 10 queries."""
    queries = [f"{QUERY} {n}" for n in range(10)]
    async with Client(settings) as client:
        _ = client.search_service  # built on first use: not part of the figure
        started = time.perf_counter()
        items = await client.batch_search(queries, providers=["brave"], no_cache=True)
        wall = time.perf_counter() - started
    latencies = [a.latency_ms / 1000 for item in items for a in item.raise_for_error().attempts]
    return wall, sum(latencies), statistics.mean(latencies)


async def failover(settings: Settings) -> tuple[float, float, float]:
    """(total, failed attempt, answering attempt) seconds when brave answers 429."""
    async with Client(settings) as client:
        _ = client.search_service  # built on first use: not part of the figure
        started = time.perf_counter()
        found = await client.search(QUERY, providers=["brave", "tavily"], no_cache=True)
        total = time.perf_counter() - started
    failed, answered = found.attempts
    assert failed.error_code == "rate_limited" and answered.ok
    return total, failed.latency_ms / 1000, answered.latency_ms / 1000


def parse_timing(parses: int) -> tuple[float, float, int, int, bool]:
    """Mean seconds per parse of the same DuckDuckGo html page: netsift's, ddgs' parser."""
    from ddgs.engines.duckduckgo import Duckduckgo

    page = build_html_page(QUERY, documents(QUERY, 10, provider="duckduckgo"), wrapped=False)
    request = httpx.Request("POST", "https://html.duckduckgo.com/html/")
    response = httpx.Response(
        200, text=page, headers={"Content-Type": "text/html"}, request=request
    )
    ours_provider = DuckDuckGo(Settings().provider_settings("duckduckgo"))
    query = Query(text=QUERY, count=10)
    engine = Duckduckgo()

    def ours() -> list[str]:
        return [r.url for r in ours_provider.parse_response(response, query)]

    def theirs() -> list[str]:
        return [r.href for r in engine.post_extract_results(engine.extract_results(page))]

    def timed(parse: Callable[[], list[str]]) -> float:
        parse()
        started = time.perf_counter()
        for _ in range(parses):
            parse()
        return (time.perf_counter() - started) / parses

    ours_urls, their_urls = ours(), theirs()
    return timed(ours), timed(theirs), len(ours_urls), len(their_urls), ours_urls == their_urls


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.3f} ms"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--latency", type=float, default=0.3, help="seconds per provider call")
    parser.add_argument("--cached", type=int, default=2000, help="cached searches to time")
    parser.add_argument("--parses", type=int, default=300, help="parses per parser")
    args = parser.parse_args()

    state = new_state()
    rows: list[Row] = []
    with (
        serve(build_app(state), timeout_graceful_shutdown=2) as server,
        TemporaryDirectory() as tmp,
    ):
        sims = ProviderSims(port=server.port, state=state)
        for name in PROVIDERS:
            state[name].latency = args.latency
        memory = settings_for(sims, Path(tmp))
        sqlite = settings_for(sims, Path(tmp), cache_url=f"sqlite:///{tmp}/cache.sqlite3")

        for label, settings in (("memory", memory), ("sqlite", sqlite)):
            samples = anyio.run(cached_latency, settings, args.cached)
            p50, p99 = percentile(samples, 50), percentile(samples, 99)
            rows.append((f"cached search, {label} cache, p50", ms(p50), "goal: well under 1 ms"))
            rows.append((f"cached search, {label} cache, p99", ms(p99), ""))

        wall, total, one = anyio.run(batch, memory)
        rows.append(("batch of 10, wall time", ms(wall), f"{wall / one:.2f}x one call (goal ~1x)"))
        rows.append(
            ("batch of 10, sum of calls", ms(total), f"parallel speed-up {total / wall:.1f}x")
        )

        state["brave"].set("rate_limit")
        total_f, failed, answered = anyio.run(failover, memory)
        overhead = total_f - answered  # what failing over cost on top of the answer itself
        rows.append(("failover after a 429, total", ms(total_f), ""))
        rows.append(("  the 429 attempt / the answer", f"{ms(failed)} / {ms(answered)}", ""))
        rows.append(
            (
                "  time added by failing over",
                ms(overhead),
                f"{overhead / failed:.2f}x the failed attempt (goal <= 1x)",
            )
        )
        state.reset()

    ours, theirs, n_ours, n_theirs, same = parse_timing(args.parses)
    rows.append(("DuckDuckGo html parse, netsift", ms(ours), f"{n_ours} results"))
    rows.append(
        (
            "DuckDuckGo html parse, ddgs",
            ms(theirs),
            f"{n_theirs} results; same URLs: {same}; netsift/ddgs = {ours / theirs:.2f}x",
        )
    )

    width = max(len(row[0]) for row in rows)
    print(f"provider latency {args.latency * 1000:.0f} ms, simulators on 127.0.0.1")
    for what, value, note in rows:
        print(f"{what:<{width}}  {value:>22}  {note}")


if __name__ == "__main__":
    main()
