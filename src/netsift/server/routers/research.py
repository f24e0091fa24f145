"""Research jobs over HTTP: start, wait, stream, resume, list, cancel.

    POST   /v1/research                 a job (202); `?wait=true` answers with the report;
                                        `Accept: text/event-stream` streams its events
    GET    /v1/research                 recent jobs
    GET    /v1/research/{id}            the job, with its report once done
    GET    /v1/research/{id}/events     its events: JSON, or SSE live; a reconnecting client
                                        resumes after `Last-Event-ID` (or `?since=`)
    DELETE /v1/research/{id}            cancel it

Events are the job store's, numbered by `seq`, so the SSE `id:` of each is its seq and any
replica sharing the store can serve the rest of a stream another one started.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from datetime import datetime
from typing import Annotated, Any

from fastapi import APIRouter, Header, Query, Request
from fastapi.responses import JSONResponse, Response, StreamingResponse
from fastapi.sse import KEEPALIVE_COMMENT
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ...errors import InvalidInput, NetsiftError, error_from_dict
from ...models import Event, ResearchReport
from ...params import ResearchParams
from ...research.runner import ResearchRunner
from ...store.jobs import Job, JobStatus
from ..deps import CallerDep, ServerState, StateDep
from ..events import encode_sse
from ..responses import BODY, GUARDED, SSE, describe_validation, errors_for

__all__ = ["router", "sse_events", "ws_research"]

router = APIRouter(prefix="/v1/research", tags=["research"], responses=errors_for(*GUARDED))
KEEPALIVE_SECONDS = 15.0
MAX_WAIT_SECONDS = 3600.0


class ResearchRequest(ResearchParams):
    """Research a question: plans searches, reads sources, answers with verified citations."""


class FinishedResearch(ResearchReport):
    """The report of a job that ended, with the job's id (`POST /v1/research?wait=true`)."""

    job_id: str


class JobView(BaseModel):
    """A research job as the API shows it: its store record without the runner's bookkeeping
    (`owner`, `heartbeat_at`, `lease_until`); `result` holds the report (partial when cancelled)."""

    model_config = ConfigDict(extra="forbid")

    id: str
    kind: str
    status: JobStatus
    params: dict[str, Any]
    created_at: datetime
    updated_at: datetime
    result: dict[str, Any] | None
    error: dict[str, Any] | None
    last_seq: int
    attempts: int = Field(description="Claims by a worker; 2 or more: resumed after a stop.")
    cancel_requested: bool
    usage: dict[str, Any] = Field(description="Searches (by provider), pages and tokens spent.")


def _wants_sse(request: Request) -> bool:
    return "text/event-stream" in request.headers.get("accept", "")


# the largest seq a job store holds (SQLite's INTEGER); a longer number is bad input, not a 500
MAX_SEQ = 2**63 - 1


def _since(last_event_id: str | None, since: int | None) -> int:
    """Where a stream resumes: `Last-Event-ID` (what EventSource sends) wins over `?since=`."""
    if last_event_id is not None and last_event_id.strip():
        value = last_event_id.strip()
        if not (value.isascii() and value.isdigit() and len(value) < 20) or int(value) > MAX_SEQ:
            raise InvalidInput("Last-Event-ID must be the seq number of an event")
        return int(value)
    return since or 0


async def sse_events(
    runner: ResearchRunner, job_id: str, *, since: int, keepalive: float = KEEPALIVE_SECONDS
) -> AsyncIterator[bytes]:
    """The job's events after `since` as SSE, with keep-alive comments while it thinks."""
    async for event in runner.follow_idle(job_id, since=since, idle=keepalive):
        yield KEEPALIVE_COMMENT if event is None else encode_sse(event)


def _stream(runner: ResearchRunner, job: Job, since: int) -> StreamingResponse:
    return StreamingResponse(
        sse_events(runner, job.id, since=since),
        media_type="text/event-stream",
        headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no", "X-Job-Id": job.id},
    )


_BOOKKEEPING = {"owner", "heartbeat_at", "lease_until", "client"}


def _job_body(job: Job) -> dict[str, Any]:
    return job.model_dump(mode="json", exclude=_BOOKKEEPING)


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
    location = {"Location": f"/v1/research/{job.id}"}
    if _wants_sse(request):
        response = _stream(client.runner, job, 0)
        response.headers.update(location)
        return response
    if not wait:
        return JSONResponse(_job_body(job), status_code=202, headers=location)
    done = await client.runner.wait(job.id, timeout=params.deadline + 60)
    if done.status == "done" and done.result is not None:
        return JSONResponse({"job_id": job.id, **done.result}, headers=location)
    if done.error:
        raise error_from_dict(done.error)
    return JSONResponse(_job_body(done), status_code=202, headers=location)


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
    jobs = await client.jobs.list_jobs(limit=limit, status=status, before=before)
    return {"jobs": [j.model_dump(mode="json", exclude={"result", *_BOOKKEEPING}) for j in jobs]}


@router.get(
    "/{job_id}",
    summary="A research job and, once done, its report",
    response_model=None,
    responses={200: {"model": JobView}, **errors_for(404, 422)},
)
async def get_research(job_id: str, state: StateDep, _: CallerDep) -> dict[str, Any]:
    client = state.require_client()
    return _job_body(await client.jobs.get(job_id))


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
    job = await client.jobs.get(job_id)
    start = _since(last_event_id, since)
    if _wants_sse(request):
        return _stream(client.runner, job, start)
    events: list[Event] = await client.jobs.events(job_id, since=start)
    return JSONResponse(
        {
            "job_id": job_id,
            "status": job.status,
            "events": [e.model_dump(mode="json") for e in events],
        }
    )


@router.delete(
    "/{job_id}",
    summary="Cancel a research job",
    response_model=None,
    responses={200: {"model": JobView}, **errors_for(400, 404, 422)},
)
async def cancel_research(job_id: str, state: StateDep, _: CallerDep) -> dict[str, Any]:
    job = await state.require_client().runner.cancel(job_id)
    return _job_body(job)


class ResumeMessage(BaseModel):
    """WebSocket: follow a job already started, from the event after `since`. Strict like
    every body (`"since": "5"` or `true` is refused, not coerced)."""

    model_config = ConfigDict(extra="forbid", strict=True)

    request_id: str
    job_id: str = Field(min_length=1, max_length=64)
    since: int = Field(default=0, ge=0, le=MAX_SEQ)


async def ws_research(
    state: ServerState, fields: dict[str, Any], send: Callable[[dict[str, Any]], Awaitable[None]]
) -> None:
    """A WebSocket `research` message: start a job (the research fields) or resume one
    (`job_id` + `since`), then send every event with the message's `request_id`.

    Events keep the job's `seq`, so a client that lost its socket sends `{type: research,
    job_id, since: <last seq>}` on a new one and misses nothing. The `done` event carries the
    report. Failures are sent as an `error` for the request_id; nothing is raised."""
    request_id = fields.get("request_id")
    try:
        client = state.require_client()
        if "job_id" in fields:
            resume = ResumeMessage.model_validate(fields)
            job = await client.jobs.get(resume.job_id)
            since = resume.since
        else:
            body = {k: v for k, v in fields.items() if k != "request_id"}
            job = await client.start_research(ResearchParams.model_validate(body))
            since = 0
        async for event in client.runner.follow(job.id, since=since):
            await send({"request_id": request_id, **event.model_dump(mode="json")})
    except ValidationError as exc:
        await send(_ws_error(request_id, InvalidInput(describe_validation(exc))))
    except NetsiftError as exc:
        await send(_ws_error(request_id, exc))


def _ws_error(request_id: Any, error: NetsiftError) -> dict[str, Any]:
    return {"type": "error", "request_id": request_id, "seq": 0, "data": {"error": error.to_dict()}}
