"""A crawl's or a batch's state in Firecrawl's words, for its status calls and its watcher:
progress, its documents (paged by result number, `next` pointing at the rest), its errors.

Both kinds keep their pages in the crawl frontier's results (crawl/batch.py), so one reading
serves both; only how far each is differs (a crawl's frontier, a batch's checkpoint)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import timedelta
from typing import TYPE_CHECKING, Annotated, Any

from fastapi import Query
from fastapi.requests import HTTPConnection

from ....crawl.batch import BATCH
from ....errors import BlockedByRobots
from ....jobs.model import Job
from ....models import ContentFormat
from .common import api_root, kept_document

if TYPE_CHECKING:
    from ....client import Client

__all__ = [
    "JOB_STATUS",
    "PAGE_SIZE",
    "Since",
    "cancel",
    "documents",
    "errors_body",
    "progress",
    "snapshot",
    "status_body",
]

PAGE_SIZE = 50  # documents per status answer; `next` points at the rest
# `expiresAt`: Firecrawl keeps a crawl's results 24 hours, and its v1 client requires the field.
# netsift keeps them longer (until the job store is cleared), so this is a lower bound.
KEPT = timedelta(hours=24)
ROBOTS_CODE = BlockedByRobots.code
# netsift's job statuses in Firecrawl's words.
JOB_STATUS = {
    "queued": "scraping",
    "running": "scraping",
    "done": "completed",
    "failed": "failed",
    "interrupted": "failed",
    "cancelled": "cancelled",
}
ENDED = frozenset({"completed", "failed", "cancelled"})

Since = Annotated[int, Query(ge=0, description="After this result (the cursor in `next`).")]


async def progress(client: Client, job: Job) -> tuple[int, int]:
    """(completed, total) as Firecrawl counts them: pages kept, and pages there will be. A
    batch's total is its URLs less those that failed (Firecrawl leaves failed scrapes out);
    a running crawl's is what it has found so far, within its page limit."""
    if job.kind == BATCH:
        done = await client.batch_progress(job.id)
        return done.read, len(job.params.get("urls", [])) - done.failed
    frontier = await client.crawl_progress(job.id)
    completed = int(frontier["pages"])
    planned = int(job.params.get("max_pages", completed))
    total = completed if job.finished else max(completed, min(int(frontier["seen"]), planned))
    return completed, total


def _content(job: Job) -> ContentFormat:
    return "html" if job.params.get("format") == "html" else "markdown"


async def documents(
    client: Client, job: Job, *, since: int = 0, limit: int | None = None
) -> AsyncIterator[tuple[int, dict[str, Any]]]:
    """The job's documents after result `since` (at most `limit`), with their result numbers."""
    content = _content(job)
    left = limit
    while left is None or left > 0:
        batch = PAGE_SIZE if left is None else min(left, PAGE_SIZE)
        rows = await client.crawl_pages(job.id, since=since, limit=batch)
        for n, _, page in rows:
            since = n
            yield n, kept_document(page, content)
        if left is not None:
            left -= len(rows)
        if len(rows) < batch:
            return


async def snapshot(client: Client, job: Job) -> dict[str, Any]:
    """The job's state without its documents: status, progress, when its results expire."""
    completed, total = await progress(client, job)
    body: dict[str, Any] = {
        "success": True,
        "status": JOB_STATUS.get(job.status, "failed"),
        "completed": completed,
        "total": total,
        "creditsUsed": completed,
        "expiresAt": (job.updated_at + KEPT).isoformat(),
    }
    if job.error:
        body["error"] = str(job.error.get("message", job.status))
    return body


async def status_body(
    connection: HTTPConnection, client: Client, job: Job, *, path: str, since: int
) -> dict[str, Any]:
    """A page of the job's documents after result `since`, with its state; `path` is the
    status route's (`v2/crawl`, `v1/batch/scrape`) for `next`."""
    page = [pair async for pair in documents(client, job, since=since, limit=PAGE_SIZE)]
    body = {**await snapshot(client, job), "data": [fields for _, fields in page]}
    if len(page) == PAGE_SIZE:  # more may follow: the next page starts after this one
        body["next"] = f"{api_root(connection)}/{path}/{job.id}?since={page[-1][0]}"
    return body


async def errors_body(client: Client, job: Job) -> dict[str, Any]:
    """The URLs the job left out and why; robots.txt refusals listed apart, as Firecrawl's."""
    skipped = await client.crawl_skipped(job.id)
    errors = [
        {"id": str(n), "url": skip.url, "error": skip.message or skip.code, "code": skip.code}
        for n, skip in enumerate(skipped, 1)
        if skip.code != ROBOTS_CODE
    ]
    blocked = [skip.url for skip in skipped if skip.code == ROBOTS_CODE]
    return {"errors": errors, "robotsBlocked": blocked}


async def cancel(client: Client, job_id: str, kind: str) -> dict[str, Any]:
    """Cancel the job; one that already ended is `already_finished`, Firecrawl's 409
    (firecrawl-py: not cancelled), its pages still readable."""
    ended = await client.cancel_job(job_id, kind=kind)
    return {"success": True, "status": JOB_STATUS.get(ended.status, "failed")}
