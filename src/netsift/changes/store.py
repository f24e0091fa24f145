"""Each caller's last reading of a page, the one the next reading is compared with: its
Markdown and when it was taken, keyed by (caller, URL, tag).

Kept beside the jobs, as the usage ledger: a `page_snapshots` table in the jobs' SQLite file
by default, a Redis hash per reading when the host scales out on Redis (so every replica
compares with the same history). Bounded: each reading keeps at most MAX_MARKDOWN_CHARS,
a reading expires KEPT_SECONDS after it was taken, and SQLite keeps the MAX_SNAPSHOTS most
recent (Redis relies on the expiry and its own memory policy).
"""

from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Protocol

from ..backends import parse_store_url
from ..backends.sqlite import SerialConnection, open_sqlite

__all__ = [
    "KEPT_SECONDS",
    "MAX_MARKDOWN_CHARS",
    "MAX_SNAPSHOTS",
    "SQLiteSnapshotStore",
    "Snapshot",
    "SnapshotStore",
    "open_snapshot_store",
]

# A long article's Markdown is 20-60k characters and a documentation page rarely passes 100k;
# past this, the readings are compared on their first MAX_MARKDOWN_CHARS (the answer says so).
MAX_MARKDOWN_CHARS = 100_000
# A monitor checks hourly to monthly: 45 days keeps a monthly check's previous reading with
# room for a late run.
KEPT_SECONDS = 45 * 24 * 3600.0
# Readings kept at most (SQLite), the oldest dropped first: with MAX_MARKDOWN_CHARS that
# bounds the table near 1 GB at worst, and a few dozen MB for pages of ordinary length.
MAX_SNAPSHOTS = 10_000
REDIS_PREFIX = "netsift:snapshot:"


@dataclass(frozen=True)
class Snapshot:
    markdown: str
    taken_at: datetime


def _key(owner: str, url: str, tag: str | None) -> str:
    """One reading's key; the tag `None` (Firecrawl's default history) is its own, apart from
    every named tag, the empty one included."""
    parts = [owner, url, "" if tag is None else "#" + tag]
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()


class SnapshotStore(Protocol):
    async def swap(
        self, owner: str, url: str, tag: str | None, markdown: str, taken_at: datetime
    ) -> Snapshot | None:
        """Record this reading and answer the one it replaces (None when there was none or
        it had expired)."""
        ...

    async def aclose(self) -> None: ...


class SQLiteSnapshotStore:
    def __init__(self, path: str | Path, *, now: Any = time.time) -> None:
        db = open_sqlite(path)
        db.execute(
            "CREATE TABLE IF NOT EXISTS page_snapshots (key TEXT PRIMARY KEY, "
            "markdown TEXT NOT NULL, taken_at REAL NOT NULL)"
        )
        db.execute("CREATE INDEX IF NOT EXISTS page_snapshots_taken ON page_snapshots (taken_at)")
        self._db = SerialConnection(db)
        self._now = now

    async def swap(
        self, owner: str, url: str, tag: str | None, markdown: str, taken_at: datetime
    ) -> Snapshot | None:
        key = _key(owner, url, tag)
        kept = markdown[:MAX_MARKDOWN_CHARS]
        oldest = self._now() - KEPT_SECONDS

        def work(db: Any) -> tuple[str, float] | None:
            row = db.execute(
                "SELECT markdown, taken_at FROM page_snapshots WHERE key = ? AND taken_at >= ?",
                (key, oldest),
            ).fetchone()
            db.execute(
                "INSERT INTO page_snapshots VALUES (?, ?, ?) ON CONFLICT (key) DO UPDATE "
                "SET markdown = excluded.markdown, taken_at = excluded.taken_at",
                (key, kept, taken_at.timestamp()),
            )
            db.execute("DELETE FROM page_snapshots WHERE taken_at < ?", (oldest,))
            db.execute(
                "DELETE FROM page_snapshots WHERE key IN (SELECT key FROM page_snapshots "
                "ORDER BY taken_at DESC LIMIT -1 OFFSET ?)",
                (MAX_SNAPSHOTS,),
            )
            return None if row is None else (str(row[0]), float(row[1]))

        found = await self._db.transaction(work)
        return None if found is None else Snapshot(found[0], _time(found[1]))

    async def aclose(self) -> None:
        self._db.close()


class RedisSnapshotStore:
    """A hash per reading, expiring KEPT_SECONDS after it was written; the swap is one
    MULTI/EXEC, so two replicas recording the same page each get a whole reading."""

    def __init__(self, url: str) -> None:
        from redis.asyncio import Redis  # the redis extra, needed only when configured

        self._redis: Any = Redis.from_url(url, decode_responses=True)

    async def swap(
        self, owner: str, url: str, tag: str | None, markdown: str, taken_at: datetime
    ) -> Snapshot | None:
        key = REDIS_PREFIX + _key(owner, url, tag)
        fields = {"markdown": markdown[:MAX_MARKDOWN_CHARS], "taken_at": taken_at.timestamp()}
        async with self._redis.pipeline(transaction=True) as pipe:
            pipe.hgetall(key)
            pipe.hset(key, mapping=fields)
            pipe.expire(key, int(KEPT_SECONDS))
            previous, _, _ = await pipe.execute()
        if not previous:
            return None
        return Snapshot(str(previous["markdown"]), _time(float(previous["taken_at"])))

    async def aclose(self) -> None:
        await self._redis.aclose()


def _time(stamp: float) -> datetime:
    return datetime.fromtimestamp(stamp, UTC)


def open_snapshot_store(url: str) -> SnapshotStore:
    """Beside the jobs: `memory://`, `sqlite:///path` (a `page_snapshots` table) or
    `redis://…`."""
    store = parse_store_url(url, what="the page snapshots' store URL (NETSIFT_JOBS_URL)")
    if store.kind == "redis":
        return RedisSnapshotStore(url)
    return SQLiteSnapshotStore(store.path)
