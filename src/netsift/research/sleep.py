"""sleep(): an agent pauses itself until a timer, a job's end, or a person wakes it.

While asleep nothing runs on the agent's behalf (no LLM calls, no searches); every sleep is
capped, and its deadline is stored with it, so a forgotten one cannot hold a worker forever
and reads `expired` after a restart. Sleepers wake by event: a wake in this process sets the
sleeper's event at once; wakes from other processes and job ends arrive through the store's
`changes` (Redis pub/sub, or one SQLite watcher for all the sleepers of this process).
"""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta
from typing import Any

import anyio

from ..errors import InvalidInput
from ..jobs.store import JobStore
from .sleep_store import SleepMode, SleepRecord, SleepStore

__all__ = ["DEFAULT_MAX_SLEEP", "Sleeper", "wake_note"]

DEFAULT_MAX_SLEEP = 3600.0
MAX_MESSAGE = 2000  # characters of a wake message handed to the sleeper


def wake_note(because: str, message: str | None, slept_s: float) -> str:
    """What the sleeper is told when it wakes (the waker's message is the reason given)."""
    return f"Sleep ended. Reason: {message or because}. You slept for {round(slept_s)} s"


async def _first(*events: anyio.Event) -> None:
    async with anyio.create_task_group() as group:

        async def wait(event: anyio.Event) -> None:
            await event.wait()
            group.cancel_scope.cancel()

        for event in events:
            group.start_soon(wait, event)


class Sleeper:
    def __init__(
        self, store: SleepStore, jobs: JobStore, *, max_seconds: float = DEFAULT_MAX_SLEEP
    ) -> None:
        self.store = store
        self.jobs = jobs
        self.max_seconds = max_seconds
        self._events: dict[str, anyio.Event] = {}
        self._because: dict[str, str] = {}
        self._by_job: dict[str, set[str]] = {}
        self._watching = False
        self._watcher_left = anyio.Event()

    async def sleep(
        self,
        mode: SleepMode,
        *,
        seconds: float | None = None,
        job_id: str | None = None,
        reason: str = "",
    ) -> dict[str, Any]:
        """Returns `{id, woke_because, slept_s, message, note}`; woke_because is timer,
        job_finished, woken or cap; `note` is the sentence to hand the agent."""
        if mode == "timer" and (seconds is None or seconds <= 0):
            raise InvalidInput("a timer sleep needs seconds > 0")
        if mode == "event" and not job_id:
            raise InvalidInput("an event sleep needs the job_id to wait for")
        if mode == "event" and job_id:
            await self.jobs.get(job_id)  # NotFound for an unknown job, before sleeping
        cap = self.max_seconds if seconds is None else min(seconds, self.max_seconds)
        deadline = datetime.now(UTC) + timedelta(seconds=cap)
        record = await self.store.add(
            SleepRecord(
                mode=mode, reason=reason[:500], job_id=job_id, seconds=seconds, deadline=deadline
            )
        )
        started = time.monotonic()
        event = self._events[record.id] = anyio.Event()
        if job_id:
            self._by_job.setdefault(job_id, set()).add(record.id)
        because = "cap"
        try:
            if job_id and (await self.jobs.get(job_id)).finished:
                self._because[record.id] = "job_finished"
                event.set()
            with anyio.move_on_after(cap):
                await self._until_woken(event)
            because = self._because.pop(record.id, because)
        except anyio.get_cancelled_exc_class():
            with anyio.CancelScope(shield=True):  # the sleeper left (a dropped request)
                await self.store.finish(record.id, "left")
            raise
        finally:
            self._forget(record)
        if because == "cap" and mode == "timer" and seconds is not None:
            because = "timer" if seconds <= self.max_seconds else because
        await self.store.finish(record.id, because)
        message = (await self.store.get(record.id)).message if because == "woken" else None
        slept = round(time.monotonic() - started, 3)
        return {
            "id": record.id,
            "woke_because": because,
            "slept_s": slept,
            "message": message,
            "note": wake_note(because, message, slept),
        }

    async def wake(self, sleep_id: str, *, message: str | None = None) -> SleepRecord:
        """Wake a sleep (from any process); one sleeping here wakes without a round trip."""
        text = message[:MAX_MESSAGE] if message is not None else None
        record = await self.store.wake(sleep_id, message=text)
        self._notify(sleep_id, "woken")
        return record

    def _forget(self, record: SleepRecord) -> None:
        self._events.pop(record.id, None)
        self._because.pop(record.id, None)
        if record.job_id and (waiting := self._by_job.get(record.job_id)) is not None:
            waiting.discard(record.id)
            if not waiting:
                del self._by_job[record.job_id]

    def _notify(self, sleep_id: str, because: str) -> None:
        if (event := self._events.get(sleep_id)) is not None:
            self._because.setdefault(sleep_id, because)
            event.set()

    async def _jobs_ended(self, job_ids: list[str]) -> None:
        for job_id in job_ids:
            if (await self.jobs.get(job_id)).finished:
                for sleep_id in list(self._by_job.get(job_id, ())):
                    self._notify(sleep_id, "job_finished")

    async def _until_woken(self, event: anyio.Event) -> None:
        """Wait for `event`. One sleeper of this process at a time also watches the store
        for all of them; when it wakes, another takes the watch over."""
        while not event.is_set():
            if self._watching:
                await _first(event, self._watcher_left)
                continue
            self._watching = True
            try:
                async for changed in self.store.changes(lambda: set(self._events)):
                    if not changed:
                        await self._jobs_ended(list(self._by_job))
                    elif changed in self._by_job:
                        await self._jobs_ended([changed])
                    else:
                        self._notify(changed, "woken")
                    if event.is_set():
                        break
            finally:
                self._watching = False
                self._watcher_left.set()
                self._watcher_left = anyio.Event()
