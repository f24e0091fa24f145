"""Each caller's last reading of a page, the one the next reading is compared with: its
Markdown and when it was taken, keyed by (caller, URL, tag), with the reading it replaced.

A reading may carry a name (a crawl's document: its job and number). Recording a named
reading again (the document made again on another server worker, or after its fields were
evicted) answers the reading it replaced the first time and changes nothing, so the
comparison is the same however often it is made; without that, the second making compared
the reading with itself: `same`. An unnamed reading (a scrape) is always a new one, even
when its page came from the cache.

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
# Readings kept at most (SQLite), the oldest dropped first: with MAX_MARKDOWN_CHARS, and the
# replaced reading kept beside each, that bounds the table near 2 GB at worst, and a few dozen
# MB for pages of ordinary length.
MAX_SNAPSHOTS = 10_000
REDIS_PREFIX = "netsift:snapshot:"
# A reading's name and the reading it replaced, added to tables made before they were kept.
_ADDED_COLUMNS = (("reading", "TEXT"), ("previous_markdown", "TEXT"), ("previous_taken_at", "REAL"))


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
        self,
        owner: str,
        url: str,
        tag: str | None,
        markdown: str,
        taken_at: datetime,
        reading: str | None = None,
    ) -> Snapshot | None:
        """Record this reading and answer the one it replaces (None when there was none or
        it had expired); the reading named `reading` recorded already answers the same."""
        ...

    async def aclose(self) -> None: ...


class SQLiteSnapshotStore:
    def __init__(self, path: str | Path, *, now: Any = time.time) -> None:
        db = open_sqlite(path)
        db.execute(
            "CREATE TABLE IF NOT EXISTS page_snapshots (key TEXT PRIMARY KEY, "
            "markdown TEXT NOT NULL, taken_at REAL NOT NULL)"
        )
        columns = {row[1] for row in db.execute("PRAGMA table_info(page_snapshots)")}
        for column, kind in _ADDED_COLUMNS:  # a table made before they were kept
            if column not in columns:
                db.execute(f"ALTER TABLE page_snapshots ADD COLUMN {column} {kind}")
        db.execute("CREATE INDEX IF NOT EXISTS page_snapshots_taken ON page_snapshots (taken_at)")
        self._db = SerialConnection(db)
        self._now = now

    async def swap(
        self,
        owner: str,
        url: str,
        tag: str | None,
        markdown: str,
        taken_at: datetime,
        reading: str | None = None,
    ) -> Snapshot | None:
        key = _key(owner, url, tag)
        kept = markdown[:MAX_MARKDOWN_CHARS]
        stamp = taken_at.timestamp()
        oldest = self._now() - KEPT_SECONDS

        def work(db: Any) -> tuple[str, float] | None:
            row = db.execute(
                "SELECT markdown, taken_at, reading, previous_markdown, previous_taken_at "
                "FROM page_snapshots WHERE key = ? AND taken_at >= ?",
                (key, oldest),
            ).fetchone()
            if row is not None and reading is not None and row[2] == reading:  # recorded
                replaced = row[3:] if row[3] is not None and row[4] >= oldest else None
                return None if replaced is None else (str(replaced[0]), float(replaced[1]))
            previous = None if row is None else (row[0], row[1])
            db.execute(
                "INSERT INTO page_snapshots (key, markdown, taken_at, reading, "
                "previous_markdown, previous_taken_at) VALUES (?, ?, ?, ?, ?, ?) "
                "ON CONFLICT (key) DO UPDATE SET markdown = excluded.markdown, "
                "taken_at = excluded.taken_at, reading = excluded.reading, "
                "previous_markdown = excluded.previous_markdown, "
                "previous_taken_at = excluded.previous_taken_at",
                (key, kept, stamp, reading, *(previous or (None, None))),
            )
            db.execute("DELETE FROM page_snapshots WHERE taken_at < ?", (oldest,))
            db.execute(
                "DELETE FROM page_snapshots WHERE key IN (SELECT key FROM page_snapshots "
                "ORDER BY taken_at DESC LIMIT -1 OFFSET ?)",
                (MAX_SNAPSHOTS,),
            )
            return None if previous is None else (str(previous[0]), float(previous[1]))

        found = await self._db.transaction(work)
        return None if found is None else Snapshot(found[0], _time(found[1]))

    async def aclose(self) -> None:
        self._db.close()


# One atomic step on the server: the same reading recorded again answers what it replaced and
# writes nothing; another reading becomes the current one, the current one its previous.
_REDIS_SWAP = """
local now = redis.call('HMGET', KEYS[1], 'markdown', 'taken_at', 'reading')
if ARGV[4] ~= '' and now[3] == ARGV[4] then
  return redis.call('HMGET', KEYS[1], 'previous_markdown', 'previous_taken_at')
end
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], 'markdown', ARGV[1], 'taken_at', ARGV[2], 'reading', ARGV[4])
if now[1] then
  redis.call('HSET', KEYS[1], 'previous_markdown', now[1], 'previous_taken_at', now[2])
end
redis.call('EXPIRE', KEYS[1], ARGV[3])
return {now[1], now[2]}
"""


class RedisSnapshotStore:
    """A hash per reading (with the one it replaced), expiring KEPT_SECONDS after it was
    written; the swap is one script, so two replicas recording the same page each get a whole
    reading."""

    def __init__(self, url: str) -> None:
        from redis.asyncio import Redis  # the redis extra, needed only when configured

        self._redis: Any = Redis.from_url(url, decode_responses=True)
        self._swap: Any = self._redis.register_script(_REDIS_SWAP)

    async def swap(
        self,
        owner: str,
        url: str,
        tag: str | None,
        markdown: str,
        taken_at: datetime,
        reading: str | None = None,
    ) -> Snapshot | None:
        key = REDIS_PREFIX + _key(owner, url, tag)
        kept = markdown[:MAX_MARKDOWN_CHARS]
        stamp = repr(taken_at.timestamp())
        previous, stamp = await self._swap(
            keys=[key], args=[kept, stamp, int(KEPT_SECONDS), reading or ""]
        )
        if previous is None:
            return None
        return Snapshot(str(previous), _time(float(stamp)))

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
