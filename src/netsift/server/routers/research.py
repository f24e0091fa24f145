"""Research jobs over HTTP: start, wait, stream, resume, list, cancel.

    POST   /v1/research                 a job (202); `?wait=true` answers with the report;
                                        `Accept: text/event-stream` streams its events
    GET    /v1/research                 recent jobs
    GET    /v1/research/{id}            the job, with its report once done
    GET    /v1/research/{id}/events     its events: JSON, or SSE live; a reconnecting client
                                        resumes after `Last-Event-ID` (or `?since=`)
    DELETE /v1/research/{id}            cancel it (409 `already_finished` once it has ended)

Events are the job store's, numbered by `seq`, so the SSE `id:` of each is its seq and any
replica sharing the store can serve the rest of a stream another one started.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Annotated, Any

from fastapi import APIRouter, Header, Query, Request
from fastapi.responses import Response

from ...jobs.model import Job, JobStatus
from ...models import ResearchReport
from ...params import ResearchParams
from ..deps import CallerDep, ServerState, StateDep
from ..job_api import (
    MAX_SEQ,
    JobView,
    answer_events,
    answer_started,
    job_body,
    sse_events,
    ws_job,
)
from ..responses import BODY, GUARDED, SSE, errors_for

if TYPE_CHECKING:
    from ...client import Client

__all__ = ["router", "sse_events", "ws_research"]

router = APIRouter(prefix="/v1/research", tags=["research"], responses=errors_for(*GUARDED))


class ResearchRequest(ResearchParams):
    """Research a question: plans searches, reads sources, answers with verified citations."""


class FinishedResearch(ResearchReport):
    """The report of a job that ended, with the job's id (`POST /v1/research?wait=true`)."""

    job_id: str


@router.post(
    "",
    status_code=202,
    summary="Start a research job",
    response_model=None,
    responses={
        200: {
            "description": "With `wait=true`: the finished job's report; with `Accept: "
            "text/event-stream`: the job's events as they happen",
            "model": FinishedResearch,
            "content": SSE,
        },
        202: {
            "description": "The job, started (or still running after the wait)",
            "model": JobView,
        },
        # With wait=true the job's own failure is the answer: a model or every provider
        # failing (502), a budget (429) or a deadline (504).
        **errors_for(*BODY, 502, 504),
    },
)
async def start_research(
    body: ResearchRequest,
    request: Request,
    state: StateDep,
    _: CallerDep,
    wait: Annotated[bool, Query(description="Answer with the report when the job ends.")] = False,
) -> Response:
    client = state.require_client()
    params = ResearchParams.model_validate(body.model_dump())
    job = await client.start_research(params)
    return await answer_started(
        request, client, job, wait=wait, deadline=params.deadline, path=router.prefix
    )


@router.get("", summary="Recent research jobs", responses=errors_for(404, 422))
async def list_research(
    state: StateDep,
    _: CallerDep,
    status: Annotated[JobStatus | None, Query(description="Only jobs in this status.")] = None,
    limit: Annotated[int, Query(ge=1, le=500)] = 50,
    before: Annotated[
        str | None,
        Query(max_length=64, description="Continue after this job id (the last one listed)."),
    ] = None,
) -> dict[str, Any]:
    client = state.require_client()
    jobs = await client.list_jobs(limit=limit, status=status, before=before)
    return {"jobs": [job_body(j, exclude=frozenset({"result"})) for j in jobs]}


@router.get(
    "/{job_id}",
    summary="A research job and, once done, its report",
    response_model=None,
    responses={200: {"model": JobView}, **errors_for(404, 422)},
)
async def get_research(job_id: str, state: StateDep, _: CallerDep) -> dict[str, Any]:
    client = state.require_client()
    return job_body(await client.job(job_id))


@router.get(
    "/{job_id}/events",
    summary="A research job's events (JSON, or SSE that resumes after Last-Event-ID)",
    responses={
        200: {"content": {"application/json": {"schema": {"type": "object"}}, **SSE}},
        **errors_for(400, 404, 422),
    },
)
async def research_events(
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
    job = await client.job(job_id)
    return await answer_events(request, client, job, since=since, last_event_id=last_event_id)


@router.delete(
    "/{job_id}",
    summary="Cancel a research job (409 `already_finished` once it has ended)",
    response_model=None,
    responses={200: {"model": JobView}, **errors_for(400, 404, 409, 422)},
)
async def cancel_research(job_id: str, state: StateDep, _: CallerDep) -> dict[str, Any]:
    job = await state.require_client().cancel_job(job_id)
    return job_body(job)


async def ws_research(
    state: ServerState, fields: dict[str, Any], send: Callable[[dict[str, Any]], Awaitable[None]]
) -> None:
    """A WebSocket `research` message: start a job (the research fields) or resume one
    (`job_id` + `since`), then send every event with the message's `request_id`; the `done`
    event carries the report (job_api.ws_job)."""

    async def start(client: Client, body: dict[str, Any]) -> Job:
        return await client.start_research(ResearchParams.model_validate(body))

    await ws_job(state, fields, send, start=start)
