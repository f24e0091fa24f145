"""Sleeps: an agent's pauses, kept where another process can see and wake them.

A manual sleep is woken by `POST /v1/sleeps/{id}/wake` or `netsift wake ID`, possibly from
another process than the one sleeping, so the wake is a row in the shared store that the
sleeper polls (memory for tests and single processes, SQLite by default).
"""

from __future__ import annotations

import threading
import uuid
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal, Protocol

import anyio
from pydantic import BaseModel, Field

from ..errors import InvalidInput, NotFound
from .sqlite import open_sqlite

__all__ = ["MemorySleepStore", "SQLiteSleepStore", "SleepRecord", "SleepStore", "open_sleep_store"]

SleepMode = Literal["timer", "event", "manual"]


class SleepRecord(BaseModel):
    id: str = Field(default_factory=lambda: uuid.uuid4().hex[:12])
    mode: SleepMode
    reason: str = ""
    job_id: str | None = None
    seconds: float | None = None
    started_at: datetime = Field(default_factory=lambda: datetime.now(UTC))
    woken: bool = False
    woke_because: str | None = None


class SleepStore(Protocol):
    async def add(self, record: SleepRecord) -> SleepRecord: ...
    async def get(self, sleep_id: str) -> SleepRecord: ...
    async def wake(self, sleep_id: str, because: str = "woken") -> SleepRecord: ...
    async def finish(self, sleep_id: str, because: str) -> None: ...
    async def active(self) -> list[SleepRecord]: ...


class MemorySleepStore:
    def __init__(self) -> None:
        self._items: dict[str, SleepRecord] = {}

    async def add(self, record: SleepRecord) -> SleepRecord:
        self._items[record.id] = record
        return record

    async def get(self, sleep_id: str) -> SleepRecord:
        try:
            return self._items[sleep_id]
        except KeyError:
            raise NotFound(f"no sleep {sleep_id!r}", details={"sleep_id": sleep_id}) from None

    async def wake(self, sleep_id: str, because: str = "woken") -> SleepRecord:
        record = await self.get(sleep_id)
        if record.woke_because is not None:
            raise InvalidInput(f"sleep {sleep_id} already ended ({record.woke_because})")
        self._items[sleep_id] = record.model_copy(update={"woken": True})
        return self._items[sleep_id]

    async def finish(self, sleep_id: str, because: str) -> None:
        record = await self.get(sleep_id)
        self._items[sleep_id] = record.model_copy(update={"woke_because": because})

    async def active(self) -> list[SleepRecord]:
        return [r for r in self._items.values() if r.woke_because is None]


class SQLiteSleepStore:
    def __init__(self, path: Path) -> None:
        self._db = open_sqlite(path)
        self._db.execute(
            "CREATE TABLE IF NOT EXISTS sleeps (id TEXT PRIMARY KEY, body TEXT NOT NULL, "
            "woken INTEGER NOT NULL DEFAULT 0, woke_because TEXT)"
        )
        self._lock = threading.Lock()

    async def _run(self, sql: str, args: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        def work() -> list[tuple[Any, ...]]:
            with self._lock:
                return self._db.execute(sql, args).fetchall()

        return await anyio.to_thread.run_sync(work)

    async def add(self, record: SleepRecord) -> SleepRecord:
        await self._run(
            "INSERT INTO sleeps (id, body) VALUES (?, ?)", (record.id, record.model_dump_json())
        )
        return record

    async def get(self, sleep_id: str) -> SleepRecord:
        rows = await self._run(
            "SELECT body, woken, woke_because FROM sleeps WHERE id = ?", (sleep_id,)
        )
        if not rows:
            raise NotFound(f"no sleep {sleep_id!r}", details={"sleep_id": sleep_id})
        body, woken, because = rows[0]
        record = SleepRecord.model_validate_json(body)
        return record.model_copy(update={"woken": bool(woken), "woke_because": because})

    async def wake(self, sleep_id: str, because: str = "woken") -> SleepRecord:
        record = await self.get(sleep_id)
        if record.woke_because is not None:
            raise InvalidInput(f"sleep {sleep_id} already ended ({record.woke_because})")
        await self._run("UPDATE sleeps SET woken = 1 WHERE id = ?", (sleep_id,))
        return await self.get(sleep_id)

    async def finish(self, sleep_id: str, because: str) -> None:
        await self._run("UPDATE sleeps SET woke_because = ? WHERE id = ?", (because, sleep_id))

    async def active(self) -> list[SleepRecord]:
        rows = await self._run("SELECT id FROM sleeps WHERE woke_because IS NULL")
        return [await self.get(row[0]) for row in rows]


def open_sleep_store(url: str) -> SleepStore:
    if url.startswith("memory://"):
        return MemorySleepStore()
    if url.startswith("sqlite:///"):
        return SQLiteSleepStore(Path(url.removeprefix("sqlite:///")))
    raise InvalidInput(f"sleep store URL must be memory:// or sqlite:///path, not {url!r}")
