"""Job kinds: what a job of one kind takes, returns and saves, as types, and how it runs.

A kind is declared once, beside the code it runs (research/kind.py, crawl/kind.py): its name,
its params and result models, the model of its checkpoint, its `run` over a typed
`JobContext` and the `partial` it reports for a job that did not finish. The runtime
(runtime.py) starts, runs, resumes and cancels every kind the same way; only the store sees
their JSON. Kinds are handed to the runtime that runs them, never a module global, so two
Clients with different settings can share a process.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from pydantic import BaseModel

from ..models import Event, EventType
from .model import Job
from .store import JobStore

__all__ = ["JobContext", "Keep", "Kind", "Kinds", "NoPartial", "Outcome"]

P = TypeVar("P", bound=BaseModel)
R = TypeVar("R", bound=BaseModel)
C = TypeVar("C", bound=BaseModel)
Q = TypeVar("Q", bound=BaseModel)
S = TypeVar("S", bound=BaseModel)

Emit = Callable[[EventType, dict[str, Any]], Awaitable[None]]
Keep = Callable[[dict[str, str]], Awaitable[None]]


class NoPartial(BaseModel):
    """What a kind that keeps nothing along the way reports when it did not finish."""

    partial: bool = True


@dataclass(frozen=True)
class Outcome(Generic[R]):
    """A job that completed: its result and the data of its final `done` event (the
    result's JSON when None)."""

    result: R
    event: dict[str, Any] | None = None


@dataclass
class JobContext(Generic[P, C]):
    """What a kind's `run` gets: the job, its params (validated), the checkpoint a previous
    attempt saved (None on the first) and the ways to record progress.

    Large texts a checkpoint would repeat on every save (the pages a research run read) are
    given to `keep` once, by SHA-256, and the checkpoint refers to them by hash; a resumed
    attempt finds them in `texts`. `keep` is None where nothing stores texts apart (then a
    kind saves them inside its checkpoint). A job may also start, read and end jobs of its
    own (a crawl's helpers) through `spawn`, `other` and `conclude`."""

    job: Job
    params: P
    saved: C | None
    emit: Emit
    save: Callable[[C], Awaitable[None]]
    store: JobStore
    usage: dict[str, Any] = field(default_factory=dict)
    texts: dict[str, str] = field(default_factory=dict)
    keep: Keep | None = None

    async def spawn(self, kind: Kind[Q, Any], params: Q) -> Job:
        """Queue a job of `kind`, charged to this job's client; any worker claims it."""
        return await self.store.create(
            kind.name, params.model_dump(mode="json"), client=self.job.client
        )

    async def other(self, job_id: str) -> Job:
        return await self.store.get(job_id)

    async def conclude(self, job_id: str, kind: Kind[Any, S], result: S) -> bool:
        """End a job nobody holds (one this job spawned and no worker claimed) as done."""
        data = result.model_dump(mode="json")
        return await self.store.finish(
            job_id, worker=None, status="done", event=("done", data), result=data
        )


def _no_partial(events: list[Event]) -> BaseModel:
    return NoPartial()


@dataclass(frozen=True)
class Kind(Generic[P, R]):
    """One kind of job: `run` turns its params into its result, saving checkpoints of the
    `checkpoint` model on the way; `partial` sums up, from its events, what a job that did
    not finish had found; `on_cancel` runs once a cancelled job has ended (a crawl stops its
    frontier for the helpers still reading it)."""

    name: str
    params: type[P]
    result: type[R]
    run: Callable[[JobContext[P, Any]], Awaitable[Outcome[R]]]
    checkpoint: type[BaseModel] | None = None
    partial: Callable[[list[Event]], BaseModel] = _no_partial
    on_cancel: Callable[[str], Awaitable[None]] | None = None

    def params_of(self, job: Job) -> P:
        return self.params.model_validate(job.params)

    def result_of(self, job: Job) -> R | None:
        """The job's result, typed, once it is done (None before, or when it did not finish:
        a cancelled job's result is its partial)."""
        if job.status != "done" or job.result is None:
            return None
        return self.result.model_validate(job.result)

    def context(
        self,
        job: Job,
        *,
        saved: dict[str, Any] | None,
        emit: Emit,
        save: Callable[[dict[str, Any]], Awaitable[None]],
        store: JobStore,
        usage: dict[str, Any] | None = None,
        texts: dict[str, str] | None = None,
        keep: Keep | None = None,
    ) -> JobContext[P, Any]:
        """The typed context of one attempt, from what the store keeps as JSON."""
        model = self.checkpoint
        checkpoint = (
            model.model_validate(saved) if model is not None and saved is not None else None
        )

        async def save_typed(checkpoint: BaseModel) -> None:
            await save(checkpoint.model_dump())

        return JobContext(
            job=job,
            params=self.params_of(job),
            saved=checkpoint,
            emit=emit,
            save=save_typed,
            store=store,
            usage=dict(usage or {}),
            texts=dict(texts or {}),
            keep=keep,
        )

    def finished(self, outcome: Outcome[R]) -> tuple[dict[str, Any], dict[str, Any]]:
        """The result's JSON and the data of the `done` event, as the store keeps them."""
        result = outcome.result.model_dump(mode="json")
        return result, result if outcome.event is None else outcome.event

    def partial_of(self, events: list[Event]) -> dict[str, Any]:
        return self.partial(events).model_dump(mode="json")


Kinds = Mapping[str, Kind[Any, Any]]
