"""The job runtime: every kind of job started, run, waited on, followed and cancelled alike.

Starting a job enqueues it in the job store. When this process runs jobs (`local`, the
default outside `netsift serve --no-worker`), it also claims the job it started and runs it
here, under a lease: if the process dies, any worker sharing the store takes the job over
from its last checkpoint. Readers follow a job's events from the store, from any process.
`Jobs` is the one door to jobs: Client holds one, research and crawl hand it their kinds.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from types import TracebackType
from typing import Any, Self, TypeVar

import anyio
from pydantic import BaseModel

from ..errors import AlreadyFinished, InvalidInput
from ..models import Event
from ..usage import Billing, Usage, caller_key
from .executor import CANCEL_POLL, Executor, JobObserver
from .kind import Kind, Kinds
from .model import Job, JobStatus
from .store import JobStore
from .worker import Worker, worker_id

log = logging.getLogger(__name__)

__all__ = ["CANCEL_WAIT", "POLL_SECONDS", "Jobs"]

P = TypeVar("P", bound=BaseModel)
R = TypeVar("R", bound=BaseModel)

POLL_SECONDS = 0.2  # a reader's look at the store when nothing in this process woke it
CANCEL_WAIT = 5.0  # seconds a cancel waits for the job's worker to end it


class Jobs:
    """Jobs of the registered kinds on one store; background jobs need it entered
    (`async with`): they run in its task group and are handed back when it exits."""

    def __init__(
        self,
        store: JobStore,
        kinds: Kinds,
        *,
        lease: float,
        billing: Billing | None = None,
        local: bool = True,
    ) -> None:
        self.store = store
        self.kinds = kinds
        self.local = local
        self.executor = Executor(
            store, kinds, worker=worker_id(), lease=lease, billing=billing or Billing()
        )
        # The jobs this process runs, as tasks of their own rather than a task group's: a
        # Client may be entered in one task and left in another (a server's lifespan, an
        # async fixture), which a cancel scope does not allow.
        self._running: set[asyncio.Task[None]] | None = None
        self._changed = anyio.Event()

    def open(self) -> None:
        """Run started jobs in this process from now on (what `async with` does on entry)."""
        if self._running is None:
            self._running = set()

    async def __aenter__(self) -> Self:
        self.open()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self._running is not None:
            # Jobs still running here go back to the queue, checkpointed, for another worker.
            running, self._running = self._running, None
            self.executor.stop_all()
            await asyncio.gather(*running, return_exceptions=True)

    def observe(self, observer: JobObserver) -> None:
        """Tell `observer` how each run this process ends went (the metrics)."""
        if observer not in self.executor.observers:
            self.executor.observers.append(observer)

    def worker(self, *, concurrency: int, stop_timeout: float) -> Worker:
        """A worker claiming jobs of any kind here, under this runtime's identity."""
        return Worker(
            self.store,
            self.kinds,
            lease=self.executor.lease,
            concurrency=concurrency,
            stop_timeout=stop_timeout,
            executor=self.executor,
        )

    async def start(self, kind: Kind[P, Any], params: P) -> Job:
        """Enqueue a job (and run it here when this process runs jobs); returns at once."""
        if self.local and self._running is None:
            raise RuntimeError("enter the job runtime (`async with`) to run jobs here")
        job = await self._create(kind, params)
        if self._running is not None and self.local:
            claimed = await self._claim(job)
            if claimed is not None:
                task = asyncio.create_task(self._execute(claimed), name=f"job {claimed.id}")
                self._running.add(task)
                task.add_done_callback(self._ended)
        return job

    def _ended(self, task: asyncio.Task[None]) -> None:
        if self._running is not None:
            self._running.discard(task)
        if not task.cancelled() and (error := task.exception()) is not None:
            log.error("job task %s failed", task.get_name(), exc_info=error)

    async def run(self, kind: Kind[P, R], params: P) -> tuple[Job, R | None]:
        """Run a job to its end in the caller's task; the job as it ended, and its result
        when done. A worker of the store that claimed it first runs it: it is waited on."""
        job = await self._create(kind, params)
        claimed = await self._claim(job)
        if claimed is None:
            done = await self.wait(job.id)
        else:  # as it ended here (handed back by a stop, it is not waited on)
            await self._execute(claimed)
            done = await self.store.get(job.id)
        return done, kind.result_of(done)

    async def _create(self, kind: Kind[P, Any], params: P) -> Job:
        if self.kinds.get(kind.name) is not kind:
            raise RuntimeError(f"the {kind.name!r} kind is not registered with this runtime")
        return await self.store.create(
            kind.name, params.model_dump(mode="json"), client=caller_key()
        )

    async def _claim(self, job: Job) -> Job | None:
        return await self.store.claim(
            self.executor.worker, lease=self.executor.lease, job_id=job.id
        )

    async def _execute(self, job: Job) -> None:
        try:
            await self.executor.execute(job)
        finally:
            self._poke()

    def _poke(self) -> None:
        self._changed.set()
        self._changed = anyio.Event()

    async def get(self, job_id: str, *, kind: str | None = None) -> Job:
        """The job (NotFound if there is none; InvalidInput if it is not of `kind`)."""
        job = await self.store.get(job_id)
        if kind is not None and job.kind != kind:
            raise InvalidInput(f"job {job.id} is a {job.kind} job, not a {kind}")
        return job

    async def list_jobs(
        self,
        *,
        limit: int = 50,
        status: JobStatus | None = None,
        before: str | None = None,
        client: str | None = None,
    ) -> list[Job]:
        """Newest first; `before` (a job id) continues a listing after that job; `client`:
        only the jobs charged to that key."""
        return await self.store.list_jobs(limit=limit, status=status, before=before, client=client)

    async def events(self, job_id: str, *, since: int = 0) -> list[Event]:
        return await self.store.events(job_id, since=since)

    async def usage(self, job_id: str) -> Usage:
        """What the job spent so far: searches by provider, pages, tokens."""
        return Usage.from_dict((await self.store.get(job_id)).usage)

    async def cancel(self, job_id: str, *, kind: str | None = None) -> Job:
        """Ask the job to stop, wherever it runs; answers once it has ended (or as it is
        after CANCEL_WAIT if its worker is gone: the next worker to claim it ends it).
        A job that already ended is AlreadyFinished."""
        job = await self.get(job_id, kind=kind)
        if job.finished:
            raise AlreadyFinished(
                f"job {job_id} already ended ({job.status}); nothing to cancel",
                details={"job_id": job_id, "status": job.status},
            )
        await self.store.request_cancel(job_id)
        declared = self.kinds.get(job.kind)
        if not self.executor.interrupt(job_id, "cancel"):
            # Nobody holds it here (queued, or its worker died): end it here, with what it
            # found, summed up the way its kind sums up a job that did not finish. A worker
            # elsewhere holding it sees the flag at its next heartbeat; this end loses then.
            events = await self.store.events(job_id)
            await self.store.finish(
                job_id,
                worker=None,
                status="cancelled",
                event=("error", {"code": "cancelled"}),
                result=declared.partial_of(events) if declared is not None else None,
            )
        ended = await self.wait(job_id, timeout=CANCEL_WAIT, poll=CANCEL_POLL)
        if declared is not None and declared.on_cancel is not None:
            await declared.on_cancel(job_id)
        return ended

    async def wait(
        self, job_id: str, *, timeout: float | None = None, poll: float = POLL_SECONDS
    ) -> Job:
        """The job once it has ended (or as it is when `timeout` runs out); the store is
        read every `poll` seconds unless this process ends it first (a cancel polls
        faster: its caller is waiting on the answer)."""
        with anyio.move_on_after(timeout):
            while not (job := await self.store.get(job_id)).finished:
                with anyio.move_on_after(poll):
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
