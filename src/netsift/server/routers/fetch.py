"""`POST /v1/fetch` (a page's readable content), `POST /v1/extract/html` (the same reading of
HTML the caller has), `POST /v1/meta` (a page's link-preview card) and `POST /v1/extract` (a
JSON Schema's fields read from pages, each with its evidence).

Every URL a client sends goes through the Client, so the SSRF guard, robots.txt, the size
caps and the redirect checks apply exactly as they do in the library.
"""

from __future__ import annotations

from fastapi import APIRouter

from ...models import Metadata, Page
from ...operations import operation
from ...structured.model import ExtractDataResult
from ..deps import CallerDep, StateDep
from ..operations import Operations
from ..responses import (
    GUARDED,
    ExtractDataRequest,
    ExtractRequest,
    FetchRequest,
    MetaRequest,
    errors_for,
    operation_errors,
)
from .search import use_request_id

__all__ = ["router"]

router = APIRouter(prefix="/v1", tags=["fetch"], responses=errors_for(*GUARDED))


@router.post(
    "/fetch",
    response_model=Page,
    responses=operation_errors("fetch"),
    summary=operation("fetch").summary,
)
async def fetch(params: FetchRequest, state: StateDep, caller: CallerDep) -> Page:
    use_request_id(params.request_id)
    return await Operations(state, caller).fetch(params)


@router.post(
    "/extract/html",
    response_model=Page,
    responses=operation_errors("extract"),
    summary=operation("extract").summary,
)
async def extract(params: ExtractRequest, state: StateDep, caller: CallerDep) -> Page:
    use_request_id(params.request_id)
    return await Operations(state, caller).extract(params)


@router.post(
    "/meta",
    response_model=Metadata,
    responses=operation_errors("meta"),
    summary=operation("meta").summary,
)
async def meta(params: MetaRequest, state: StateDep, caller: CallerDep) -> Metadata:
    use_request_id(params.request_id)
    return await Operations(state, caller).meta(params)


@router.post(
    "/extract",
    response_model=ExtractDataResult,
    responses=operation_errors("extract_data"),
    summary=operation("extract_data").summary,
)
async def extract_data(
    params: ExtractDataRequest, state: StateDep, caller: CallerDep
) -> ExtractDataResult:
    use_request_id(params.request_id)
    return await Operations(state, caller).extract_data(params)
