"""Jobs over HTTP and WebSocket, whatever their kind: research and crawl routers both use this.

A job is started, then answered in one of three ways (202 with the job, the result once it ends
with `?wait=true`, or its events as SSE); its events are read as JSON or followed live; a
WebSocket message starts one or follows it from a `seq`. Events are the job store's, numbered
by `seq`, so the SSE `id:` of each is its seq and any replica sharing the store can serve the
rest of a stream another one started.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from datetime import datetime
from typing import TYPE_CHECKING, Any

from fastapi import Request
from fastapi.responses import JSONResponse, Response, StreamingResponse
from fastapi.sse import KEEPALIVE_COMMENT
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ..errors import InvalidInput, NetsiftError, error_from_dict
from ..jobs.model import Job, JobStatus
from ..models import Event
from .deps import ServerState
from .events import KEEPALIVE_SECONDS, encode_sse
from .responses import describe_validation

if TYPE_CHECKING:
    from ..client import Client

__all__ = [
    "MAX_SEQ",
    "JobView",
    "ResumeMessage",
    "answer_events",
    "answer_started",
    "job_body",
    "since_of",
    "sse_events",
    "stream",
    "wants_sse",
    "ws_job",
]

# the largest seq a job store holds (SQLite's INTEGER); a longer number is bad input, not a 500
MAX_SEQ = 2**63 - 1
# seconds a `?wait=true` answer waits past the job's own deadline before it answers 202
WAIT_MARGIN = 60
_BOOKKEEPING = {"owner", "heartbeat_at", "lease_until", "client"}


class JobView(BaseModel):
    """A job as the API shows it: its store record without the runtime's bookkeeping
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


class ResumeMessage(BaseModel):
    """WebSocket: follow a job already started, from the event after `since`. Strict like
    every body (`"since": "5"` or `true` is refused, not coerced)."""

    model_config = ConfigDict(extra="forbid", strict=True)

    request_id: str
    job_id: str = Field(min_length=1, max_length=64)
    since: int = Field(default=0, ge=0, le=MAX_SEQ)


def job_body(job: Job, *, exclude: frozenset[str] = frozenset()) -> dict[str, Any]:
    return job.model_dump(mode="json", exclude=_BOOKKEEPING | exclude)


def wants_sse(request: Request) -> bool:
    return "text/event-stream" in request.headers.get("accept", "")


def since_of(last_event_id: str | None, since: int | None) -> int:
    """Where a stream resumes: `Last-Event-ID` (what EventSource sends) wins over `?since=`."""
    if last_event_id is not None and last_event_id.strip():
        value = last_event_id.strip()
        if not (value.isascii() and value.isdigit() and len(value) < 20) or int(value) > MAX_SEQ:
            raise InvalidInput("Last-Event-ID must be the seq number of an event")
        return int(value)
    return since or 0


async def sse_events(
    client: Client, job_id: str, *, since: int, keepalive: float = KEEPALIVE_SECONDS
) -> AsyncIterator[bytes]:
    """The job's events after `since` as SSE, with keep-alive comments while it thinks."""
    async for event in client.follow_job_idle(job_id, since=since, idle=keepalive):
        yield KEEPALIVE_COMMENT if event is None else encode_sse(event)


def stream(client: Client, job: Job, since: int) -> StreamingResponse:
    return StreamingResponse(
        sse_events(client, job.id, since=since),
        media_type="text/event-stream",
        headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no", "X-Job-Id": job.id},
    )


async def answer_started(
    request: Request, client: Client, job: Job, *, wait: bool, deadline: float, path: str
) -> Response:
    """A job just started, answered as asked: its events (SSE), the job (202), or with
    `wait`, its result once it ended (its error raised; still running: the job, 202)."""
    location = {"Location": f"{path}/{job.id}"}
    if wants_sse(request):
        response = stream(client, job, 0)
        response.headers.update(location)
        return response
    if not wait:
        return JSONResponse(job_body(job), status_code=202, headers=location)
    done = await client.wait_job(job.id, timeout=deadline + WAIT_MARGIN)
    if done.status == "done" and done.result is not None:
        return JSONResponse({"job_id": job.id, **done.result}, headers=location)
    if done.error:
        raise error_from_dict(done.error)
    return JSONResponse(job_body(done), status_code=202, headers=location)


async def answer_events(
    request: Request,
    client: Client,
    job: Job,
    *,
    since: int | None,
    last_event_id: str | None,
) -> Response:
    """A job's events after the resume point: followed live as SSE, or those so far as JSON."""
    start = since_of(last_event_id, since)
    if wants_sse(request):
        return stream(client, job, start)
    events: list[Event] = await client.job_events(job.id, since=start)
    return JSONResponse(
        {
            "job_id": job.id,
            "status": job.status,
            "events": [e.model_dump(mode="json") for e in events],
        }
    )


async def ws_job(
    state: ServerState,
    fields: dict[str, Any],
    send: Callable[[dict[str, Any]], Awaitable[None]],
    *,
    start: Callable[[Client, dict[str, Any]], Awaitable[Job]],
    kind: str | None = None,
) -> None:
    """A WebSocket job message: start a job (`start` with the message's fields) or resume one
    (`job_id` + `since`; of `kind` when given), then send every event with the message's
    `request_id`.

    Events keep the job's `seq`, so a client that lost its socket sends `{type, job_id,
    since: <last seq>}` on a new one and misses nothing. Failures are sent as an `error` for
    the request_id; nothing is raised."""
    request_id = fields.get("request_id")
    try:
        client = state.require_client()
        if "job_id" in fields:
            resume = ResumeMessage.model_validate(fields)
            job = await client.job(resume.job_id, kind=kind)
            since = resume.since
        else:
            job = await start(client, {k: v for k, v in fields.items() if k != "request_id"})
            since = 0
        async for event in client.follow_job(job.id, since=since):
            await send({"request_id": request_id, **event.model_dump(mode="json")})
    except ValidationError as exc:
        await send(_ws_error(request_id, InvalidInput(describe_validation(exc))))
    except NetsiftError as exc:
        await send(_ws_error(request_id, exc))


def _ws_error(request_id: Any, error: NetsiftError) -> dict[str, Any]:
    return {"type": "error", "request_id": request_id, "seq": 0, "data": {"error": error.to_dict()}}
