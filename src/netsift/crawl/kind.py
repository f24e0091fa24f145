"""The `crawl` job kinds: a crawl's own job and its helpers.

A crawl's own job seeds the frontier, reads, publishes the frontier's results as `page` and
`skipped` events (checkpointing how far it published) and ends the crawl. With `workers > 1`
it also spawns `crawl_helper` jobs, one per extra worker, that any `netsift worker` claims and
that read from the same frontier until the crawl is over. The job runtime (jobs/runtime.py)
starts, streams, resumes and cancels both like every other kind.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import anyio
from pydantic import BaseModel, Field

from ..jobs.kind import JobContext, Kind, Outcome
from ..models import Event
from ..params import CrawlParams

if TYPE_CHECKING:  # a Client registers the crawl kinds without loading the fetch stack
    from .crawler import Crawler
    from .frontier import FrontierStore

__all__ = [
    "CRAWL",
    "CRAWL_HELPER",
    "CrawlCheckpoint",
    "CrawlHelp",
    "CrawlKinds",
    "CrawlPartial",
    "CrawlSummary",
    "crawl_partial",
    "page_event",
]

CRAWL = "crawl"
CRAWL_HELPER = "crawl_helper"
PUBLISH_EVERY = 0.2  # seconds between publishing rounds of the crawl's own job
PUBLISH_BATCH = 200  # results read from the frontier per publishing round


class CrawlSummary(BaseModel):
    """A crawl that ended: how much it kept and why it stopped (its pages are paged)."""

    url: str
    pages_read: int
    bytes: int
    seen: int
    stopped_because: str
    elapsed_ms: float
    # The path patterns judged traps (their URLs were left unread), and how many URLs that was.
    traps: list[str] = Field(default_factory=list)
    trapped: int = 0


class CrawlCheckpoint(BaseModel):
    """How far the crawl's own job published the frontier's results, and its helpers."""

    published: int = 0
    helpers: list[str] = Field(default_factory=list)


class CrawlPartial(BaseModel):
    """What a crawl that did not finish had kept, from its events (its pages stay paged)."""

    partial: bool = True
    pages_read: int
    skipped: int
    pages: list[dict[str, Any]]  # each page's `page` event


class CrawlHelp(BaseModel):
    """A helper's params: the crawl it reads for (its own params are that job's)."""

    crawl: str


def crawl_partial(events: list[Event]) -> CrawlPartial:
    pages = [event.data for event in events if event.type == "page"]
    skipped = sum(1 for event in events if event.type == "skipped")
    return CrawlPartial(pages_read=len(pages), skipped=skipped, pages=pages)


def page_event(n: int, data: dict[str, Any]) -> dict[str, Any]:
    """A kept page as its `page` event shows it (the whole page is paged from the store)."""
    page = data.get("page", {})
    return {
        "n": n,
        "url": page.get("url"),
        "final_url": page.get("final_url"),
        "title": page.get("title"),
        "depth": data.get("depth"),
        "status": page.get("status"),
        "bytes": page.get("bytes"),
        "page_type": page.get("page_type"),
        "links": len(page.get("links", [])),
    }


class CrawlKinds:
    """The two kinds a crawl runs as, built over the crawler and its frontier (each built at
    first use: registering the kinds loads no fetch stack)."""

    def __init__(
        self, crawler: Callable[[], Crawler], frontier: Callable[[], FrontierStore]
    ) -> None:
        self._crawler = crawler
        self._frontier = frontier
        self.crawl: Kind[CrawlParams, CrawlSummary] = Kind(
            CRAWL,
            CrawlParams,
            CrawlSummary,
            self._lead,
            checkpoint=CrawlCheckpoint,
            partial=crawl_partial,
            on_cancel=self._cancelled,
        )
        self.helper: Kind[CrawlHelp, CrawlHelp] = Kind(
            CRAWL_HELPER, CrawlHelp, CrawlHelp, self._help
        )

    async def _cancelled(self, crawl: str) -> None:
        # No claim after this, wherever the crawl's helpers run (they also see the job end).
        await self._frontier().stop(crawl, "cancelled")

    async def _help(self, context: JobContext[CrawlHelp, Any]) -> Outcome[CrawlHelp]:
        """Read the crawl's frontier beside its own job until the crawl is over."""
        crawl = context.params.crawl
        params = self.crawl.params_of(await context.other(crawl))

        async def ended() -> bool:
            return (await context.other(crawl)).finished

        worker = context.job.owner or context.job.id
        await self._crawler().work(crawl, params, worker=worker, ended=ended)
        return Outcome(context.params)

    async def _lead(
        self, context: JobContext[CrawlParams, CrawlCheckpoint]
    ) -> Outcome[CrawlSummary]:
        engine = self._crawler()
        frontier = engine.frontier
        params, crawl = context.params, context.job.id
        worker = context.job.owner or context.job.id
        started = time.monotonic()
        await engine.seed(crawl, params)
        mark = context.saved or CrawlCheckpoint()
        if context.saved is None:
            for _ in range(params.workers - 1):
                helper = await context.spawn(self.helper, CrawlHelp(crawl=crawl))
                mark.helpers.append(helper.id)
        await context.save(mark)
        working = True

        async def publish() -> bool:
            rows = await frontier.results(crawl, since=mark.published, limit=PUBLISH_BATCH)
            for n, kind, data in rows:
                if kind == "page":
                    await context.emit("page", page_event(n, data))
                else:
                    await context.emit("skipped", {"n": n, **data})
                mark.published = n
            if rows:
                await context.save(mark)
            return bool(rows)

        async def publisher() -> None:
            while working:
                if not await publish():
                    await anyio.sleep(PUBLISH_EVERY)

        try:
            async with anyio.create_task_group() as group:
                group.start_soon(publisher)
                await engine.work(crawl, params, worker=worker)
                # Helpers may still hold pages in flight: their results are published too.
                await _settled(frontier, crawl)
                working = False
        finally:
            working = False
        while await publish():
            pass
        await frontier.stop(crawl, "done")  # a stop the budgets made first stays the reason
        status = await frontier.status(crawl)
        for helper_id in mark.helpers:  # helpers no worker claimed end with the crawl
            await context.conclude(helper_id, self.helper, CrawlHelp(crawl=crawl))
        summary = CrawlSummary(
            url=params.url,
            pages_read=status["pages"],
            bytes=status["bytes"],
            seen=status["seen"],
            stopped_because=status["stopped"] or "done",
            elapsed_ms=round((time.monotonic() - started) * 1000, 1),
            traps=list(status.get("traps", [])),
            trapped=int(status.get("trapped", 0)),
        )
        return Outcome(summary)


async def _settled(frontier: FrontierStore, crawl: str) -> None:
    """Return once no worker holds a page of the crawl in flight."""
    while True:  # the state is in the store, shared with other processes: poll it
        if not (await frontier.status(crawl))["in_flight"]:
            return
        await anyio.sleep(PUBLISH_EVERY)
