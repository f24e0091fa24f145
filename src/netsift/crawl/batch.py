"""The `batch` job kind: a list of URLs fetched as one job (Firecrawl's batch scrape).

Each URL is fetched once through the Fetcher (the guard, robots.txt, the caps, the usage
meter), `concurrency` at once, and its page or its error is recorded in the job's results in
the crawl frontier's store, as a crawl's are, with the same `page` and `skipped` events: what
reads a crawl's results (kept pages, the report, the event stream) reads a batch's alike. A
batch follows no links and keeps every page, duplicates too: each URL asked for is answered.
A resumed batch reads only the URLs the earlier attempt left without a result.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import anyio
from pydantic import BaseModel

from ..errors import NetsiftError
from ..jobs.kind import JobContext, Kind, Outcome
from ..params import BatchFetchParams, FetchOptions
from .kind import crawl_partial, page_event
from .results import REPORT_BATCH

if TYPE_CHECKING:  # a Client registers the kind without loading the fetch stack
    from ..fetch.fetcher import Fetcher
    from .frontier import FrontierStore

__all__ = ["BATCH", "BatchProgress", "BatchSummary", "batch_kind"]

BATCH = "batch"


class BatchSummary(BaseModel):
    """A batch that ended: how many URLs it was given, kept as pages, and failed."""

    urls: int
    pages_read: int
    failed: int
    elapsed_ms: float


class BatchProgress(BaseModel):
    """How far a batch is (its checkpoint, saved after every URL): pages kept, URLs failed."""

    read: int = 0
    failed: int = 0


async def _recorded(frontier: FrontierStore, batch: str) -> tuple[set[int], BatchProgress]:
    """The URLs (by their place in the list) an earlier attempt recorded, and its counts."""
    done: set[int] = set()
    progress = BatchProgress()
    since = 0
    while rows := await frontier.results(batch, since=since, limit=REPORT_BATCH):
        for n, kind, data in rows:
            since = n
            done.add(int(data["index"]))
            if kind == "page":
                progress.read += 1
            else:
                progress.failed += 1
    return done, progress


def batch_kind(
    fetcher: Callable[[], Fetcher], frontier: Callable[[], FrontierStore]
) -> Kind[BatchFetchParams, BatchSummary]:
    """The kind, over the Client's fetcher and frontier store (each built at first use)."""

    async def run(context: JobContext[BatchFetchParams, BatchProgress]) -> Outcome[BatchSummary]:
        params, batch, results = context.params, context.job.id, frontier()
        started = time.monotonic()
        # The frontier numbers the batch's results; a batch claims nothing, so none of the
        # budgets a crawl records there applies (every URL given is read once).
        await results.start(batch, max_pages=len(params.urls), max_bytes=0, deadline=0.0)
        done: set[int] = set()
        progress = BatchProgress()
        if context.saved is not None:
            done, progress = await _recorded(results, batch)
        gate = anyio.Semaphore(params.concurrency)

        async def read(index: int, url: str) -> None:
            async with gate:
                try:
                    page = await fetcher().fetch(
                        FetchOptions(
                            url=url,
                            format=params.format,
                            respect_robots=params.respect_robots,
                            timeout=params.timeout,
                            no_cache=params.no_cache,
                            keep_source=params.keep_source,
                            error_pages=params.error_pages,
                        )
                    )
                except NetsiftError as error:
                    skipped = {"url": url, "code": error.code, "message": error.message}
                    data: dict[str, Any] = {**skipped, "index": index}
                    n = await results.record(batch, "skipped", url, data)
                    progress.failed += 1
                    await context.emit("skipped", {"n": n, **data})
                else:
                    data = {"depth": 0, "index": index, "page": page.model_dump(mode="json")}
                    n = await results.record(batch, "page", page.final_url, data)
                    progress.read += 1
                    await context.emit("page", page_event(n, data))
                await context.save(progress)

        async with anyio.create_task_group() as group:
            for index, url in enumerate(params.urls):
                if index not in done:
                    group.start_soon(read, index, url)
        await results.stop(batch, "done")
        summary = BatchSummary(
            urls=len(params.urls),
            pages_read=progress.read,
            failed=progress.failed,
            elapsed_ms=round((time.monotonic() - started) * 1000, 1),
        )
        return Outcome(summary)

    return Kind(
        BATCH,
        BatchFetchParams,
        BatchSummary,
        run,
        checkpoint=BatchProgress,
        partial=crawl_partial,
    )
