"""Durable jobs: every research (or crawl) run has an id, a status, numbered events, a
checkpoint and a lease.

A job is a queue entry as well as a record. A worker *claims* it (queued, or running under
a lease that has run out), renews the lease by heartbeat, saves a checkpoint after each step
and *finishes* it. Every write a worker makes is fenced by its ownership: a worker that lost
its lease (paused, partitioned, presumed dead) has its writes refused (`LeaseLost`) and
stops, so a job taken over by another worker is published exactly once. Events are
idempotent by content key: a step redone after a takeover re-emits the same events, which
are stored once, so a stream continues with the same seq numbers, no gaps, no duplicates.

SQLite by default (embedded, survives restarts, shared by the processes of one machine;
claim is one conditional UPDATE), `memory://` is SQLite in memory, Redis (redis_jobs.py)
when scaled out.
"""

from __future__ import annotations

from typing import Any, Protocol

from ..backends import parse_store_url
from ..models import Event, EventType
from .model import Beat, Job, JobStatus

__all__ = ["JobStore", "open_job_store"]


class JobStore(Protocol):
    """Records, events and the queue semantics a worker needs, on one engine."""

    async def create(
        self, kind: str, params: dict[str, Any], *, client: str | None = None
    ) -> Job: ...
    async def get(self, job_id: str) -> Job: ...
    async def list_jobs(
        self,
        *,
        limit: int = 50,
        status: str | None = None,
        before: str | None = None,
        client: str | None = None,
    ) -> list[Job]:
        """Newest first; `before` (a job id) continues a listing after that job. The cursor
        is the job's creation time, so a walk never returns a job twice, even while jobs
        change status between pages. `client`: only the jobs charged to that key."""
        ...

    async def events(self, job_id: str, *, since: int = 0) -> list[Event]: ...
    async def claim(self, worker: str, *, lease: float, job_id: str | None = None) -> Job | None:
        """Take a queued job (or one whose lease ran out); None when there is none."""
        ...

    async def beat(self, job_id: str, worker: str, *, lease: float) -> Beat:
        """Renew the lease; says whether a cancel was asked for or the lease was lost."""
        ...

    async def append_event(
        self, job_id: str, type: EventType, data: dict[str, Any], *, worker: str | None = None
    ) -> Event | None:
        """Append (None when this very event is already stored); LeaseLost if `worker`
        no longer owns the job."""
        ...

    async def save_checkpoint(
        self, job_id: str, worker: str, checkpoint: dict[str, Any], usage: dict[str, Any]
    ) -> None: ...
    async def save_usage(self, job_id: str, worker: str, usage: dict[str, Any]) -> None:
        """Keep what the job has spent so far, before the request it was charged for is
        sent (a worker killed mid-request leaves it counted, as the provider counted it).
        LeaseLost if `worker` no longer owns the job."""
        ...

    async def checkpoint(self, job_id: str) -> dict[str, Any] | None: ...
    async def save_texts(self, job_id: str, worker: str, texts: dict[str, str]) -> None:
        """Keep texts (page sources) by their SHA-256, each once: a checkpoint refers to
        them by hash instead of rewriting every text on every save. LeaseLost if `worker`
        no longer owns the job. Dropped when the job ends."""
        ...

    async def texts(self, job_id: str) -> dict[str, str]: ...
    async def finish(
        self,
        job_id: str,
        *,
        worker: str | None,
        status: JobStatus,
        event: tuple[EventType, dict[str, Any]],
        result: dict[str, Any] | None = None,
        error: dict[str, Any] | None = None,
        usage: dict[str, Any] | None = None,
    ) -> bool:
        """End the job with its final event, atomically, once: False if it had already
        ended (or `worker` lost it). `worker=None` ends a job nobody holds (queued)."""
        ...

    async def release(self, job_id: str, worker: str) -> None:
        """Hand a running job back to the queue (graceful stop): another worker resumes it
        from its checkpoint at once."""
        ...

    async def request_cancel(self, job_id: str) -> Job: ...
    async def aclose(self) -> None: ...


def open_job_store(url: str) -> JobStore:
    """`memory://`, `sqlite:///path` or `redis://…` (sqlite.py, redis.py)."""
    store = parse_store_url(url, what="the job store URL (NETSIFT_JOBS_URL)")
    if store.kind == "redis":
        from .redis import RedisJobStore

        return RedisJobStore(url)
    from .sqlite import SQLiteJobStore

    return SQLiteJobStore(store.path)
