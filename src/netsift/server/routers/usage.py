"""What the caller has spent, over HTTP: `GET /v1/usage`.

Searches (by provider), pages and model tokens, summed over every door (search, batch,
research jobs, chat) and every replica and worker sharing the store. A research job's own
usage is in its status (`GET /v1/research/{id}`). `/metrics` has the same counts per client.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from ..deps import CallerDep, StateDep
from ..responses import GUARDED, errors_for

__all__ = ["router"]

router = APIRouter(prefix="/v1/usage", tags=["usage"], responses=errors_for(*GUARDED))


@router.get("", summary="What this API key (or address) has spent")
async def get_usage(state: StateDep, caller: CallerDep) -> dict[str, Any]:
    client = state.require_client()
    return {"client": caller.label, **(await client.usage(caller.key))}
