"""`POST /v1/search` and `POST /v1/search/batch`: JSON, or a live event stream on request.

With `Accept: text/event-stream` the same call streams `started`, each provider attempt
(`search_started`, `search_done`), `result` and `done` (or `error`) as they happen.
Capability, quota and limits are checked before the stream opens, so those still get their
proper status code rather than an `error` event.
"""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import Response

from ...models import SearchResponse
from ...net.audit import request_id_var
from ...operations import operation
from ..deps import CallerDep, StateDep, state_of
from ..events import EventChannel, EventStreamResponse
from ..operations import Operations
from ..responses import (
    GUARDED,
    SSE,
    BatchRequest,
    BatchResponse,
    SearchRequest,
    errors_for,
    operation_errors,
)

__all__ = ["router", "use_request_id", "wants_events"]

router = APIRouter(prefix="/v1", tags=["search"], responses=errors_for(*GUARDED))


def wants_events(request: Request) -> bool:
    return "text/event-stream" in request.headers.get("accept", "")


def use_request_id(request_id: str | None) -> str | None:
    """The body's request_id, when given, names this call everywhere (audit log included)."""
    if request_id:
        request_id_var.set(request_id)
    return request_id_var.get()


@router.post(
    "/search",
    response_model=SearchResponse,
    responses={200: {"content": SSE}, **operation_errors("search")},
    summary=operation("search").summary,
)
async def search(
    params: SearchRequest, request: Request, caller: CallerDep
) -> Response | SearchResponse:
    ops = Operations(state_of(request), caller)
    request_id = use_request_id(params.request_id)
    if not wants_events(request):
        return await ops.search(params)
    await ops.admit_searches(1)
    return EventStreamResponse(
        EventChannel(request_id), lambda ch: ops.stream(ch, lambda: ops.run_search(params))
    )


@router.post(
    "/search/batch",
    response_model=BatchResponse,
    responses={200: {"content": SSE}, **operation_errors("batch_search")},
    summary=operation("batch_search").summary,
)
async def batch(
    params: BatchRequest, request: Request, state: StateDep, caller: CallerDep
) -> Response | BatchResponse:
    ops = Operations(state, caller)
    request_id = use_request_id(params.request_id)
    if not wants_events(request):
        return await ops.batch(params)
    await ops.admit_searches(len(params.queries))
    return EventStreamResponse(
        EventChannel(request_id), lambda ch: ops.stream(ch, lambda: ops.run_batch(params))
    )
