"""Merge mode over several simulators: one list by canonical URL, near-duplicates folded, ranked."""

from __future__ import annotations

import time

from tests.offline_web.providers.fixtures import ProviderSims

from .conftest import QUERY, ClientFactory, codes

DOCS_PAGE = "https://docs.example.org/rust-async-runtime"


async def test_merge_fuses_providers_by_canonical_url(
    sims: ProviderSims, open_client: ClientFactory
) -> None:
    client = await open_client(providers=["duckduckgo", "brave", "tavily"])
    found = await client.search(QUERY, count=20, merge=True)
    assert codes(found) == [("duckduckgo", None), ("brave", None), ("tavily", None)]
    assert found.provider == "duckduckgo,brave,tavily"
    first = found.results[0]
    # DuckDuckGo's and Brave's spellings (www., trailing slash, utm_source) are one page.
    assert first.url == DOCS_PAGE
    assert first.source == "duckduckgo"
    assert set(first.engines) >= {"duckduckgo", "brave"}
    urls = [r.url for r in found.results]
    assert not any("www.docs.example.org" in url for url in urls)
    assert len(urls) == len(set(urls)) == found.result_count
    # Brave's mirror copy of that page is a near-duplicate: folded, not listed.
    assert not any(url.startswith("https://mirror.example.net/") for url in urls)
    assert [r.rank for r in found.results] == list(range(1, len(urls) + 1))
    scores = [r.score or 0.0 for r in found.results]
    assert scores == sorted(scores, reverse=True)
    agreed = [r for r in found.results if len(r.engines) == 3]
    assert agreed and found.results.index(agreed[0]) < 3


async def test_merge_asks_the_providers_at_the_same_time(
    sims: ProviderSims, open_client: ClientFactory
) -> None:
    for name in ("duckduckgo", "brave", "tavily"):
        sims[name].latency = 0.3
    client = await open_client(providers=["duckduckgo", "brave", "tavily"])
    started = time.monotonic()
    found = await client.search(QUERY, merge=True)
    assert time.monotonic() - started < 0.6  # one latency, not three
    assert found.result_count == 10


async def test_merge_reports_a_failing_provider_and_merges_the_rest(
    sims: ProviderSims, open_client: ClientFactory
) -> None:
    sims["brave"].set("rate_limit")
    client = await open_client(providers=["duckduckgo", "brave", "tavily"])
    found = await client.search(QUERY, count=5, merge=True)
    assert codes(found) == [("duckduckgo", None), ("brave", "rate_limited"), ("tavily", None)]
    assert found.provider == "duckduckgo,tavily"
    assert found.result_count == 5
    assert all("brave" not in r.engines for r in found.results)
