"""Durable jobs: every research run has an id, a status, numbered events and its report.

Events are persisted with sequence numbers so a client that reconnects resumes from the last
one it saw; jobs that were running when their process died are marked `interrupted` at the
next start, their events (and so their partial sources) kept. "Died" is told by heartbeat:
a running job's runner touches it every few seconds, so two server workers sharing one store
never mark each other's live jobs interrupted. SQLite by default (embedded,
survives restarts, shared by processes on one machine), memory for tests, Redis when scaled out.
"""

from __future__ import annotations

import json
import os
import socket
import threading
import uuid
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal, Protocol

import anyio
from pydantic import BaseModel, Field

from ..errors import InvalidInput, NotFound
from ..models import Event, EventType
from .sqlite import open_sqlite

__all__ = [
    "Job",
    "JobStatus",
    "JobStore",
    "MemoryJobStore",
    "SQLiteJobStore",
    "is_abandoned",
    "open_job_store",
    "owner_is_dead",
]

JobStatus = Literal["queued", "running", "done", "failed", "cancelled", "interrupted"]
FINISHED: frozenset[str] = frozenset({"done", "failed", "cancelled", "interrupted"})
STALE_AFTER = 30.0  # seconds without a heartbeat before a running job counts as dead


def _now() -> datetime:
    return datetime.now(UTC)


class Job(BaseModel):
    id: str
    kind: str = "research"
    status: JobStatus = "queued"
    params: dict[str, Any] = Field(default_factory=dict)
    created_at: datetime = Field(default_factory=_now)
    updated_at: datetime = Field(default_factory=_now)
    result: dict[str, Any] | None = None
    error: dict[str, Any] | None = None
    last_seq: int = 0
    heartbeat_at: datetime = Field(default_factory=_now)
    owner: str | None = None  # host:pid:runner of the process running it

    @property
    def finished(self) -> bool:
        return self.status in FINISHED


def this_host() -> str:
    return socket.gethostname()


def owner_is_dead(owner: str | None) -> bool:
    """True when the job's owner was a process on this machine that no longer exists: a job
    left by a killed process need not wait for its heartbeat to go stale."""
    if not owner:
        return False
    host, _, rest = owner.partition(":")
    pid_text = rest.partition(":")[0]
    if host != this_host() or not pid_text.isdigit():
        return False
    pid = int(pid_text)
    if pid == os.getpid():
        return False  # this process: another runner of ours, alive or not, is not ours to judge
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False
    return False


def is_abandoned(job: Job, *, stale_after: float, now: datetime | None = None) -> bool:
    """A job that is not finished but whose runner is gone (dead owner or stale heartbeat)."""
    if job.finished:
        return False
    stale = ((now or _now()) - job.heartbeat_at).total_seconds() >= stale_after
    return stale or owner_is_dead(job.owner)


class JobStore(Protocol):
    async def create(self, kind: str, params: dict[str, Any]) -> Job: ...
    async def get(self, job_id: str) -> Job: ...
    async def list_jobs(self, *, limit: int = 50, status: str | None = None) -> list[Job]: ...
    async def update(
        self,
        job_id: str,
        *,
        status: JobStatus,
        result: dict[str, Any] | None = None,
        error: dict[str, Any] | None = None,
        owner: str | None = None,
    ) -> Job: ...
    async def append_event(self, job_id: str, type: EventType, data: dict[str, Any]) -> Event: ...
    async def events(self, job_id: str, *, since: int = 0) -> list[Event]: ...
    async def heartbeat(self, job_id: str) -> None: ...
    async def mark_interrupted(self, *, stale_after: float = STALE_AFTER) -> list[str]: ...
    async def aclose(self) -> None: ...


def updated(
    job: Job,
    *,
    status: JobStatus,
    result: dict[str, Any] | None = None,
    error: dict[str, Any] | None = None,
    owner: str | None = None,
) -> Job:
    """`job` with a new status (and what came with it); a status change is a heartbeat too."""
    now = _now()
    changes: dict[str, Any] = {"status": status, "updated_at": now, "heartbeat_at": now}
    extra = {"result": result, "error": error, "owner": owner}
    changes.update({key: value for key, value in extra.items() if value is not None})
    return job.model_copy(update=changes)


def new_job_id() -> str:
    return uuid.uuid4().hex[:16]


class MemoryJobStore:
    """In-process jobs: for tests and one-shot CLI runs."""

    def __init__(self) -> None:
        self._jobs: dict[str, Job] = {}
        self._events: dict[str, list[Event]] = {}

    async def create(self, kind: str, params: dict[str, Any]) -> Job:
        job = Job(id=new_job_id(), kind=kind, params=params)
        self._jobs[job.id] = job
        self._events[job.id] = []
        return job

    async def get(self, job_id: str) -> Job:
        try:
            return self._jobs[job_id]
        except KeyError:
            raise NotFound(f"no job {job_id!r}", details={"job_id": job_id}) from None

    async def list_jobs(self, *, limit: int = 50, status: str | None = None) -> list[Job]:
        jobs = [j for j in self._jobs.values() if status is None or j.status == status]
        return sorted(jobs, key=lambda j: j.created_at, reverse=True)[:limit]

    async def update(
        self,
        job_id: str,
        *,
        status: JobStatus,
        result: dict[str, Any] | None = None,
        error: dict[str, Any] | None = None,
        owner: str | None = None,
    ) -> Job:
        self._jobs[job_id] = updated(
            await self.get(job_id), status=status, result=result, error=error, owner=owner
        )
        return self._jobs[job_id]

    async def append_event(self, job_id: str, type: EventType, data: dict[str, Any]) -> Event:
        job = await self.get(job_id)
        event = Event(type=type, job_id=job_id, seq=job.last_seq + 1, at=_now(), data=data)
        self._events[job_id].append(event)
        self._jobs[job_id] = job.model_copy(update={"last_seq": event.seq})
        return event

    async def events(self, job_id: str, *, since: int = 0) -> list[Event]:
        await self.get(job_id)
        return [e for e in self._events[job_id] if e.seq > since]

    async def heartbeat(self, job_id: str) -> None:
        job = await self.get(job_id)
        self._jobs[job_id] = job.model_copy(update={"heartbeat_at": _now()})

    async def mark_interrupted(self, *, stale_after: float = STALE_AFTER) -> list[str]:
        marked: list[str] = []
        for job in list(self._jobs.values()):
            if is_abandoned(job, stale_after=stale_after):
                await self.update(job.id, status="interrupted")
                marked.append(job.id)
        return marked

    async def aclose(self) -> None:
        return None


_SCHEMA = """
CREATE TABLE IF NOT EXISTS jobs (
    id TEXT PRIMARY KEY, kind TEXT NOT NULL, status TEXT NOT NULL, params TEXT NOT NULL,
    created_at TEXT NOT NULL, updated_at TEXT NOT NULL, result TEXT, error TEXT,
    last_seq INTEGER NOT NULL DEFAULT 0, heartbeat_at REAL NOT NULL DEFAULT 0, owner TEXT
);
CREATE TABLE IF NOT EXISTS job_events (
    job_id TEXT NOT NULL, seq INTEGER NOT NULL, type TEXT NOT NULL, at TEXT NOT NULL,
    data TEXT NOT NULL, PRIMARY KEY (job_id, seq)
);
CREATE INDEX IF NOT EXISTS jobs_created ON jobs (created_at);
"""


class SQLiteJobStore:
    """Jobs in one SQLite file (WAL), shared safely by the processes of one machine."""

    def __init__(self, path: Path) -> None:
        self._db = open_sqlite(path)
        self._db.executescript(_SCHEMA)
        columns = {row[1] for row in self._db.execute("PRAGMA table_info(jobs)")}
        if "owner" not in columns:  # a store written before jobs had owners
            self._db.execute("ALTER TABLE jobs ADD COLUMN owner TEXT")
        self._lock = threading.Lock()

    async def _run(self, sql: str, args: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        def work() -> list[tuple[Any, ...]]:
            with self._lock:
                return self._db.execute(sql, args).fetchall()

        return await anyio.to_thread.run_sync(work)

    @staticmethod
    def _job(row: tuple[Any, ...]) -> Job:
        return Job(
            id=row[0],
            kind=row[1],
            status=row[2],
            params=json.loads(row[3]),
            created_at=datetime.fromisoformat(row[4]),
            updated_at=datetime.fromisoformat(row[5]),
            result=json.loads(row[6]) if row[6] else None,
            error=json.loads(row[7]) if row[7] else None,
            last_seq=row[8],
            heartbeat_at=datetime.fromtimestamp(row[9], UTC),
            owner=row[10],
        )

    async def create(self, kind: str, params: dict[str, Any]) -> Job:
        job = Job(id=new_job_id(), kind=kind, params=params)
        await self._run(
            "INSERT INTO jobs VALUES (?, ?, ?, ?, ?, ?, NULL, NULL, 0, ?, NULL)",
            (
                job.id,
                kind,
                job.status,
                json.dumps(params),
                job.created_at.isoformat(),
                job.updated_at.isoformat(),
                job.heartbeat_at.timestamp(),
            ),
        )
        return job

    async def get(self, job_id: str) -> Job:
        rows = await self._run("SELECT * FROM jobs WHERE id = ?", (job_id,))
        if not rows:
            raise NotFound(f"no job {job_id!r}", details={"job_id": job_id})
        return self._job(rows[0])

    async def list_jobs(self, *, limit: int = 50, status: str | None = None) -> list[Job]:
        if status is None:
            rows = await self._run("SELECT * FROM jobs ORDER BY created_at DESC LIMIT ?", (limit,))
        else:
            rows = await self._run(
                "SELECT * FROM jobs WHERE status = ? ORDER BY created_at DESC LIMIT ?",
                (status, limit),
            )
        return [self._job(row) for row in rows]

    async def update(
        self,
        job_id: str,
        *,
        status: JobStatus,
        result: dict[str, Any] | None = None,
        error: dict[str, Any] | None = None,
        owner: str | None = None,
    ) -> Job:
        await self.get(job_id)
        await self._run(
            "UPDATE jobs SET status = ?, updated_at = ?, heartbeat_at = ?, "
            "result = COALESCE(?, result), error = COALESCE(?, error), "
            "owner = COALESCE(?, owner) WHERE id = ?",
            (
                status,
                _now().isoformat(),
                _now().timestamp(),
                json.dumps(result) if result is not None else None,
                json.dumps(error) if error is not None else None,
                owner,
                job_id,
            ),
        )
        return await self.get(job_id)

    async def append_event(self, job_id: str, type: EventType, data: dict[str, Any]) -> Event:
        at = _now()

        def work() -> int:
            with self._lock:
                self._db.execute("BEGIN IMMEDIATE")
                try:
                    row = self._db.execute(
                        "SELECT last_seq FROM jobs WHERE id = ?", (job_id,)
                    ).fetchone()
                    if row is None:
                        raise NotFound(f"no job {job_id!r}", details={"job_id": job_id})
                    seq = int(row[0]) + 1
                    self._db.execute(
                        "INSERT INTO job_events VALUES (?, ?, ?, ?, ?)",
                        (job_id, seq, type, at.isoformat(), json.dumps(data, default=str)),
                    )
                    self._db.execute(
                        "UPDATE jobs SET last_seq = ?, heartbeat_at = ? WHERE id = ?",
                        (seq, at.timestamp(), job_id),
                    )
                    self._db.execute("COMMIT")
                    return seq
                except BaseException:
                    self._db.execute("ROLLBACK")
                    raise

        seq = await anyio.to_thread.run_sync(work)
        return Event(type=type, job_id=job_id, seq=seq, at=at, data=data)

    async def events(self, job_id: str, *, since: int = 0) -> list[Event]:
        await self.get(job_id)
        rows = await self._run(
            "SELECT seq, type, at, data FROM job_events WHERE job_id = ? AND seq > ? ORDER BY seq",
            (job_id, since),
        )
        return [
            Event(
                type=row[1],
                job_id=job_id,
                seq=row[0],
                at=datetime.fromisoformat(row[2]),
                data=json.loads(row[3]),
            )
            for row in rows
        ]

    async def heartbeat(self, job_id: str) -> None:
        await self._run(
            "UPDATE jobs SET heartbeat_at = ? WHERE id = ?", (_now().timestamp(), job_id)
        )

    async def mark_interrupted(self, *, stale_after: float = STALE_AFTER) -> list[str]:
        rows = await self._run("SELECT * FROM jobs WHERE status IN ('queued', 'running')")
        marked: list[str] = []
        for job in map(self._job, rows):
            if not is_abandoned(job, stale_after=stale_after):
                continue
            # Only if still unfinished: the owner may have just finished it.
            done = await self._run(
                "UPDATE jobs SET status = 'interrupted', updated_at = ? "
                "WHERE id = ? AND status IN ('queued', 'running') RETURNING id",
                (_now().isoformat(), job.id),
            )
            marked.extend(str(row[0]) for row in done)
        return marked

    async def aclose(self) -> None:
        with self._lock:
            self._db.close()


def open_job_store(url: str) -> JobStore:
    """`memory://`, `sqlite:///path` or `redis://…` (the Redis store lives in redis_jobs)."""
    if url.startswith("memory://"):
        return MemoryJobStore()
    if url.startswith("sqlite:///"):
        return SQLiteJobStore(Path(url.removeprefix("sqlite:///")))
    if url.startswith(("redis://", "rediss://", "unix://")):
        from .redis_jobs import RedisJobStore

        return RedisJobStore(url)
    raise InvalidInput(f"job store URL must be memory://, sqlite:///path or redis://, not {url!r}")
