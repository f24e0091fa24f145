"""The `crawl` job kinds: a crawl's own job and its helpers.

A crawl's own job seeds the frontier, reads, publishes the frontier's results as `page` and
`skipped` events (checkpointing how far it published, and what it counted) and ends the
crawl: its summary names every reason it ended short (`stopped_because`) and counts the URLs
it saw, kept, skipped by reason and left unread. A crawl that kept nothing because its start
URL was refused fails with that URL's error. With `workers > 1`
it also spawns `crawl_helper` jobs, one per extra worker, that any `netsift worker` claims and
that read from the same frontier until the crawl is over. The job runtime (jobs/runtime.py)
starts, streams, resumes and cancels both like every other kind.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import anyio
from pydantic import BaseModel, Field, field_validator

from ..errors import error_from_dict
from ..jobs.kind import JobContext, Kind, Outcome
from ..models import Event
from ..params import CrawlParams
from .frontier.rules import endings

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
# What a start URL's `skipped` result may say without the crawl's start being refused: it was
# kept under another URL, or left for a trap.
NOT_REFUSED = frozenset({"duplicate", "trap"})


class CrawlSummary(BaseModel):
    """A crawl that ended: how much it kept, what it left and why (its pages are paged)."""

    url: str
    pages_read: int
    bytes: int
    # Every URL the crawl met: queued, refused, or linked past max_depth.
    seen: int
    # Every reason it ended short (rules.endings): max_pages, max_bytes, time, cancelled, trap,
    # max_depth; ["done"] when it read all it was allowed to.
    stopped_because: list[str]
    elapsed_ms: float
    # The path patterns judged traps (their URLs were left unread), and how many URLs that was.
    traps: list[str] = Field(default_factory=list)
    trapped: int = 0
    # URLs left out, by the code of their `skipped` result (duplicate, out_of_scope, trap, …).
    skipped_by_code: dict[str, int] = Field(default_factory=dict)
    # URLs in scope never asked for: left when a budget stopped it, a trap's, past max_depth.
    unread: int = 0
    beyond_depth: int = 0  # of those, linked past max_depth only

    @field_validator("stopped_because", mode="before")
    @classmethod
    def _one_reason(cls, value: Any) -> Any:
        """A summary stored before every reason was listed held the first one alone."""
        return [value] if isinstance(value, str) else value


class CrawlCheckpoint(BaseModel):
    """How far the crawl's own job published the frontier's results (and what they were),
    and its helpers."""

    published: int = 0
    helpers: list[str] = Field(default_factory=list)
    skipped: dict[str, int] = Field(default_factory=dict)
    start_error: dict[str, Any] | None = None  # why the start URL was refused, if it was


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
                    code = str(data.get("code"))
                    mark.skipped[code] = mark.skipped.get(code, 0) + 1
                    if _refuses_start(data, params.url):
                        mark.start_error = {"code": code, "message": data.get("message", "")}
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
                await frontier.settle(crawl)  # held pages: kept, or dropped as a trap's
                working = False
        finally:
            working = False
        while await publish():
            pass
        await frontier.stop(crawl, "done")  # a stop the budgets made first stays the reason
        status = await frontier.status(crawl)
        for helper_id in mark.helpers:  # helpers no worker claimed end with the crawl
            await context.conclude(helper_id, self.helper, CrawlHelp(crawl=crawl))
        if not status["pages"] and mark.start_error is not None:
            raise error_from_dict(mark.start_error)  # nothing read: the start was refused
        trapped, beyond = int(status["trapped"]), int(status["beyond_depth"])
        summary = CrawlSummary(
            url=params.url,
            pages_read=status["pages"],
            bytes=status["bytes"],
            seen=status["seen"] + beyond,
            stopped_because=endings(
                status["stopped"], pending=status["pending"], trapped=trapped, beyond_depth=beyond
            ),
            elapsed_ms=round((time.monotonic() - started) * 1000, 1),
            traps=list(status["traps"]),
            trapped=trapped,
            skipped_by_code=dict(sorted(mark.skipped.items())),
            unread=status["pending"] + trapped + beyond,
            beyond_depth=beyond,
        )
        return Outcome(summary)


def _refuses_start(data: dict[str, Any], start: str) -> bool:
    """Whether a `skipped` result says the crawl's start URL was refused (not read at all)."""
    return (
        data.get("url") == start
        and not data.get("links_only")
        and data.get("code") not in NOT_REFUSED
    )


async def _settled(frontier: FrontierStore, crawl: str) -> None:
    """Return once no worker holds a page of the crawl in flight."""
    while True:  # the claims are in the store, shared with other processes: poll it
        if not await frontier.in_flight(crawl):
            return
        await anyio.sleep(PUBLISH_EVERY)
