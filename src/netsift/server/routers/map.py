"""`POST /v1/map`: a site's URLs (sitemaps, feeds, the start page's links), each once.

Every URL goes through the Client, so the sitemaps and pages read pass the SSRF guard,
robots.txt and the size caps exactly as a fetch does.
"""

from __future__ import annotations

from fastapi import APIRouter

from ...models import MapResult
from ...operations import operation
from ..deps import CallerDep, StateDep
from ..operations import Operations
from ..responses import GUARDED, MapRequest, errors_for, operation_errors
from .search import use_request_id

__all__ = ["router"]

router = APIRouter(prefix="/v1", tags=["map"], responses=errors_for(*GUARDED))


@router.post(
    "/map",
    response_model=MapResult,
    responses=operation_errors("map"),
    summary=operation("map").summary,
)
async def map_site(params: MapRequest, state: StateDep, caller: CallerDep) -> MapResult:
    use_request_id(params.request_id)
    return await Operations(state, caller).map(params)
