"""Discoveries over HTTP: the findings agents flagged for a human, and flagging one.

    GET  /v1/discoveries     {discoveries, corrupt_lines, torn_kept} (`?job_id=`, `?limit=`)
    POST /v1/discoveries     {title, description, url?} → the stored discovery (201)

The log is append-only JSON lines; a corrupt line is skipped and named in `corrupt_lines`
rather than hiding everything after it.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query

from ...params import FlagDiscoveryParams
from ..deps import CallerDep, StateDep
from ..responses import BODY, GUARDED, errors_for

__all__ = ["router"]

router = APIRouter(prefix="/v1/discoveries", tags=["discoveries"], responses=errors_for(*GUARDED))


class DiscoveryRequest(FlagDiscoveryParams):
    """Flag a notable finding for a human to look at later."""


@router.get("", summary="Flagged discoveries, oldest first", responses=errors_for(422))
async def list_discoveries(
    state: StateDep,
    _: CallerDep,
    job_id: Annotated[str | None, Query(max_length=64, description="Only this job's.")] = None,
    limit: Annotated[int | None, Query(ge=1, le=10_000, description="The most recent N.")] = None,
) -> dict[str, Any]:
    read = await state.require_client().read_discoveries(job_id=job_id, limit=limit)
    return {
        "discoveries": [d.model_dump(mode="json") for d in read.discoveries],
        "corrupt_lines": read.corrupt_lines,
        "torn_kept": read.torn_kept is not None,  # torn lines were repaired and kept aside
    }


@router.post("", status_code=201, summary="Flag a discovery", responses=errors_for(*BODY))
async def flag_discovery(body: DiscoveryRequest, state: StateDep, _: CallerDep) -> dict[str, Any]:
    found = await state.require_client().flag_discovery(body.title, body.description, body.url)
    return found.model_dump(mode="json")
