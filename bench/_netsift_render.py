"""The netsift side of bench/render.py, in a process of its own like the peer's.

    .venv/bin/python bench/_netsift_render.py '{"urls": [...], "pins": {...}, ...}'

Only the Client is in this process (the offline web is served by bench/render.py), so its
process tree is netsift's alone: this process, the compute pool, Playwright's driver and
Chromium. Renders `urls` with `render="always"` (guard on, every request through HttpClient),
`concurrency` at once, after one warm-up render that starts the browser. Prints one JSON line:
pages, wall, cpu, peak_pss, breakdown (role -> [processes, PSS] at the peak), markdown.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _proctree import Sampler, cpu_seconds, descendants

from netsift.client import Client
from netsift.config import Settings


async def main(spec: dict[str, Any]) -> None:
    settings = Settings(
        _env_file=None,
        resolve=[f"{host}:{ip}" for host, ip in spec["pins"].items()],
        allow_networks=["127.0.0.1/32"],
        cache_url="memory://",
        render_concurrency=spec["concurrency"],
        workers=spec["workers"],
    )
    sampler = Sampler()
    sampling = asyncio.create_task(sampler.run())
    async with Client(settings) as client:
        warm = await client.fetch(spec["urls"][0], render="always")  # browser start: no page
        assert warm.rendered
        tree0 = cpu_seconds([os.getpid(), *descendants(os.getpid())])
        slots = asyncio.Semaphore(spec["concurrency"])
        started = time.perf_counter()

        async def one(url: str) -> str:
            async with slots:
                page = await client.fetch(url, render="always", no_cache=True)
            return page.content

        markdown = await asyncio.gather(*(one(u) for u in spec["urls"]))
        wall = time.perf_counter() - started
        cpu = cpu_seconds([os.getpid(), *descendants(os.getpid())]) - tree0
        renderer = client.fetcher.render_step.renderer
        launches, restarts = renderer.launches, renderer.restarts
    sampler.stop()
    await sampling
    out = {
        "pages": len(spec["urls"]),
        "wall": wall,
        "cpu": cpu,
        "peak_pss": sampler.peak,
        "breakdown": sampler.breakdown(),
        "markdown": markdown,
        "launches": launches,
        "restarts": restarts,
    }
    print(json.dumps(out))


if __name__ == "__main__":
    asyncio.run(main(json.loads(sys.argv[1])))
