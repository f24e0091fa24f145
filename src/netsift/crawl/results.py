"""A crawl's results as its readers see them: the pages it kept and the URLs it left out,
read from the crawl's frontier store in the order they were kept (any process, any time)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..models import CrawlReport, CrawlSkip, Page

if TYPE_CHECKING:
    from ..jobs.model import Job
    from .frontier import FrontierStore
    from .kind import CrawlSummary

__all__ = ["REPORT_BATCH", "crawl_report", "kept_page", "kept_pages", "skipped_urls"]

REPORT_BATCH = 500  # results read per round trip while a whole report is gathered


async def kept_pages(
    frontier: FrontierStore, crawl: str, *, since: int = 0, limit: int = 100
) -> list[tuple[int, int, Page]]:
    """Kept pages after result `since`: (n, depth, page), in the order they were kept."""
    rows = await frontier.results(crawl, since=since, limit=limit, kind="page")
    return [(n, int(data["depth"]), Page.model_validate(data["page"])) for n, _, data in rows]


async def kept_page(frontier: FrontierStore, crawl: str, n: int) -> Page | None:
    """The page kept as result `n` (the whole page of a `page` event), if it is one."""
    rows = await frontier.results(crawl, since=n - 1, limit=1, kind="page")
    if rows and rows[0][0] == n:
        return Page.model_validate(rows[0][2]["page"])
    return None


async def crawl_report(
    frontier: FrontierStore, job: Job, url: str, summary: CrawlSummary | None
) -> CrawlReport:
    """The crawl as one object: every page kept, every URL left out; `summary` is the
    finished crawl's (None when it did not finish: the job's status is why it stopped)."""
    pages: list[Page] = []
    skipped: list[CrawlSkip] = []
    since = 0
    while rows := await frontier.results(job.id, since=since, limit=REPORT_BATCH):
        for n, kind, data in rows:
            since = n
            if kind == "page":
                pages.append(Page.model_validate(data["page"]))
            else:
                fields = {k: data.get(k) for k in ("url", "code", "message", "duplicate_of")}
                skipped.append(CrawlSkip.model_validate(fields))
    return CrawlReport(
        url=url,
        job_id=job.id,
        pages=pages,
        skipped=skipped,
        pages_read=len(pages),
        bytes=sum(page.bytes for page in pages),
        stopped_because=summary.stopped_because if summary else [job.status],
        elapsed_ms=summary.elapsed_ms if summary else 0.0,
        traps=summary.traps if summary else [],
        trapped=summary.trapped if summary else 0,
        seen=summary.seen if summary else 0,
        skipped_by_code=summary.skipped_by_code if summary else {},
        unread=summary.unread if summary else 0,
        beyond_depth=summary.beyond_depth if summary else 0,
    )


async def skipped_urls(frontier: FrontierStore, crawl: str) -> list[CrawlSkip]:
    """The URLs left out so far, with why, in order (their rows only: no page is read)."""
    skipped: list[CrawlSkip] = []
    since = 0
    while rows := await frontier.results(crawl, since=since, limit=REPORT_BATCH, kind="skipped"):
        for n, _, data in rows:
            since = n
            fields = {k: data.get(k) for k in ("url", "code", "message", "duplicate_of")}
            skipped.append(CrawlSkip.model_validate(fields))
    return skipped
