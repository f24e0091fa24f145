"""Render throughput and cost: pages/s, CPU and peak memory per rendered page.

    .venv/bin/python bench/render.py [--rounds 5] [--concurrency 2] [--crawl4ai PYTHON]
        [--workers N]

Serves the offline web's JavaScript pages (`tests/offline_web/spa.py`: a client-rendered
article, a hash-routed docs page, an infinite-scroll listing and a Discourse-like thread)
in-process on 127.0.0.1 and renders them `--rounds` times with the real Client
(`render="always"`, guard on, every request through HttpClient). It reports pages/s, CPU
seconds per page (this process plus the browser's processes, from /proc) and the peak
proportional memory (PSS) of this process plus the browser's (sampled every 50 ms), and checks that
each render found its page's text. `--workers` sets netsift's compute pool (`NETSIFT_WORKERS`:
the processes pages are extracted in, one per core by default), which is most of the memory
netsift holds beside the browser.

`--crawl4ai PYTHON` runs the same pages, interleaved, with Crawl4AI's Playwright crawler in
that interpreter (a venv where `crawl4ai` is installed; it is not a netsift dependency),
pointed at the same system Chromium; the peer's figures are measured the same way.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.offline_web.server import serve
from tests.offline_web.site import HOSTS, build_app
from tests.offline_web.spa import ARTICLE, DOCS, FEED_ITEMS, THREAD
from tests.offline_web.state import SiteState

from netsift.client import Client
from netsift.config import Settings
from netsift.render.memory import descendants

PAGES = {
    "/article": ARTICLE["paragraphs"][-1],
    "/docs#/guide/setup": DOCS["/guide/setup"][1][-1],
    "/feed": FEED_ITEMS[-1],
    "/t/thread": THREAD["posts"][-1][1],
}
SAMPLE_SECONDS = 0.05
TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def cpu_seconds(pids: list[int]) -> float:
    """utime+stime of live processes (reaped children are in RUSAGE_CHILDREN instead)."""
    total = 0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
            total += int(fields[11]) + int(fields[12])
        except (OSError, IndexError, ValueError):
            continue
    return total / TICKS


def pss_bytes(pids: list[int]) -> int:
    """Proportional set size: shared pages split between the processes that share them, so a
    multi-process browser is not counted several times over (RSS would)."""
    total = 0
    for pid in pids:
        try:
            for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
                if line.startswith("Pss:"):
                    total += int(line.split()[1]) * 1024
                    break
        except (OSError, ValueError, IndexError):
            continue
    return total


class Sampler:
    """Peak PSS of this process and all its descendants (the browser and its driver)."""

    def __init__(self) -> None:
        self.peak = 0
        self._stop = asyncio.Event()

    async def run(self) -> None:
        while not self._stop.is_set():
            self.peak = max(self.peak, pss_bytes([os.getpid(), *descendants(os.getpid())]))
            await asyncio.sleep(SAMPLE_SECONDS)

    def stop(self) -> None:
        self._stop.set()


async def netsift_round(urls: list[str], settings: Settings, concurrency: int) -> dict[str, Any]:
    sampler = Sampler()
    sampling = asyncio.create_task(sampler.run())
    cpu0 = os.times()
    found = 0
    async with Client(settings) as client:
        warm = await client.fetch(urls[0], render="always")  # browser start is not a page
        assert warm.rendered
        tree_cpu0 = cpu_seconds(descendants(os.getpid()))
        started = time.perf_counter()
        slots = asyncio.Semaphore(concurrency)

        async def one(url: str) -> None:
            nonlocal found
            async with slots:
                page = await client.fetch(url, render="always", no_cache=True)
            found += any(text in page.content for text in PAGES.values())

        await asyncio.gather(*(one(u) for u in urls))
        wall = time.perf_counter() - started
        tree_cpu = cpu_seconds(descendants(os.getpid())) - tree_cpu0
    cpu1 = os.times()
    sampler.stop()
    await sampling
    own = (cpu1.user - cpu0.user) + (cpu1.system - cpu0.system)
    return {
        "pages": len(urls),
        "found": found,
        "wall": wall,
        "cpu": own + tree_cpu,
        "peak_rss": sampler.peak,
    }


def crawl4ai_round(
    python: str, urls: list[str], pins: dict[str, str], concurrency: int
) -> dict[str, Any]:
    """Run bench/_crawl4ai_peer.py in the peer's interpreter; it prints one JSON line."""
    peer = Path(__file__).with_name("_crawl4ai_peer.py")
    out = subprocess.run(
        [python, str(peer), json.dumps({"urls": urls, "pins": pins, "concurrency": concurrency})],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    if out.returncode != 0:
        return {"error": (out.stderr or out.stdout).strip().splitlines()[-1:]}
    data: dict[str, Any] = json.loads(out.stdout.strip().splitlines()[-1])
    data["found"] = sum(any(t in md for t in PAGES.values()) for md in data.pop("markdown"))
    return data


def report(name: str, r: dict[str, Any]) -> str:
    if "error" in r:
        return f"| {name} | failed: {r['error']} | | | |"
    pages = r["pages"]
    return (
        f"| {name} | {pages / r['wall']:.2f} | {r['cpu'] / pages * 1000:.0f} ms "
        f"| {r['peak_rss'] / 2**20:.0f} MiB | {r['found']}/{pages} |"
    )


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--concurrency", type=int, default=2)
    parser.add_argument("--crawl4ai", metavar="PYTHON", default=None)
    parser.add_argument("--workers", type=int, default=0, help="compute workers (0: per core)")
    args = parser.parse_args()
    state = SiteState()
    with serve(build_app(state)) as server:
        urls = [f"http://spa.test:{server.port}{path}" for path in PAGES] * args.rounds
        settings = Settings(
            _env_file=None,
            resolve=[f"{host}:127.0.0.1" for host in HOSTS],
            allow_networks=["127.0.0.1/32"],
            cache_url="memory://",
            render_concurrency=args.concurrency,
            workers=args.workers,
        )
        rows = [report("netsift (guarded)", await netsift_round(urls, settings, args.concurrency))]
        if args.crawl4ai:
            pins = {"spa.test": "127.0.0.1"}
            peer = await asyncio.to_thread(
                crawl4ai_round, args.crawl4ai, urls, pins, args.concurrency
            )
            rows.append(report("Crawl4AI (Playwright)", peer))
            rows.append(
                report("netsift again", await netsift_round(urls, settings, args.concurrency))
            )
    print(f"{len(urls)} renders of {len(PAGES)} JavaScript pages, concurrency {args.concurrency}")
    print("| crawler | pages/s | CPU per page | peak PSS | text found |")
    print("| --- | --- | --- | --- | --- |")
    print("\n".join(rows))


if __name__ == "__main__":
    asyncio.run(main())
