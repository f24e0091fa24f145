"""`POST /v1/context`: the passages most relevant to a query across the pages a search finds,
within a token budget (netsift.context). Its searches and pages pass the same quota, guard,
robots.txt and caps as `/v1/search` and `/v1/fetch`.
"""

from __future__ import annotations

from fastapi import APIRouter

from ...models import ContextAnswer
from ...operations import operation
from ..deps import CallerDep, StateDep
from ..operations import Operations
from ..responses import GUARDED, ContextRequest, errors_for, operation_errors
from .search import use_request_id

__all__ = ["router"]

router = APIRouter(prefix="/v1", tags=["context"], responses=errors_for(*GUARDED))


@router.post(
    "/context",
    response_model=ContextAnswer,
    responses=operation_errors("context"),
    summary=operation("context").summary,
)
async def context(params: ContextRequest, state: StateDep, caller: CallerDep) -> ContextAnswer:
    use_request_id(params.request_id)
    return await Operations(state, caller).context(params)
