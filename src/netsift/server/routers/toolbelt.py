"""The toolbelt's routes (issue 29): robots_check, wayback_lookup, citation_pack, dedupe_rank.

Each is one Client call on its params (the Client checks the capability, the guard and the
input), behind the API key and the caller's rate limit (`CallerDep`, as every route); the
body adds only `request_id`, as every operation's does.
"""

from __future__ import annotations

from fastapi import APIRouter

from ...archive.wayback import WaybackResult
from ...citations.pack import CitationPack
from ...net.robots import RobotsVerdict
from ...operations import operation
from ...params import CitationPackParams, DedupeRankParams, RobotsCheckParams, WaybackParams
from ...search.rank import RankedResults
from ..deps import CallerDep, StateDep
from ..responses import GUARDED, _RequestId, errors_for, operation_errors
from .search import use_request_id

__all__ = ["router"]

router = APIRouter(prefix="/v1", tags=["toolbelt"], responses=errors_for(*GUARDED))


class RobotsCheckRequest(RobotsCheckParams, _RequestId):
    """May a user agent fetch a URL (robots.txt)?"""


class WaybackRequest(WaybackParams, _RequestId):
    """The Internet Archive snapshot of a URL nearest a date."""


class CitationPackRequest(CitationPackParams, _RequestId):
    """A citation bundle of URLs, a report or a research job's report."""


class DedupeRankRequest(DedupeRankParams, _RequestId):
    """A result list folded and ranked against a query."""


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
    return await state.require_client().robots_check(params.url, user_agent=params.user_agent)


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
    fields = params.model_dump(exclude={"request_id", "url"})
    return await state.require_client().wayback_lookup(params.url, **fields)


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
    return await state.require_client().citation_pack(
        params.urls,
        report=params.report,
        job_id=params.job_id,
        format=params.format,
        archive=params.archive,
    )


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
    return await state.require_client().dedupe_rank(
        params.query, params.results, count=params.count
    )
