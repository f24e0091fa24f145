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

import hashlib
import json
import os
import socket
import sqlite3
import time
import uuid
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal, Protocol

from pydantic import BaseModel, Field

from ..errors import InvalidInput, NotFound
from ..models import Event, EventType
from .sqlite import SerialConnection, open_sqlite

__all__ = [
    "FINISHED",
    "Beat",
    "Job",
    "JobStatus",
    "JobStore",
    "LeaseLost",
    "MemoryJobStore",
    "SQLiteJobStore",
    "event_key",
    "new_job_id",
    "open_job_store",
    "owner_is_dead",
    "this_host",
]

JobStatus = Literal["queued", "running", "done", "failed", "cancelled", "interrupted"]
FINISHED: frozenset[str] = frozenset({"done", "failed", "cancelled", "interrupted"})
Beat = Literal["ok", "cancel", "lost"]


class LeaseLost(Exception):
    """This worker no longer owns the job (its lease ran out and another took it, or the job
    ended): it must stop without writing anything more."""


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
    owner: str | None = None  # host:pid:tag of the worker holding the lease
    lease_until: float = 0.0  # epoch seconds; a running job past it is claimable
    attempts: int = 0  # workers that took it: 2+ means it was resumed after one stopped
    cancel_requested: bool = False
    usage: dict[str, Any] = Field(default_factory=dict)  # searches, pages, tokens charged
    client: str | None = None  # the API key (fingerprint) it is charged to

    @property
    def finished(self) -> bool:
        return self.status in FINISHED


def this_host() -> str:
    return socket.gethostname()


def new_job_id() -> str:
    return uuid.uuid4().hex[:16]


def event_key(type: EventType, data: dict[str, Any]) -> str:
    """An event's identity within its job: a step redone after a takeover emits the same
    events again, and the store keeps each once."""
    body = json.dumps([type, data], sort_keys=True, default=str, separators=(",", ":"))
    return hashlib.sha256(body.encode()).hexdigest()[:32]


def owner_is_dead(owner: str | None) -> bool:
    """True when the owner was a process on this machine that no longer exists: a job left
    by a killed process need not wait for its lease to run out."""
    if not owner:
        return False
    host, _, rest = owner.partition(":")
    pid_text = rest.partition(":")[0]
    if host != this_host() or not pid_text.isdigit():
        return False
    pid = int(pid_text)
    if pid == os.getpid():
        return False  # this process: another worker of ours, alive or not, is not ours to judge
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False
    return False


class JobStore(Protocol):
    """Records, events and the queue semantics a worker needs, on one engine."""

    async def create(
        self, kind: str, params: dict[str, Any], *, client: str | None = None
    ) -> Job: ...
    async def get(self, job_id: str) -> Job: ...
    async def list_jobs(
        self, *, limit: int = 50, status: str | None = None, before: str | None = None
    ) -> list[Job]:
        """Newest first; `before` (a job id) continues a listing after that job. The cursor
        is the job's creation time, so a walk never returns a job twice, even while jobs
        change status between pages."""
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


_SCHEMA = """
CREATE TABLE IF NOT EXISTS jobs (
    id TEXT PRIMARY KEY, kind TEXT NOT NULL, status TEXT NOT NULL, params TEXT NOT NULL,
    created_at TEXT NOT NULL, updated_at TEXT NOT NULL, result TEXT, error TEXT,
    last_seq INTEGER NOT NULL DEFAULT 0, heartbeat_at REAL NOT NULL DEFAULT 0, owner TEXT
);
CREATE TABLE IF NOT EXISTS job_texts (
    job_id TEXT NOT NULL, sha256 TEXT NOT NULL, text TEXT NOT NULL, PRIMARY KEY (job_id, sha256)
);
CREATE TABLE IF NOT EXISTS job_events (
    job_id TEXT NOT NULL, seq INTEGER NOT NULL, type TEXT NOT NULL, at TEXT NOT NULL,
    data TEXT NOT NULL, PRIMARY KEY (job_id, seq)
);
"""
# Columns added since the first schema: (name, declaration). Old stores gain them on open.
_ADDED = (
    ("lease_until", "REAL NOT NULL DEFAULT 0"),
    ("attempts", "INTEGER NOT NULL DEFAULT 0"),
    ("cancel", "INTEGER NOT NULL DEFAULT 0"),
    ("checkpoint", "TEXT"),
    ("usage", "TEXT"),
    ("client", "TEXT"),
)
_INDEXES = """
CREATE INDEX IF NOT EXISTS jobs_claim ON jobs (status, lease_until, created_at);
DROP INDEX IF EXISTS jobs_created;
DROP INDEX IF EXISTS jobs_status_created;
CREATE INDEX IF NOT EXISTS jobs_status_created_id ON jobs (status, created_at, id);
CREATE INDEX IF NOT EXISTS jobs_created_id ON jobs (created_at, id);
CREATE UNIQUE INDEX IF NOT EXISTS job_events_key ON job_events (job_id, key);
"""
_COLUMNS = (
    "id, kind, status, params, created_at, updated_at, result, error, last_seq, "
    "heartbeat_at, owner, lease_until, attempts, cancel, usage, client"
)
_CLAIMABLE = "(status = 'queued' OR (status = 'running' AND lease_until < :now))"


class SQLiteJobStore:
    """Jobs in one SQLite file (WAL), shared safely by the processes of one machine."""

    def __init__(self, path: str | Path) -> None:
        db = open_sqlite(path)
        db.executescript(_SCHEMA)
        columns = {row[1] for row in db.execute("PRAGMA table_info(jobs)")}
        if "owner" not in columns:  # a store written before jobs had owners
            db.execute("ALTER TABLE jobs ADD COLUMN owner TEXT")
        for name, declaration in _ADDED:
            if name not in columns:
                db.execute(f"ALTER TABLE jobs ADD COLUMN {name} {declaration}")
        event_columns = {row[1] for row in db.execute("PRAGMA table_info(job_events)")}
        if "key" not in event_columns:
            db.execute("ALTER TABLE job_events ADD COLUMN key TEXT")
        db.executescript(_INDEXES)
        self._db = SerialConnection(db)

    async def _run(self, sql: str, args: Any = ()) -> list[tuple[Any, ...]]:
        return await self._db.call(lambda db: db.execute(sql, args).fetchall())

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
            lease_until=row[11],
            attempts=row[12],
            cancel_requested=bool(row[13]),
            usage=json.loads(row[14]) if row[14] else {},
            client=row[15],
        )

    async def create(self, kind: str, params: dict[str, Any], *, client: str | None = None) -> Job:
        job = Job(id=new_job_id(), kind=kind, params=params, client=client)
        await self._run(
            "INSERT INTO jobs (id, kind, status, params, created_at, updated_at, heartbeat_at, "
            "client) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (
                job.id,
                kind,
                job.status,
                json.dumps(params),
                job.created_at.isoformat(),
                job.updated_at.isoformat(),
                job.heartbeat_at.timestamp(),
                client,
            ),
        )
        return job

    async def get(self, job_id: str) -> Job:
        rows = await self._run(f"SELECT {_COLUMNS} FROM jobs WHERE id = ?", (job_id,))
        if not rows:
            raise NotFound(f"no job {job_id!r}", details={"job_id": job_id})
        return self._job(rows[0])

    async def list_jobs(
        self, *, limit: int = 50, status: str | None = None, before: str | None = None
    ) -> list[Job]:
        where, args = [], []
        if status is not None:
            where.append("status = ?")
            args.append(status)
        if before is not None:
            cursor = await self._run("SELECT created_at FROM jobs WHERE id = ?", (before,))
            if not cursor:
                raise NotFound(f"no job {before!r}", details={"job_id": before})
            where.append("(created_at, id) < (?, ?)")
            args += [cursor[0][0], before]
        clause = f"WHERE {' AND '.join(where)}" if where else ""
        sql = f"SELECT {_COLUMNS} FROM jobs {clause} ORDER BY created_at DESC, id DESC LIMIT ?"
        rows = await self._run(sql, (*args, limit))
        return [self._job(row) for row in rows]

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

    async def _free_dead_owners(self) -> None:
        """Jobs of processes of this machine that died are claimable without waiting out
        their lease (only the running ones are looked at: an index range, not a scan)."""
        rows = await self._run("SELECT id, owner FROM jobs WHERE status = 'running'")
        for job_id, owner in rows:
            if owner_is_dead(owner):
                await self._run(
                    "UPDATE jobs SET lease_until = 0 WHERE id = ? AND owner = ?", (job_id, owner)
                )

    async def claim(self, worker: str, *, lease: float, job_id: str | None = None) -> Job | None:
        await self._free_dead_owners()
        now = time.time()
        only = "AND id = :id" if job_id else ""
        # Two index lookups, a dead worker's job first (as on Redis), then the oldest queued
        # one: one query with OR sorted every queued job on each claim (O(queue), 100k deep).
        rows = await self._run(
            f"UPDATE jobs SET status = 'running', owner = :worker, lease_until = :until, "
            f"heartbeat_at = :now, attempts = attempts + (owner IS NOT :worker), "
            f"updated_at = :stamp "
            f"WHERE id = COALESCE("
            f"(SELECT id FROM jobs WHERE status = 'running' AND lease_until < :now {only} "
            f"ORDER BY lease_until LIMIT 1), "
            f"(SELECT id FROM jobs WHERE status = 'queued' {only} ORDER BY created_at LIMIT 1)"
            f") AND {_CLAIMABLE} RETURNING {_COLUMNS}",
            {
                "worker": worker,
                "until": now + lease,
                "now": now,
                "stamp": _now().isoformat(),
                "id": job_id,
            },
        )
        return self._job(rows[0]) if rows else None

    async def beat(self, job_id: str, worker: str, *, lease: float) -> Beat:
        now = time.time()
        rows = await self._run(
            "UPDATE jobs SET lease_until = ?, heartbeat_at = ? "
            "WHERE id = ? AND owner = ? AND status = 'running' RETURNING cancel",
            (now + lease, now, job_id, worker),
        )
        if not rows:
            return "lost"
        return "cancel" if rows[0][0] else "ok"

    @staticmethod
    def _owns(db: sqlite3.Connection, job_id: str, worker: str | None) -> tuple[Any, ...]:
        row: tuple[Any, ...] | None = db.execute(
            "SELECT status, owner, last_seq, lease_until FROM jobs WHERE id = ?", (job_id,)
        ).fetchone()
        if row is None:
            raise NotFound(f"no job {job_id!r}", details={"job_id": job_id})
        if worker is not None and (row[0] != "running" or row[1] != worker):
            raise LeaseLost(job_id)
        return row

    @staticmethod
    def _insert_event(
        db: sqlite3.Connection, job_id: str, last_seq: int, type: EventType, data: dict[str, Any]
    ) -> Event | None:
        at = _now()
        key = event_key(type, data)
        if db.execute(
            "SELECT 1 FROM job_events WHERE job_id = ? AND key = ?", (job_id, key)
        ).fetchone():
            return None
        seq = last_seq + 1
        db.execute(
            "INSERT INTO job_events (job_id, seq, type, at, data, key) VALUES (?, ?, ?, ?, ?, ?)",
            (job_id, seq, type, at.isoformat(), json.dumps(data, default=str), key),
        )
        db.execute("UPDATE jobs SET last_seq = ? WHERE id = ?", (seq, job_id))
        return Event(type=type, job_id=job_id, seq=seq, at=at, data=data)

    async def append_event(
        self, job_id: str, type: EventType, data: dict[str, Any], *, worker: str | None = None
    ) -> Event | None:
        def work(db: sqlite3.Connection) -> Event | None:
            row = self._owns(db, job_id, worker)
            return self._insert_event(db, job_id, int(row[2]), type, data)

        return await self._db.transaction(work)

    async def save_checkpoint(
        self, job_id: str, worker: str, checkpoint: dict[str, Any], usage: dict[str, Any]
    ) -> None:
        rows = await self._run(
            "UPDATE jobs SET checkpoint = ?, usage = ?, heartbeat_at = ? "
            "WHERE id = ? AND owner = ? AND status = 'running' RETURNING id",
            (json.dumps(checkpoint), json.dumps(usage), time.time(), job_id, worker),
        )
        if not rows:
            raise LeaseLost(job_id)

    async def checkpoint(self, job_id: str) -> dict[str, Any] | None:
        rows = await self._run("SELECT checkpoint FROM jobs WHERE id = ?", (job_id,))
        if not rows:
            raise NotFound(f"no job {job_id!r}", details={"job_id": job_id})
        saved: dict[str, Any] | None = json.loads(rows[0][0]) if rows[0][0] else None
        return saved

    async def save_texts(self, job_id: str, worker: str, texts: dict[str, str]) -> None:
        def work(db: sqlite3.Connection) -> None:
            self._owns(db, job_id, worker)
            db.executemany(
                "INSERT OR IGNORE INTO job_texts (job_id, sha256, text) VALUES (?, ?, ?)",
                [(job_id, sha, text) for sha, text in texts.items()],
            )

        if texts:
            await self._db.transaction(work)

    async def texts(self, job_id: str) -> dict[str, str]:
        rows = await self._run("SELECT sha256, text FROM job_texts WHERE job_id = ?", (job_id,))
        return {sha: text for sha, text in rows}

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
        def work(db: sqlite3.Connection) -> bool:
            try:
                row = self._owns(db, job_id, worker)
            except LeaseLost:
                return False
            held = row[0] == "running" and row[3] >= time.time()
            if row[0] in FINISHED or (worker is None and held):
                return False
            self._insert_event(db, job_id, int(row[2]), *event)
            db.execute(
                "UPDATE jobs SET status = ?, updated_at = ?, heartbeat_at = ?, "
                "result = COALESCE(?, result), error = COALESCE(?, error), "
                "usage = COALESCE(?, usage), lease_until = 0 WHERE id = ?",
                (
                    status,
                    _now().isoformat(),
                    time.time(),
                    json.dumps(result) if result is not None else None,
                    json.dumps(error) if error is not None else None,
                    json.dumps(usage) if usage is not None else None,
                    job_id,
                ),
            )
            db.execute("DELETE FROM job_texts WHERE job_id = ?", (job_id,))  # resume only
            return True

        return await self._db.transaction(work)

    async def release(self, job_id: str, worker: str) -> None:
        await self._run(
            "UPDATE jobs SET status = 'queued', owner = NULL, lease_until = 0 "
            "WHERE id = ? AND owner = ? AND status = 'running'",
            (job_id, worker),
        )

    async def request_cancel(self, job_id: str) -> Job:
        await self._run(
            "UPDATE jobs SET cancel = 1 WHERE id = ? AND status IN ('queued', 'running')",
            (job_id,),
        )
        return await self.get(job_id)

    async def aclose(self) -> None:
        self._db.close()


class MemoryJobStore(SQLiteJobStore):
    """Jobs that live as long as the object: for tests and one-shot CLI runs."""

    def __init__(self) -> None:
        super().__init__(":memory:")


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
