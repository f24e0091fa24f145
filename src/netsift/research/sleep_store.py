"""Sleeps: an agent's pauses, kept where another process can see, wake and expire them.

A sleep has a deadline, stored with it: a sleep whose sleeper left or whose server died
reads `expired` once its deadline passes, after any restart. A wake is written to the store
(with an optional message for the sleeper) and announced: Redis publishes it on a channel
every replica listens to; SQLite is watched by one task per process for all its sleepers
(`changes`), and a wake from the same process is delivered at once by the Sleeper.
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal, Protocol

import anyio
from pydantic import BaseModel, Field

from ..backends import parse_store_url
from ..backends.sqlite import SerialConnection, open_sqlite
from ..errors import InvalidInput, NotFound

__all__ = [
    "EXPIRED",
    "MemorySleepStore",
    "RedisSleepStore",
    "SQLiteSleepStore",
    "SleepRecord",
    "SleepStore",
    "open_sleep_store",
]

SleepMode = Literal["timer", "event", "manual"]
EXPIRED = "expired"  # a sleep past its deadline that nobody ended (its sleeper is gone)
WATCH_SECONDS = 0.25  # one SQLite look per process for every sleeper in it, this often
CHANNEL = "netsift:sleeps:woken"
JOBS_CHANNEL = "netsift:jobs:finished"  # redis_jobs publishes each job's end here
PREFIX = "netsift:sleep:"
ACTIVE = "netsift:sleeps:active"  # sorted by deadline


def _now() -> datetime:
    return datetime.now(UTC)


class SleepRecord(BaseModel):
    id: str = Field(default_factory=lambda: uuid.uuid4().hex[:12])
    mode: SleepMode
    reason: str = ""
    job_id: str | None = None
    seconds: float | None = None
    started_at: datetime = Field(default_factory=_now)
    deadline: datetime | None = None  # when it ends at the latest, whatever happens
    woken: bool = False
    woke_because: str | None = None
    message: str | None = None  # what the waker said, handed to the sleeper

    def expired(self, now: datetime | None = None) -> SleepRecord:
        """As it reads now: ended `expired` if its deadline passed without an end."""
        if self.woke_because is None and self.deadline and (now or _now()) >= self.deadline:
            return self.model_copy(update={"woke_because": EXPIRED})
        return self


class SleepStore(Protocol):
    async def add(self, record: SleepRecord) -> SleepRecord: ...
    async def get(self, sleep_id: str) -> SleepRecord: ...
    async def wake(
        self, sleep_id: str, because: str = "woken", *, message: str | None = None
    ) -> SleepRecord: ...
    async def finish(self, sleep_id: str, because: str) -> None: ...
    async def active(self) -> list[SleepRecord]: ...
    def changes(self, watched: Callable[[], set[str]]) -> AsyncIterator[str]:
        """Ids of woken sleeps among `watched()` and, with Redis, of finished jobs; SQLite
        also yields "" once per look, for the jobs to be looked at."""
        ...

    async def aclose(self) -> None: ...


def _ended(record: SleepRecord, sleep_id: str) -> None:
    if record.woke_because is not None:
        raise InvalidInput(f"sleep {sleep_id} already ended ({record.woke_because})")


class SQLiteSleepStore:
    def __init__(self, path: str | Path) -> None:
        db = open_sqlite(path)
        db.execute(
            "CREATE TABLE IF NOT EXISTS sleeps (id TEXT PRIMARY KEY, body TEXT NOT NULL, "
            "woken INTEGER NOT NULL DEFAULT 0, woke_because TEXT)"
        )
        columns = {row[1] for row in db.execute("PRAGMA table_info(sleeps)")}
        if "message" not in columns:
            db.execute("ALTER TABLE sleeps ADD COLUMN message TEXT")
        self._db = SerialConnection(db)

    async def _run(self, sql: str, args: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        return await self._db.call(lambda db: db.execute(sql, args).fetchall())

    async def add(self, record: SleepRecord) -> SleepRecord:
        await self._run(
            "INSERT INTO sleeps (id, body) VALUES (?, ?)", (record.id, record.model_dump_json())
        )
        return record

    async def get(self, sleep_id: str) -> SleepRecord:
        rows = await self._run(
            "SELECT body, woken, woke_because, message FROM sleeps WHERE id = ?", (sleep_id,)
        )
        if not rows:
            raise NotFound(f"no sleep {sleep_id!r}", details={"sleep_id": sleep_id})
        body, woken, because, message = rows[0]
        record = SleepRecord.model_validate_json(body)
        update = {"woken": bool(woken), "woke_because": because, "message": message}
        return record.model_copy(update=update).expired()

    async def wake(
        self, sleep_id: str, because: str = "woken", *, message: str | None = None
    ) -> SleepRecord:
        _ended(await self.get(sleep_id), sleep_id)
        await self._run(
            "UPDATE sleeps SET woken = 1, message = ? WHERE id = ?", (message, sleep_id)
        )
        return await self.get(sleep_id)

    async def finish(self, sleep_id: str, because: str) -> None:
        await self._run("UPDATE sleeps SET woke_because = ? WHERE id = ?", (because, sleep_id))

    async def active(self) -> list[SleepRecord]:
        rows = await self._run("SELECT id FROM sleeps WHERE woke_because IS NULL")
        records = [await self.get(row[0]) for row in rows]
        return [r for r in records if r.woke_because is None]

    async def changes(self, watched: Callable[[], set[str]]) -> AsyncIterator[str]:
        while True:
            ids = sorted(watched())
            if ids:
                marks = ",".join("?" * len(ids))
                sql = f"SELECT id FROM sleeps WHERE woken = 1 AND id IN ({marks})"
                for (sleep_id,) in await self._run(sql, tuple(ids)):
                    yield str(sleep_id)
            yield ""  # a tick: the Sleeper looks at its event sleepers' jobs
            await anyio.sleep(WATCH_SECONDS)

    async def aclose(self) -> None:
        self._db.close()


class MemorySleepStore(SQLiteSleepStore):
    """Sleeps that live as long as the object: for tests and one-shot runs."""

    def __init__(self) -> None:
        super().__init__(":memory:")


class RedisSleepStore:
    """Sleeps shared by every replica: a hash per sleep, a sorted set of the active ones by
    deadline, and a channel announcing wakes, so a sleeper on any replica wakes at once."""

    def __init__(self, url: str) -> None:
        from redis.asyncio import Redis  # the redis extra, needed only when configured

        self._redis: Redis = Redis.from_url(url, decode_responses=True)

    async def add(self, record: SleepRecord) -> SleepRecord:
        deadline = record.deadline.timestamp() if record.deadline else float("inf")
        async with self._redis.pipeline(transaction=True) as pipe:
            pipe.hset(PREFIX + record.id, mapping={"body": record.model_dump_json()})
            pipe.zadd(ACTIVE, {record.id: deadline})
            await pipe.execute()
        return record

    async def get(self, sleep_id: str) -> SleepRecord:
        fields: dict[Any, Any] = await self._redis.hgetall(PREFIX + sleep_id)
        if not fields:
            raise NotFound(f"no sleep {sleep_id!r}", details={"sleep_id": sleep_id})
        record = SleepRecord.model_validate_json(fields["body"])
        update = {
            "woken": fields.get("woken") == "1",
            "woke_because": fields.get("woke_because"),
            "message": fields.get("message"),
        }
        return record.model_copy(update=update).expired()

    async def wake(
        self, sleep_id: str, because: str = "woken", *, message: str | None = None
    ) -> SleepRecord:
        _ended(await self.get(sleep_id), sleep_id)
        mapping: dict[Any, Any] = {"woken": "1"}
        if message is not None:
            mapping["message"] = message
        await self._redis.hset(PREFIX + sleep_id, mapping=mapping)
        await self._redis.publish(CHANNEL, sleep_id)
        return await self.get(sleep_id)

    async def finish(self, sleep_id: str, because: str) -> None:
        async with self._redis.pipeline(transaction=True) as pipe:
            pipe.hset(PREFIX + sleep_id, "woke_because", because)
            pipe.expire(PREFIX + sleep_id, 7 * 24 * 3600)
            pipe.zrem(ACTIVE, sleep_id)
            await pipe.execute()

    async def active(self) -> list[SleepRecord]:
        now = _now().timestamp()
        records = []
        for sleep_id in await self._redis.zrangebyscore(ACTIVE, now, "+inf"):
            try:
                records.append(await self.get(str(sleep_id)))
            except NotFound:
                continue
        return [r for r in records if r.woke_because is None]

    async def changes(self, watched: Callable[[], set[str]]) -> AsyncIterator[str]:
        async with self._redis.pubsub() as pubsub:
            await pubsub.subscribe(CHANNEL, JOBS_CHANNEL)
            # A wake (or job end) that came before the subscription is in the store.
            for sleep_id in watched():
                if (await self.get(sleep_id)).woken:
                    yield sleep_id
            yield ""  # and the jobs waited on are looked at once
            async for message in pubsub.listen():
                if message.get("type") == "message":
                    yield str(message["data"])

    async def aclose(self) -> None:
        await self._redis.aclose()


def open_sleep_store(url: str) -> SleepStore:
    store = parse_store_url(url, what="the sleep store URL (NETSIFT_JOBS_URL)")
    if store.kind == "redis":
        return RedisSleepStore(url)
    return SQLiteSleepStore(store.path)
