"""The peer side of bench/render.py: Crawl4AI's Playwright crawler on the same pages.

Run by bench/render.py in an interpreter where `crawl4ai` is installed (not netsift's venv):

    PYTHON bench/_crawl4ai_peer.py '{"urls": [...], "pins": {"spa.test": "127.0.0.1"}, ...}'

Crawl4AI has no setting for the browser's executable, and Playwright's own Chromium cannot be
downloaded here, so Playwright's `launch` is given the system Chromium (`CHROMIUM`, default
`chromium` on PATH); the test hostnames are pinned with Chromium's own resolver rules. Its
settings for JavaScript pages: wait for network idle, scan the full page (scrolling), no cache.
Prints one JSON line: pages, wall, cpu, peak_rss (PSS, bytes) and each page's Markdown.
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

TICKS = os.sysconf("SC_CLK_TCK")


def descendants(root: int) -> list[int]:
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text().rpartition(")")[2].split()
            except OSError:
                continue
            children.setdefault(int(stat[1]), []).append(int(entry))
    found, stack = [], list(children.get(root, []))
    while stack:
        pid = stack.pop()
        found.append(pid)
        stack.extend(children.get(pid, []))
    return found


def pss(pids: list[int]) -> int:
    total = 0
    for pid in pids:
        try:
            for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
                if line.startswith("Pss:"):
                    total += int(line.split()[1]) * 1024
                    break
        except (OSError, ValueError):
            continue
    return total


def cpu(pids: list[int]) -> float:
    total = 0
    for pid in pids:
        try:
            f = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
            total += int(f[11]) + int(f[12])
        except (OSError, IndexError, ValueError):
            continue
    return total / TICKS


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
    peak = 0
    stop = asyncio.Event()

    async def sample() -> None:
        nonlocal peak
        while not stop.is_set():
            peak = max(peak, pss([os.getpid(), *descendants(os.getpid())]))
            await asyncio.sleep(0.05)

    sampling = asyncio.create_task(sample())
    own0 = os.times()
    async with AsyncWebCrawler(config=browser) as crawler:
        await crawler.arun(spec["urls"][0], config=run)  # browser start is not a page
        tree0 = cpu(descendants(os.getpid()))
        slots = asyncio.Semaphore(spec["concurrency"])
        started = time.perf_counter()

        async def one(url: str) -> str:
            async with slots:
                result = await crawler.arun(url, config=run)
            return str(result.markdown or "")

        markdown = await asyncio.gather(*(one(u) for u in spec["urls"]))
        wall = time.perf_counter() - started
        tree = cpu(descendants(os.getpid())) - tree0
    own1 = os.times()
    stop.set()
    await sampling
    own = (own1.user - own0.user) + (own1.system - own0.system)
    print(
        json.dumps(
            {
                "pages": len(spec["urls"]),
                "wall": wall,
                "cpu": own + tree,
                "peak_rss": peak,
                "markdown": markdown,
            }
        )
    )


if __name__ == "__main__":
    asyncio.run(main(json.loads(sys.argv[1])))
