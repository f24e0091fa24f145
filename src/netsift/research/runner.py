"""ResearchRunner: research runs as durable jobs — started, streamed, resumed, cancelled.

The runner owns a task group for the life of its host (server lifespan, MCP session, CLI
call). Each job's events go to the job store as they happen, so any process sharing the
store can follow the job, and a reader that drops resumes from the last sequence it saw.
"""

from __future__ import annotations

import logging
import os
import uuid
from collections.abc import AsyncIterator, Callable
from types import TracebackType
from typing import TYPE_CHECKING, Any, Self

import anyio
from anyio.abc import TaskGroup

from ..errors import InvalidInput, NetsiftError
from ..models import Event, EventType, ResearchReport
from ..params import ResearchParams
from ..store.jobs import Job, JobStatus, JobStore, this_host

if TYPE_CHECKING:
    from .agent import ResearchAgent

__all__ = ["ResearchRunner", "build_partial"]

log = logging.getLogger(__name__)
POLL_SECONDS = 0.2
HEARTBEAT_SECONDS = 5.0
RECOVER_SECONDS = 30.0


def build_partial(events: list[Event]) -> dict[str, Any]:
    """What a job that did not finish had found, from its events: the queries it ran and the
    sources it read (numbered as they were), so an interrupted run is not lost."""
    queries: list[str] = []
    sources: list[dict[str, Any]] = []
    for event in events:
        if event.type == "planned":
            queries.extend(str(q) for q in event.data.get("queries", []))
        elif event.type == "fetch_done" and event.data.get("ok"):
            url = event.data.get("final_url") or event.data.get("url")
            sources.append({"n": event.data.get("n"), "url": url, "title": event.data.get("title")})
    return {"partial": True, "queries": queries, "sources": sources}


class ResearchRunner:
    def __init__(self, agent: Callable[[], ResearchAgent], store: JobStore) -> None:
        self._agent = agent
        self.store = store
        self._group: TaskGroup | None = None
        self._scopes: dict[str, anyio.CancelScope] = {}
        self._changed = anyio.Event()
        self._recovered_at: float | None = None
        self.owner = f"{this_host()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"

    async def recover(self) -> None:
        """Jobs left running by a dead process are marked interrupted, keeping what they had
        found. Run before the first job and when jobs are looked up, at most once per
        RECOVER_SECONDS (lazily, so hosts that never research never open the store)."""
        now = anyio.current_time()
        if self._recovered_at is None or now - self._recovered_at >= RECOVER_SECONDS:
            self._recovered_at = now
            for job_id in await self.store.mark_interrupted():
                await self._keep_partial(job_id, status="interrupted")

    async def _keep_partial(self, job_id: str, *, status: JobStatus) -> None:
        events = await self.store.events(job_id)
        await self.store.update(job_id, status=status, result=build_partial(events))

    async def __aenter__(self) -> Self:
        self._group = anyio.create_task_group()
        await self._group.__aenter__()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self._group is not None:
            self._group.cancel_scope.cancel()
            await self._group.__aexit__(exc_type, exc, tb)
            self._group = None

    def _poke(self) -> None:
        self._changed.set()
        self._changed = anyio.Event()

    async def start(self, params: ResearchParams) -> Job:
        """Create the job and run it in the background; returns at once."""
        if self._group is None:
            raise RuntimeError("use the runner as an async context manager")
        await self.recover()
        job = await self.store.create("research", params.model_dump())
        self._group.start_soon(self._execute, job.id, params)
        return job

    async def run(self, params: ResearchParams) -> tuple[Job, ResearchReport | None]:
        """Run a job to its end in the caller's task (the CLI's way)."""
        await self.recover()
        job = await self.store.create("research", params.model_dump())
        report = await self._execute(job.id, params)
        return await self.store.get(job.id), report

    async def _execute(self, job_id: str, params: ResearchParams) -> ResearchReport | None:
        scope = anyio.CancelScope()
        self._scopes[job_id] = scope

        async def emit(type: EventType, data: dict[str, Any]) -> None:
            await self.store.append_event(job_id, type, data)
            self._poke()

        report: ResearchReport | None = None
        try:
            await self.store.update(job_id, status="running", owner=self.owner)
            failure: Exception | None = None
            with scope:
                async with anyio.create_task_group() as group:
                    group.start_soon(self._heartbeat, job_id, scope)
                    try:
                        report = await self._agent().run(params, emit=emit, job_id=job_id)
                    except Exception as exc:  # raised below, outside the group's wrapping
                        failure = exc
                    group.cancel_scope.cancel()
            if failure is not None:
                raise failure
            if scope.cancelled_caught:
                with anyio.CancelScope(shield=True):
                    await self.store.append_event(job_id, "error", {"code": "cancelled"})
                    await self._keep_partial(job_id, status="cancelled")
            elif report is not None:
                await self.store.update(
                    job_id, status="done", result=report.model_dump(mode="json")
                )
        except anyio.get_cancelled_exc_class():
            # Not this job's own cancel: its host is shutting down. Say so, keep what it found.
            with anyio.CancelScope(shield=True):
                await self.store.append_event(job_id, "error", {"code": "interrupted"})
                await self._keep_partial(job_id, status="interrupted")
            raise
        except NetsiftError as exc:
            await emit("error", exc.to_dict())
            await self.store.update(job_id, status="failed", error=exc.to_dict())
        except Exception as exc:
            log.exception("research job %s failed", job_id)
            error = NetsiftError(f"research failed unexpectedly ({type(exc).__name__})").to_dict()
            with anyio.CancelScope(shield=True):
                await emit("error", error)
                await self.store.update(job_id, status="failed", error=error)
        finally:
            self._scopes.pop(job_id, None)
            self._poke()
        return report

    async def _heartbeat(self, job_id: str, scope: anyio.CancelScope) -> None:
        """Keep the job alive in the store; stop it if another process cancelled it."""
        while True:
            await anyio.sleep(HEARTBEAT_SECONDS)
            if (await self.store.get(job_id)).status == "cancelled":
                scope.cancel()
                return
            await self.store.heartbeat(job_id)

    async def cancel(self, job_id: str) -> Job:
        job = await self.store.get(job_id)
        if job.finished:
            raise InvalidInput(f"job {job_id} already ended ({job.status})")
        scope = self._scopes.get(job_id)
        if scope is None:
            # Running in another process: mark it; its runner sees the status and stops.
            return await self.store.update(job_id, status="cancelled")
        scope.cancel()
        return await self.wait(job_id)

    async def wait(self, job_id: str, *, timeout: float | None = None) -> Job:
        """The job once it has ended (or as it is when `timeout` runs out)."""
        with anyio.move_on_after(timeout):
            while not (job := await self.store.get(job_id)).finished:
                with anyio.move_on_after(POLL_SECONDS):
                    await self._changed.wait()
            return job
        return await self.store.get(job_id)

    async def follow(self, job_id: str, *, since: int = 0) -> AsyncIterator[Event]:
        """Every event after `since`, live, until the job ends (resume with the last seq)."""
        async for event in self.follow_idle(job_id, since=since, idle=None):
            if event is not None:
                yield event

    async def follow_idle(
        self, job_id: str, *, since: int = 0, idle: float | None
    ) -> AsyncIterator[Event | None]:
        """`follow`, plus a None after every `idle` seconds without an event (keep-alives).

        It polls the store rather than running a task, so a consumer may stop iterating at
        any point (a dropped connection) without leaving anything behind."""
        seen = since
        quiet_since = anyio.current_time()
        while True:
            job = await self.store.get(job_id)
            events = await self.store.events(job_id, since=seen)
            for event in events:
                seen = event.seq
                quiet_since = anyio.current_time()
                yield event
            if job.finished:
                for event in await self.store.events(job_id, since=seen):
                    seen = event.seq
                    yield event
                return
            if idle is not None and anyio.current_time() - quiet_since >= idle:
                quiet_since = anyio.current_time()
                yield None
            with anyio.move_on_after(POLL_SECONDS):
                await self._changed.wait()
