"""Jobs in SQLite: one file (WAL) shared by the processes of one machine; `:memory:` for one
process. Claim is one conditional UPDATE."""

from __future__ import annotations

import json
import sqlite3
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ..backends.sqlite import SerialConnection, open_sqlite
from ..errors import NotFound
from ..models import Event, EventType
from .model import (
    FINISHED,
    Beat,
    Job,
    JobStatus,
    LeaseLost,
    event_key,
    new_job_id,
    owner_is_dead,
    utc_now,
)

__all__ = ["MemoryJobStore", "SQLiteJobStore"]


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
CREATE INDEX IF NOT EXISTS jobs_client_status_created_id ON jobs (client, status, created_at, id);
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
        self,
        *,
        limit: int = 50,
        status: str | None = None,
        before: str | None = None,
        client: str | None = None,
    ) -> list[Job]:
        where, args = [], []
        if status is not None:
            where.append("status = ?")
            args.append(status)
        if client is not None:
            where.append("client = ?")
            args.append(client)
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
                "stamp": utc_now().isoformat(),
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
        at = utc_now()
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

    async def save_usage(self, job_id: str, worker: str, usage: dict[str, Any]) -> None:
        rows = await self._run(
            "UPDATE jobs SET usage = ? WHERE id = ? AND owner = ? AND status = 'running' "
            "RETURNING id",
            (json.dumps(usage), job_id, worker),
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
                    utc_now().isoformat(),
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
