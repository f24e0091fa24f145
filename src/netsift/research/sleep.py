"""sleep(): an agent pauses itself until a timer, a job's end, or a person wakes it.

While asleep nothing runs on the agent's behalf (no LLM calls, no searches); every sleep is
capped so a forgotten one cannot hold a worker forever.
"""

from __future__ import annotations

import time
from typing import Any

import anyio

from ..errors import InvalidInput
from ..store.jobs import JobStore
from ..store.sleeps import SleepMode, SleepRecord, SleepStore

__all__ = ["DEFAULT_MAX_SLEEP", "Sleeper"]

DEFAULT_MAX_SLEEP = 3600.0
POLL_SECONDS = 0.2


class Sleeper:
    def __init__(
        self, store: SleepStore, jobs: JobStore, *, max_seconds: float = DEFAULT_MAX_SLEEP
    ) -> None:
        self.store = store
        self.jobs = jobs
        self.max_seconds = max_seconds

    async def sleep(
        self,
        mode: SleepMode,
        *,
        seconds: float | None = None,
        job_id: str | None = None,
        reason: str = "",
    ) -> dict[str, Any]:
        """Returns `{id, woke_because, slept_s}`; woke_because is timer, job_finished,
        woken or cap."""
        if mode == "timer" and (seconds is None or seconds <= 0):
            raise InvalidInput("a timer sleep needs seconds > 0")
        if mode == "event" and not job_id:
            raise InvalidInput("an event sleep needs the job_id to wait for")
        if mode == "event" and job_id:
            await self.jobs.get(job_id)  # NotFound for an unknown job, before sleeping
        cap = self.max_seconds if seconds is None else min(seconds, self.max_seconds)
        record = await self.store.add(
            SleepRecord(mode=mode, reason=reason[:500], job_id=job_id, seconds=seconds)
        )
        started = time.monotonic()
        because = "cap"
        with anyio.move_on_after(cap):
            because = await self._until_woken(record)
        if (
            because == "cap"
            and mode == "timer"
            and seconds is not None
            and seconds <= self.max_seconds
        ):
            because = "timer"
        await self.store.finish(record.id, because)
        return {
            "id": record.id,
            "woke_because": because,
            "slept_s": round(time.monotonic() - started, 3),
        }

    async def _until_woken(self, record: SleepRecord) -> str:
        while True:
            if (await self.store.get(record.id)).woken:
                return "woken"
            if record.mode == "event" and record.job_id:
                if (await self.jobs.get(record.job_id)).finished:
                    return "job_finished"
            await anyio.sleep(POLL_SECONDS)
