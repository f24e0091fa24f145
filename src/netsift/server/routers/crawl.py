"""Crawl jobs over HTTP: start, wait, stream, page through, list, cancel.

    POST   /v1/crawl                 a job (202); `?wait=true` answers with the summary once
                                     it ends; `Accept: text/event-stream` streams its events
    GET    /v1/crawl/{id}            the job (its summary once done)
    GET    /v1/crawl/{id}/events     its events (`page`, `skipped`, `done`): JSON, or SSE live
                                     that resumes after `Last-Event-ID` (or `?since=`)
    GET    /v1/crawl/{id}/pages      its pages, whole, in the order they were kept: `?since=`
                                     the last `n` seen, `limit` at most; `next` says where to go on
    DELETE /v1/crawl/{id}            cancel it (its pages so far stay readable; 409
                                     `already_finished` once it has ended)

The job machinery is every job's (server/job_api.py: same store, same event numbering, same
SSE resumption), so this router only translates; the pages come from the crawl's frontier store
(through Client's crawl methods).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Annotated, Any

from fastapi import APIRouter, Header, Query, Request
from fastapi.responses import Response
from pydantic import BaseModel, ConfigDict, Field

from ...jobs.model import Job
from ...models import Page
from ...params import CrawlParams
from ..deps import CallerDep, ServerState, StateDep
from ..job_api import (
    MAX_SEQ,
    JobView,
    answer_events,
    answer_started,
    job_body,
    ws_job,
)
from ..responses import BODY, GUARDED, SSE, errors_for

if TYPE_CHECKING:
    from ...client import Client

__all__ = ["router", "ws_crawl"]

router = APIRouter(prefix="/v1/crawl", tags=["crawl"], responses=errors_for(*GUARDED))
MAX_PAGES_PER_CALL = 100  # a page of results: a hundred full pages is already megabytes


class CrawlRequest(CrawlParams):
    """Crawl a site: its pages as Markdown with their links, within scope, robots.txt and
    budgets; progress streams as events, the pages are paged."""


class CrawledPage(BaseModel):
    model_config = ConfigDict(extra="forbid")

    n: int = Field(description="Its number in the crawl's results (pass as `since`).")
    depth: int
    page: Page


class CrawlPages(BaseModel):
    model_config = ConfigDict(extra="forbid")

    job_id: str
    status: str
    pages: list[CrawledPage]
    next: int | None = Field(description="`since` for the next call; None when none remain.")


@router.post(
    "",
    status_code=202,
    summary="Start a crawl",
    response_model=None,
    responses={
        200: {"description": "With `wait=true`: the ended crawl's summary", "content": SSE},
        202: {"description": "The crawl job, started", "model": JobView},
        **errors_for(*BODY),
    },
)
async def start_crawl(
    body: CrawlRequest,
    request: Request,
    state: StateDep,
    _: CallerDep,
    wait: Annotated[bool, Query(description="Answer when the crawl ends.")] = False,
) -> Response:
    client = state.require_client()
    params = CrawlParams.model_validate(body.model_dump())
    job = await client.start_crawl(params)
    return await answer_started(
        request, client, job, wait=wait, deadline=params.deadline, path=router.prefix
    )


@router.get(
    "/{job_id}",
    summary="A crawl job and, once done, its summary",
    response_model=None,
    responses={200: {"model": JobView}, **errors_for(400, 404, 422)},
)
async def get_crawl(job_id: str, state: StateDep, _: CallerDep) -> dict[str, Any]:
    return job_body(await state.require_client().job(job_id, kind="crawl"))


@router.get(
    "/{job_id}/events",
    summary="A crawl's events (JSON, or SSE that resumes after Last-Event-ID)",
    responses={
        200: {"content": {"application/json": {"schema": {"type": "object"}}, **SSE}},
        **errors_for(400, 404, 422),
    },
)
async def crawl_events(
    job_id: str,
    request: Request,
    state: StateDep,
    _: CallerDep,
    since: Annotated[
        int | None, Query(ge=0, le=MAX_SEQ, description="Only events after this seq.")
    ] = None,
    last_event_id: Annotated[str | None, Header()] = None,
) -> Response:
    client = state.require_client()
    job = await client.job(job_id, kind="crawl")
    return await answer_events(request, client, job, since=since, last_event_id=last_event_id)


@router.get(
    "/{job_id}/pages",
    summary="A crawl's pages, whole, paged in the order they were kept",
    response_model=CrawlPages,
    responses=errors_for(400, 404, 422),
)
async def crawl_pages(
    job_id: str,
    state: StateDep,
    _: CallerDep,
    since: Annotated[int, Query(ge=0, le=MAX_SEQ, description="After this page's `n`.")] = 0,
    limit: Annotated[int, Query(ge=1, le=MAX_PAGES_PER_CALL)] = 20,
) -> CrawlPages:
    client = state.require_client()
    job = await client.job(job_id, kind="crawl")
    rows = await client.crawl_pages(job_id, since=since, limit=limit)
    pages = [CrawledPage(n=n, depth=depth, page=page) for n, depth, page in rows]
    more = len(rows) == limit or not job.finished
    return CrawlPages(
        job_id=job_id,
        status=job.status,
        pages=pages,
        next=(pages[-1].n if pages else since) if more else None,
    )


@router.delete(
    "/{job_id}",
    summary="Cancel a crawl (409 `already_finished` once it has ended)",
    response_model=None,
    responses={200: {"model": JobView}, **errors_for(400, 404, 409, 422)},
)
async def cancel_crawl(job_id: str, state: StateDep, _: CallerDep) -> dict[str, Any]:
    return job_body(await state.require_client().cancel_job(job_id, kind="crawl"))


async def ws_crawl(
    state: ServerState, fields: dict[str, Any], send: Callable[[dict[str, Any]], Awaitable[None]]
) -> None:
    """A WebSocket `crawl` message: start a crawl (the crawl fields) or follow one (`job_id`
    + `since`), then send each of its events with the message's `request_id` — research's
    protocol (job_api.ws_job), the pages paged over HTTP. Nothing is raised."""

    async def start(client: Client, body: dict[str, Any]) -> Job:
        return await client.start_crawl(CrawlParams.model_validate(body))

    await ws_job(state, fields, send, start=start, kind="crawl")
