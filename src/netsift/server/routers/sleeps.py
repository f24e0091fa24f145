"""Agent sleeps over HTTP: sleep (the request lasts as long as the sleep), list, wake.

    POST /v1/sleeps                {mode, seconds?, job_id?, reason} → {id, woke_because, slept_s}
    GET  /v1/sleeps                the sleeps in progress (what a person may want to wake)
    GET  /v1/sleeps/{id}           one sleep
    POST /v1/sleeps/{id}/wake      wake it, with an optional {message} the sleeper receives

The wake is written to the shared store and announced (Redis pub/sub across replicas), so it
works from any process: this server, another replica, or `netsift wake ID`. A sleep past its
deadline reads `expired`, even after a restart.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from pydantic import BaseModel, ConfigDict, Field

from ...params import SleepParams
from ..deps import CallerDep, StateDep
from ..responses import BODY, GUARDED, errors_for

__all__ = ["router"]

router = APIRouter(prefix="/v1/sleeps", tags=["sleep"], responses=errors_for(*GUARDED))


class SleepRequest(SleepParams):
    """Pause until a timer, a research job's end, or a person's wake; every sleep is capped."""


@router.post("", summary="Sleep (answers when it wakes)", responses=errors_for(*BODY, 404))
async def sleep(body: SleepRequest, state: StateDep, _: CallerDep) -> dict[str, Any]:
    client = state.require_client()
    return await client.sleep(
        body.mode, seconds=body.seconds, job_id=body.job_id, reason=body.reason
    )


@router.get("", summary="Sleeps in progress")
async def list_sleeps(state: StateDep, _: CallerDep) -> dict[str, Any]:
    active = await state.require_client().sleeps()
    return {"sleeps": [record.model_dump(mode="json") for record in active]}


@router.get("/{sleep_id}", summary="One sleep", responses=errors_for(404, 422))
async def get_sleep(sleep_id: str, state: StateDep, _: CallerDep) -> dict[str, Any]:
    record = await state.require_client().get_sleep(sleep_id)
    return record.model_dump(mode="json")


class WakeRequest(BaseModel):
    """An optional message for the sleeper: it wakes with "Sleep ended. Reason: <message>"."""

    model_config = ConfigDict(extra="forbid")

    message: str | None = Field(default=None, max_length=2000)


@router.post("/{sleep_id}/wake", summary="Wake a sleep", responses=errors_for(*BODY, 404))
async def wake(
    sleep_id: str, state: StateDep, _: CallerDep, body: WakeRequest | None = None
) -> dict[str, Any]:
    message = body.message if body is not None else None
    record = await state.require_client().wake(sleep_id, message=message)
    return record.model_dump(mode="json")
