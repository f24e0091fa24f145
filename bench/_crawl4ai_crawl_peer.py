"""The peer side of bench/crawl.py: Crawl4AI's HTTP (non-browser) deep crawl of the site.

Run by bench/crawl.py in an interpreter where `crawl4ai` is installed (not netsift's venv):

    PYTHON bench/_crawl4ai_crawl_peer.py '{"url": "http://crawl.test:PORT/", "max_pages": N,
                                           "pins": {"crawl.test": "127.0.0.1"}}'

Crawl4AI's `AsyncHTTPCrawlerStrategy` (aiohttp, no browser) under its `BFSDeepCrawlStrategy`:
scoped to the start host (`include_external=False`), at most the site's expected pages, its
robots.txt check on, no cache, 8 requests in flight as netsift allows one host (its default is
5). Its dispatcher's per-domain pause (0.1-0.4 s a request by default) is set to 0, as
trafilatura's is: netsift pauses none for a site that asks none. The test hostname is pinned
the way curl's --resolve does (aiohttp resolves through `socket.getaddrinfo`). Crawl4AI makes
Markdown of every page, as netsift does. Prints one JSON line: results, successes and wall
seconds; the bench reads what was asked from the site's request log.
"""

from __future__ import annotations

import asyncio
import json
import socket
import sys
import time
from typing import Any

DEPTH = 50  # deeper than the site's tree of fanout 8; netsift's run gets the same
# Requests in flight: netsift's per-host cap (crawl/politeness.py), in place of Crawl4AI's 5;
# the bench's --host-concurrency sets both ("sessions" in the spec).
SESSIONS = 8


def pin(hosts: dict[str, str]) -> None:
    resolve = socket.getaddrinfo

    def getaddrinfo(host: Any, *args: Any, **kwargs: Any) -> Any:
        return resolve(hosts.get(host, host), *args, **kwargs)

    socket.getaddrinfo = getaddrinfo  # type: ignore[assignment]


async def main(spec: dict[str, Any]) -> None:
    pin(spec["pins"])
    from crawl4ai import AsyncWebCrawler, CacheMode, CrawlerRunConfig, HTTPCrawlerConfig
    from crawl4ai.async_crawler_strategy import AsyncHTTPCrawlerStrategy
    from crawl4ai.deep_crawling import BFSDeepCrawlStrategy

    strategy = AsyncHTTPCrawlerStrategy(browser_config=HTTPCrawlerConfig())
    deep = BFSDeepCrawlStrategy(
        max_depth=DEPTH, include_external=False, max_pages=spec["max_pages"]
    )
    run = CrawlerRunConfig(
        deep_crawl_strategy=deep,
        cache_mode=CacheMode.BYPASS,
        check_robots_txt=True,
        semaphore_count=int(spec.get("sessions", SESSIONS)),
        mean_delay=0.0,
        max_range=0.0,
        verbose=False,
    )
    started = time.perf_counter()
    async with AsyncWebCrawler(crawler_strategy=strategy) as crawler:
        results = await crawler.arun(spec["url"], config=run)
    wall = time.perf_counter() - started
    ok = [r.url for r in results if r.success]
    answer: dict[str, Any] = {"results": len(results), "ok": len(ok), "wall": wall}
    if spec.get("urls"):  # the pages it kept, for bench/crawl.py's judge
        answer["ok_urls"] = ok
    print(json.dumps(answer))


if __name__ == "__main__":
    asyncio.run(main(json.loads(sys.argv[1])))
