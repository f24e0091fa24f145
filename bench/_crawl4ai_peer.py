"""The peer side of bench/render.py: Crawl4AI's Playwright crawler on the same pages.

Run by bench/render.py in an interpreter where `crawl4ai` is installed (not netsift's venv):

    PYTHON bench/_crawl4ai_peer.py '{"urls": [...], "pins": {"spa.test": "127.0.0.1"}, ...}'

Crawl4AI has no setting for the browser's executable, and Playwright's own Chromium cannot be
downloaded here, so Playwright's `launch` is given the system Chromium (`CHROMIUM`, default
`chromium` on PATH); the test hostnames are pinned with Chromium's own resolver rules. Its
settings for JavaScript pages: wait for network idle, scan the full page (scrolling), no cache.
Prints one JSON line: pages, wall, cpu, peak_pss, breakdown (role -> [processes, PSS] at the
peak) and each page's Markdown; measured by `_proctree.py`, as netsift's side is.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _proctree import Sampler, cpu_seconds, descendants


def use_system_chromium() -> None:
    from playwright.async_api import BrowserType

    executable = shutil.which(os.environ.get("CHROMIUM", "chromium"))
    launch = BrowserType.launch

    async def launch_system(self: Any, **kwargs: Any) -> Any:
        kwargs.setdefault("executable_path", executable)
        return await launch(self, **kwargs)

    BrowserType.launch = launch_system  # type: ignore[method-assign]


async def main(spec: dict[str, Any]) -> None:
    use_system_chromium()
    from crawl4ai import AsyncWebCrawler, BrowserConfig, CacheMode, CrawlerRunConfig

    rules = ", ".join(f"MAP {host} {ip}" for host, ip in spec["pins"].items())
    browser = BrowserConfig(
        headless=True, verbose=False, extra_args=[f"--host-resolver-rules={rules}"]
    )
    run = CrawlerRunConfig(
        cache_mode=CacheMode.BYPASS, wait_until="networkidle", scan_full_page=True, verbose=False
    )
    sampler = Sampler()
    sampling = asyncio.create_task(sampler.run())
    async with AsyncWebCrawler(config=browser) as crawler:
        await crawler.arun(spec["urls"][0], config=run)  # browser start is not a page
        tree0 = cpu_seconds([os.getpid(), *descendants(os.getpid())])
        slots = asyncio.Semaphore(spec["concurrency"])
        started = time.perf_counter()

        async def one(url: str) -> str:
            async with slots:
                result = await crawler.arun(url, config=run)
            return str(result.markdown or "")

        markdown = await asyncio.gather(*(one(u) for u in spec["urls"]))
        wall = time.perf_counter() - started
        cpu = cpu_seconds([os.getpid(), *descendants(os.getpid())]) - tree0
    sampler.stop()
    await sampling
    print(
        json.dumps(
            {
                "pages": len(spec["urls"]),
                "wall": wall,
                "cpu": cpu,
                "peak_pss": sampler.peak,
                "breakdown": sampler.breakdown(),
                "markdown": markdown,
            }
        )
    )


if __name__ == "__main__":
    asyncio.run(main(json.loads(sys.argv[1])))
