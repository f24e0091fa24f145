"""The toolbelt's routes (issue 29): robots_check, wayback_lookup, citation_pack, dedupe_rank.

Each is one Client call on its params, through `Operations` as the WebSocket's messages are
(the Client checks the capability, the guard and the input), behind the API key and the
caller's rate limit (`CallerDep`, as every route); the body adds only `request_id`, as every
operation's does.
"""

from __future__ import annotations

from fastapi import APIRouter

from ...archive.wayback import WaybackResult
from ...citations.pack import CitationPack
from ...net.robots import RobotsVerdict
from ...operations import operation
from ...search.rank import RankedResults
from ..deps import CallerDep, StateDep
from ..operations import Operations
from ..responses import (
    GUARDED,
    CitationPackRequest,
    DedupeRankRequest,
    RobotsCheckRequest,
    WaybackRequest,
    errors_for,
    operation_errors,
)
from .search import use_request_id

__all__ = ["router"]

router = APIRouter(prefix="/v1", tags=["toolbelt"], responses=errors_for(*GUARDED))


@router.post(
    "/robots-check",
    response_model=RobotsVerdict,
    responses=operation_errors("robots_check"),
    summary=operation("robots_check").summary,
)
async def robots_check(
    params: RobotsCheckRequest, state: StateDep, caller: CallerDep
) -> RobotsVerdict:
    use_request_id(params.request_id)
    return await Operations(state, caller).robots_check(params)


@router.post(
    "/wayback",
    response_model=WaybackResult,
    responses=operation_errors("wayback_lookup"),
    summary=operation("wayback_lookup").summary,
)
async def wayback_lookup(
    params: WaybackRequest, state: StateDep, caller: CallerDep
) -> WaybackResult:
    use_request_id(params.request_id)
    return await Operations(state, caller).wayback_lookup(params)


@router.post(
    "/citation-pack",
    response_model=CitationPack,
    responses=operation_errors("citation_pack"),
    summary=operation("citation_pack").summary,
)
async def citation_pack(
    params: CitationPackRequest, state: StateDep, caller: CallerDep
) -> CitationPack:
    use_request_id(params.request_id)
    return await Operations(state, caller).citation_pack(params)


@router.post(
    "/dedupe-rank",
    response_model=RankedResults,
    responses=operation_errors("dedupe_rank"),
    summary=operation("dedupe_rank").summary,
)
async def dedupe_rank(
    params: DedupeRankRequest, state: StateDep, caller: CallerDep
) -> RankedResults:
    use_request_id(params.request_id)
    return await Operations(state, caller).dedupe_rank(params)
