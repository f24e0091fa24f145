"""Executor: runs one claimed job under its lease, to exactly one final event.

While the job runs, a heartbeat renews the lease every `beat` seconds and reads the cancel
flag in the same round trip; between beats it reads the flag alone every `CANCEL_POLL`
seconds (one small read), so a cancel asked from any process stops the job within a poll.
The job ends in one of four ways, each written once with its final event: `done`,
`failed`, `cancelled` (with what it had found) or `interrupted` (with the reason). A job
whose lease was lost stops silently (its new owner finishes it); a job stopped by a graceful
shutdown is handed back to the queue, its checkpoint kept, for another worker to resume.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from functools import partial
from typing import Any, Literal

import anyio

from ..errors import NetsiftError
from ..models import EventType
from ..usage import Billing, Usage, metering
from .kind import Kinds
from .model import Job, LeaseLost
from .store import JobStore

__all__ = ["CANCEL_POLL", "MAX_ATTEMPTS", "Executor", "JobObserver", "real_cause"]

log = logging.getLogger(__name__)
MAX_ATTEMPTS = 5  # a job whose workers died this often is poisonous: end it, say why
CANCEL_BEAT = 0.5  # seconds between heartbeats (lease renewals) at most
# Seconds between looks at the cancel flag: a cancel's answer must come within a second
# (p99) across processes on a busy machine; one read of a job's small fields (never its
# checkpoint) ten times a second is cheap on SQLite and Redis alike.
CANCEL_POLL = 0.1
Why = Literal["cancel", "lost", "stop"]
# Told of every run this executor ends: (kind, how it ended, seconds it ran here). How:
# done, failed, cancelled, interrupted, handed_back (graceful stop) or lost (taken over).
JobObserver = Callable[[str, str, float], None]


def _leaves(exc: BaseException) -> list[BaseException]:
    if isinstance(exc, BaseExceptionGroup):
        return [leaf for inner in exc.exceptions for leaf in _leaves(inner)]
    return [exc]


def real_cause(exc: Exception) -> Exception:
    """The error an exception group stands for. A kind's task group (parallel searches or
    page reads) wraps what one task raised in an ExceptionGroup; the job must still end as
    that error says: a lost lease before a netsift error before anything else."""
    leaves = [leaf for leaf in _leaves(exc) if isinstance(leaf, Exception)]
    for wanted in (LeaseLost, NetsiftError):
        for leaf in leaves:
            if isinstance(leaf, wanted):
                return leaf
    return leaves[0] if leaves else exc


class Executor:
    def __init__(
        self,
        store: JobStore,
        kinds: Kinds,
        *,
        worker: str,
        lease: float,
        billing: Billing | None = None,
    ) -> None:
        self.store = store
        self.billing = billing or Billing()
        self.kinds = kinds
        self.worker = worker
        self.lease = lease
        self.beat = min(CANCEL_BEAT, lease / 3)
        self._scopes: dict[str, anyio.CancelScope] = {}
        self._why: dict[str, Why] = {}
        self.observers: list[JobObserver] = []  # metrics of the process that runs it

    @property
    def running(self) -> list[str]:
        return list(self._scopes)

    def interrupt(self, job_id: str, why: Why) -> bool:
        """Stop a job this executor runs (cancel, or hand it back on `stop`)."""
        scope = self._scopes.get(job_id)
        if scope is None:
            return False
        self._why.setdefault(job_id, why)
        scope.cancel()
        return True

    def stop_all(self) -> None:
        for job_id in self.running:
            self.interrupt(job_id, "stop")

    def _observe(self, job: Job, how: str, started: float) -> None:
        for observer in self.observers:
            try:
                observer(job.kind, how, anyio.current_time() - started)
            except Exception:  # a metrics failure must not fail the job
                log.exception("job observer failed")

    async def execute(self, job: Job) -> None:
        if job.id in self._scopes:
            # Its lease ran out while this very executor ran it (a long pause of the event
            # loop) and the claim renewed it: the run in progress continues; no second run.
            return
        started = anyio.current_time()
        kind = self.kinds.get(job.kind)
        if kind is None:
            error = NetsiftError(f"no worker here runs {job.kind!r} jobs").to_dict()
            await self._end(job.id, "failed", ("error", error), error=error)
            self._observe(job, "failed", started)
            return
        if job.cancel_requested:
            await self._end_partial(job, "cancelled", {"code": "cancelled"})
            self._observe(job, "cancelled", started)
            return
        if job.attempts > MAX_ATTEMPTS:
            reason = f"its workers stopped {job.attempts - 1} times before it could finish"
            await self._end_partial(job, "interrupted", {"code": "interrupted", "reason": reason})
            self._observe(job, "interrupted", started)
            return
        # One meter: the job's counts (kept with its checkpoints, so a resumed job goes on
        # counting), its client's quota and the host's per-request cap, and the ledger.
        # Its counts are kept in the store before each charged request is sent, so a
        # worker killed mid-request leaves the job billed for what the provider served.
        usage = self.billing.meter(
            job.client,
            spent=job.usage,
            persist=partial(self.store.save_usage, job.id, self.worker),
        )
        saved = await self.store.checkpoint(job.id)
        texts = await self.store.texts(job.id) if saved is not None else {}

        async def emit(type: EventType, data: dict[str, Any]) -> None:
            await self.store.append_event(job.id, type, data, worker=self.worker)

        async def save(checkpoint: dict[str, Any]) -> None:
            await self.store.save_checkpoint(job.id, self.worker, checkpoint, usage.to_dict())

        async def keep(new: dict[str, str]) -> None:
            await self.store.save_texts(job.id, self.worker, new)

        scope = anyio.CancelScope()
        self._scopes[job.id] = scope
        outcome: tuple[dict[str, Any], dict[str, Any]] | None = None
        failure: NetsiftError | None = None
        try:
            with scope, metering(usage, alone=True):
                async with anyio.create_task_group() as group:
                    group.start_soon(self._heartbeat, job.id)
                    try:
                        context = kind.context(
                            job,
                            saved=saved,
                            emit=emit,
                            save=save,
                            store=self.store,
                            usage=usage.to_dict(),
                            texts=texts,
                            keep=keep,
                        )
                        outcome = kind.finished(await kind.run(context))
                    except Exception as raised:
                        exc = real_cause(raised)
                        if isinstance(exc, LeaseLost):
                            self._why.setdefault(job.id, "lost")
                        elif isinstance(exc, NetsiftError):
                            failure = exc
                        else:
                            log.exception("%s job %s failed", job.kind, job.id, exc_info=raised)
                            failure = NetsiftError(
                                f"the {job.kind} job failed unexpectedly ({type(exc).__name__})"
                            )
                    group.cancel_scope.cancel()
        except anyio.get_cancelled_exc_class():
            # The host is shutting down (not this job's own scope): hand the job back.
            with anyio.CancelScope(shield=True):
                await self.store.release(job.id, self.worker)
            self._observe(job, "handed_back", started)
            raise
        finally:
            self._scopes.pop(job.id, None)
        why = self._why.pop(job.id, None)
        with anyio.CancelScope(shield=True):
            how = await self._conclude(job, why, outcome, failure, usage)
        self._observe(job, how, started)

    async def _conclude(
        self,
        job: Job,
        why: Why | None,
        outcome: tuple[dict[str, Any], dict[str, Any]] | None,
        failure: NetsiftError | None,
        usage: Usage,
    ) -> str:
        """End the run as `why` says; returns how it ended (for the observers)."""
        spent = usage.to_dict()
        if why == "lost":
            log.warning("job %s: lease lost; its new owner finishes it", job.id)
            return "lost"
        if why == "stop":
            await self.store.release(job.id, self.worker)
            log.info("job %s: handed back to the queue", job.id)
            return "handed_back"
        if why == "cancel":
            await self._end_partial(job, "cancelled", {"code": "cancelled"}, usage=spent)
            return "cancelled"
        if failure is not None:
            error = failure.to_dict()
            await self._end(job.id, "failed", ("error", error), error=error, usage=spent)
            return "failed"
        if outcome is not None:
            result, event = outcome
            await self._end(job.id, "done", ("done", event), result=result, usage=spent)
            return "done"
        return "lost"  # the run was cancelled from outside without a reason: nothing written

    async def _end(
        self,
        job_id: str,
        status: Literal["done", "failed", "cancelled", "interrupted"],
        event: tuple[EventType, dict[str, Any]],
        *,
        result: dict[str, Any] | None = None,
        error: dict[str, Any] | None = None,
        usage: dict[str, Any] | None = None,
    ) -> None:
        await self.store.finish(
            job_id,
            worker=self.worker,
            status=status,
            event=event,
            result=result,
            error=error,
            usage=usage,
        )

    async def _end_partial(
        self,
        job: Job,
        status: Literal["cancelled", "interrupted"],
        data: dict[str, Any],
        *,
        usage: dict[str, Any] | None = None,
    ) -> None:
        kind = self.kinds.get(job.kind)
        events = await self.store.events(job.id)
        result = kind.partial_of(events) if kind is not None else None
        await self._end(job.id, status, ("error", data), result=result, usage=usage)

    async def _heartbeat(self, job_id: str) -> None:
        """Renew the lease every beat, look for a cancel every poll; stop the job when a
        cancel is asked or the lease was lost."""
        renewed = anyio.current_time()
        while True:
            await anyio.sleep(min(CANCEL_POLL, self.beat))
            if anyio.current_time() - renewed >= self.beat:
                answer = await self.store.beat(job_id, self.worker, lease=self.lease)
                renewed = anyio.current_time()
            elif (await self.store.get(job_id)).cancel_requested:
                answer = "cancel"
            else:
                continue
            if answer != "ok":
                self.interrupt(job_id, answer)
                return
