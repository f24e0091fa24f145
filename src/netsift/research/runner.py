"""ResearchRunner: research as durable jobs — started, streamed, resumed, cancelled.

Starting a job enqueues it in the job store. When this process runs jobs (`local`, the
default outside `netsift serve --no-worker`), it also claims the job it started and runs it
here, under a lease: if the process dies, any worker sharing the store takes the job over
from its last checkpoint. Readers follow a job's events from the store, from any process.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from types import TracebackType
from typing import TYPE_CHECKING, Any, Self

import anyio
from anyio.abc import TaskGroup

from ..errors import InvalidInput
from ..jobs.executor import Executor
from ..jobs.kinds import JobContext, Kind, Outcome
from ..jobs.model import Job
from ..jobs.store import JobStore
from ..models import Event, EventType, ResearchReport
from ..params import ResearchParams
from ..usage import caller_key

if TYPE_CHECKING:  # the agent (planner, synthesis, citations) loads with the first job
    from .agent import ResearchAgent

__all__ = ["ResearchRunner", "build_partial", "research_kind"]

POLL_SECONDS = 0.2
CANCEL_WAIT = 5.0  # seconds a cancel waits for the job's worker to end it


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


def research_kind(agent: Callable[[], ResearchAgent]) -> Kind:
    """The `research` job kind: the agent's run, resumed from the job's checkpoint."""

    async def run(context: JobContext) -> Outcome:
        from .state import join_texts, split_texts  # with the agent, at the first job

        params = ResearchParams.model_validate(context.job.params)
        final: dict[str, Any] = {}
        resume = context.saved
        if resume is not None and "state" in resume:
            resume = {**resume, "state": join_texts(resume["state"], context.texts)}
        kept = set(context.texts)

        async def save(checkpoint: dict[str, Any]) -> None:
            """Each page's text is written once; the checkpoint refers to it by hash."""
            if context.keep is None:
                await context.save(checkpoint)
                return
            slim, texts = split_texts(checkpoint["state"])
            new = {sha: text for sha, text in texts.items() if sha not in kept}
            if new:
                await context.keep(new)
                kept.update(new)
            await context.save({**checkpoint, "state": slim})

        async def emit(type: EventType, data: dict[str, Any]) -> None:
            if type == "done":  # written by the executor with the status, atomically, once
                final.update(data)
            else:
                await context.emit(type, data)

        report = await agent().run(
            params, emit=emit, job_id=context.job.id, resume=resume, save=save
        )
        return Outcome(result=report.model_dump(mode="json"), event=final)

    return Kind(run=run, partial=build_partial)


class ResearchRunner:
    def __init__(self, store: JobStore, executor: Executor, *, local: bool = True) -> None:
        self.store = store
        self.executor = executor
        self.local = local
        self._group: TaskGroup | None = None
        self._changed = anyio.Event()

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
            # Jobs still running here go back to the queue, checkpointed, for another worker.
            self.executor.stop_all()
            await self._group.__aexit__(exc_type, exc, tb)
            self._group = None

    def _poke(self) -> None:
        self._changed.set()
        self._changed = anyio.Event()

    async def start(self, params: ResearchParams) -> Job:
        """Enqueue the job (and run it here when this process runs jobs); returns at once."""
        job = await self.store.create("research", params.model_dump(), client=caller_key())
        if self.local:
            if self._group is None:
                raise RuntimeError("use the runner as an async context manager")
            claimed = await self.store.claim(
                self.executor.worker, lease=self.executor.lease, job_id=job.id
            )
            if claimed is not None:
                self._group.start_soon(self._execute, claimed)
        return job

    async def run(self, params: ResearchParams) -> tuple[Job, ResearchReport | None]:
        """Run a job to its end in the caller's task (the CLI's way)."""
        job = await self.store.create("research", params.model_dump())
        claimed = await self.store.claim(
            self.executor.worker, lease=self.executor.lease, job_id=job.id
        )
        if claimed is not None:
            await self._execute(claimed)
        done = await self.store.get(job.id)
        report = None
        if done.status == "done" and done.result is not None:
            report = ResearchReport.model_validate(done.result)
        return done, report

    async def _execute(self, job: Job) -> None:
        try:
            await self.executor.execute(job)
        finally:
            self._poke()

    async def cancel(self, job_id: str) -> Job:
        """Ask the job to stop, wherever it runs; answers once it has ended (or as it is
        after CANCEL_WAIT if its worker is gone: the next worker to claim it ends it)."""
        job = await self.store.get(job_id)
        if job.finished:
            raise InvalidInput(f"job {job_id} already ended ({job.status})")
        await self.store.request_cancel(job_id)
        if not self.executor.interrupt(job_id, "cancel"):
            # Nobody holds it (queued, or its worker died): end it here, with what it found,
            # summed up the way its kind sums up a job that did not finish.
            events = await self.store.events(job_id)
            kind = self.executor.kinds.get(job.kind)
            await self.store.finish(
                job_id,
                worker=None,
                status="cancelled",
                event=("error", {"code": "cancelled"}),
                result=kind.partial(events) if kind is not None else None,
            )
        return await self.wait(job_id, timeout=CANCEL_WAIT)

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
        any point (a dropped connection) without leaving anything behind. Every job ends
        with a final event, so every stream ends."""
        seen = since
        quiet_since = anyio.current_time()
        while True:
            job = await self.store.get(job_id)
            for event in await self.store.events(job_id, since=seen):
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
