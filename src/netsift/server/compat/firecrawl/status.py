"""A crawl's or a batch's state in Firecrawl's words, for its status calls and its watcher:
progress, its documents (paged by result number, `next` pointing at the rest), its errors.

Both kinds keep their pages in the crawl frontier's results (crawl/batch.py), so one reading
serves both; only how far each is differs (a crawl's frontier, a batch's checkpoint)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from datetime import timedelta
from typing import TYPE_CHECKING, Annotated, Any

from fastapi import APIRouter, Query, Request
from fastapi.requests import HTTPConnection

from ....crawl.batch import BATCH
from ....errors import AlreadyFinished, BlockedByRobots
from ....jobs.model import Job
from ....models import ContentFormat
from ...deps import CallerDep, StateDep
from ...operations import Operations
from .common import api_root, kept_document
from .job_formats import derived_fields

if TYPE_CHECKING:
    from ....client import Client

__all__ = [
    "JOB_STATUS",
    "PAGE_SIZE",
    "Since",
    "cancel",
    "documents",
    "errors_body",
    "job_routes",
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
    ops: Operations, job: Job, *, since: int = 0, limit: int | None = None
) -> AsyncIterator[tuple[int, dict[str, Any]]]:
    """The job's documents after result `since` (at most `limit`), with their result numbers,
    and the structured formats the job asked for (job_formats.py)."""
    content = _content(job)
    left = limit
    while left is None or left > 0:
        batch = PAGE_SIZE if left is None else min(left, PAGE_SIZE)
        rows = await ops.client.crawl_pages(job.id, since=since, limit=batch)
        derived = await derived_fields(ops, job.id, [(n, page) for n, _, page in rows])
        for n, _, page in rows:
            since = n
            yield n, {**kept_document(page, content), **derived.get(n, {})}
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
    connection: HTTPConnection, ops: Operations, job: Job, *, path: str, since: int
) -> dict[str, Any]:
    """A page of the job's documents after result `since`, with its state; `path` is the
    status route's (`v2/crawl`, `v1/batch/scrape`) for `next`."""
    page = [pair async for pair in documents(ops, job, since=since, limit=PAGE_SIZE)]
    body = {**await snapshot(ops.client, job), "data": [fields for _, fields in page]}
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
    """Cancel the job. Firecrawl answers `cancelled` to a cancel whatever the job's state, and
    its clients read nothing else (firecrawl-py: `status == "cancelled"`): here that means
    nothing of the job runs any more. A job that had already ended is not marked cancelled
    (netsift's own doors answer it 409 `already_finished`); the answer says how it ended, in
    `jobStatus`, and why in `warning`, its pages still readable."""
    try:
        ended, before = await client.cancel_job(job_id, kind=kind), False
    except AlreadyFinished:
        ended, before = await client.job(job_id, kind=kind), True
    status = JOB_STATUS.get(ended.status, "failed")
    # Ended before the cancel, or on its own while the cancel reached it (a short batch).
    if before or (ended.finished and ended.status != "cancelled"):
        return {
            "success": True,
            "status": "cancelled",
            "jobStatus": status,
            "warning": f"the job had already ended ({status}): nothing was left to cancel",
        }
    return {"success": True, "status": status}


def job_routes(router: APIRouter, kind: str, path: str, name: str) -> None:
    """A job kind's status (paged), cancel and errors routes, v1 and v2, at
    `/v{1,2}/{path}/{job_id}`: a crawl's and a batch scrape's differ only by kind and path."""

    def status_route(version: str) -> Callable[..., Awaitable[dict[str, Any]]]:
        async def status(
            job_id: str, request: Request, state: StateDep, caller: CallerDep, since: Since = 0
        ) -> dict[str, Any]:
            ops = Operations(state, caller)
            job = await ops.client.job(job_id, kind=kind)
            return await status_body(request, ops, job, path=f"{version}/{path}", since=since)

        return status

    for version in ("v2", "v1"):
        router.get(
            f"/{version}/{path}/{{job_id}}", summary=f"Firecrawl {version} {name} status, paged"
        )(status_route(version))

    @router.delete(f"/v2/{path}/{{job_id}}", summary=f"Firecrawl {name} cancel")
    @router.delete(f"/v1/{path}/{{job_id}}", summary=f"Firecrawl {name} cancel")
    async def cancel_job(job_id: str, state: StateDep, _: CallerDep) -> dict[str, Any]:
        return await cancel(state.require_client(), job_id, kind)

    @router.get(f"/v2/{path}/{{job_id}}/errors", summary=f"Firecrawl {name} errors")
    @router.get(f"/v1/{path}/{{job_id}}/errors", summary=f"Firecrawl {name} errors")
    async def job_errors(job_id: str, state: StateDep, _: CallerDep) -> dict[str, Any]:
        client = state.require_client()
        return await errors_body(client, await client.job(job_id, kind=kind))
