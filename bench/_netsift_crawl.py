"""The netsift side of bench/crawl.py: one crawl of the bench site, in this process.

    python bench/_netsift_crawl.py '{"url": ..., "max_pages": N, "max_depth": D}'

Settings come from the environment (NETSIFT_RESOLVE pins the site's name). The crawl runs as
a job of this process's Client (`start_crawl`, then the report), with `sitemap="include"`
when CrawlParams has that field (sitemap seeding, added in parallel; without it the crawl
follows links alone). Prints one JSON line: the paths kept, how it stopped, whether the
sitemap was asked for, and the CPU seconds of this process's live descendants (the compute
pool and its forkserver) taken before the Client closes them: the bench's getrusage of its
children never sees those, as they are not reaped by this process.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench._proctree import cpu_seconds, descendants
from netsift.client import Client
from netsift.params import CrawlParams


async def main(spec: dict[str, Any]) -> None:
    fields: dict[str, Any] = dict(spec)
    sitemap = "sitemap" in CrawlParams.model_fields
    if sitemap:
        fields["sitemap"] = "include"
    async with Client() as client:
        job = await client.start_crawl(CrawlParams.model_validate(fields))
        job = await client.wait_job(job.id, timeout=3600)
        report = await client.crawl_report(job)
        pool_cpu = cpu_seconds(descendants(os.getpid()))
    kept = [urlsplit(page.final_url).path for page in report.pages]
    print(
        json.dumps(
            {
                "kept": kept,
                "stopped_because": report.stopped_because,
                "sitemap": "include" if sitemap else "not a CrawlParams field",
                "pool_cpu": pool_cpu,
            }
        )
    )


if __name__ == "__main__":
    asyncio.run(main(json.loads(sys.argv[1])))
