"""Worker: claims jobs of any registered kind from the shared store and runs them.

Any worker runs any job; several workers (in `netsift worker` processes or inside `netsift
serve`) share one store. Each poll first takes over jobs whose lease ran out (their worker
died), then new ones, so dead workers are found by the lease, proactively. `stop()` stops
claiming, interrupts the running jobs (each has its last checkpoint saved), hands them back
to the queue and returns within `stop_timeout` seconds.
"""

from __future__ import annotations

import logging
import os
import uuid

import anyio

from .executor import Executor
from .kind import Kinds
from .model import Job, this_host
from .store import JobStore

__all__ = ["IDLE_POLL", "Worker", "worker_id"]

log = logging.getLogger(__name__)
IDLE_POLL = 0.25  # seconds between claims on an idle SQLite queue (Redis blocks instead)


def worker_id() -> str:
    """host:pid:tag, so a worker's jobs can be told apart from its neighbours' on one host
    (and a dead local process recognised without waiting for its lease)."""
    return f"{this_host()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"


class Worker:
    def __init__(
        self,
        store: JobStore,
        kinds: Kinds,
        *,
        lease: float,
        concurrency: int,
        stop_timeout: float,
        executor: Executor | None = None,
    ) -> None:
        self.store = store
        self.executor = executor or Executor(store, kinds, worker=worker_id(), lease=lease)
        self.concurrency = concurrency
        self.stop_timeout = stop_timeout
        self._stopping = anyio.Event()
        self._slots = anyio.Semaphore(concurrency)
        self._active = 0
        self._claiming = anyio.CancelScope()
        self._drained = anyio.Event()

    @property
    def id(self) -> str:
        return self.executor.worker

    async def run(self) -> None:
        """Claim and run jobs until `stop()`; then hand back what runs and return."""
        async with anyio.create_task_group() as group:
            while not self._stopping.is_set():
                await self._slots.acquire()
                if self._stopping.is_set():
                    self._slots.release()
                    break
                job = None
                with anyio.CancelScope() as self._claiming:  # stop() ends a blocked claim
                    try:
                        job = await self.store.claim(self.id, lease=self.executor.lease)
                    except Exception:  # a store hiccup must not kill the worker: retry
                        log.exception("worker %s: claim failed", self.id)
                if job is not None and self._stopping.is_set():
                    # Claimed while stopping (perhaps a job just handed back): give it back.
                    await self.store.release(job.id, self.id)
                    job = None
                if job is None:
                    self._slots.release()
                    with anyio.move_on_after(IDLE_POLL):
                        await self._stopping.wait()
                    continue
                log.info("worker %s: running %s job %s", self.id, job.kind, job.id)
                group.start_soon(self._run_one, job)
            self.executor.stop_all()
            with anyio.move_on_after(self.stop_timeout):
                if self._active:
                    await self._drained.wait()
            group.cancel_scope.cancel()  # a job still running is cancelled, then handed back

    async def _run_one(self, job: Job) -> None:
        self._active += 1
        try:
            await self.executor.execute(job)
        finally:
            self._active -= 1
            self._slots.release()
            if not self._active:
                self._drained.set()
                self._drained = anyio.Event()

    def stop(self) -> None:
        """Stop claiming; running jobs are checkpointed and handed back."""
        self._stopping.set()
        self._claiming.cancel()
        self.executor.stop_all()
