"""SqliteCache: the embedded cache backend, one file in the user data dir.

It survives restarts and is shared by every netsift process on the machine (CLI runs, a
server, MCP), so its rules are those of SQLite under concurrency: WAL (readers never wait for
the writer), a busy timeout (a writer waits for another rather than failing), autocommit with
only one short explicit transaction (write + evict), and every call off the event loop in a
worker thread. Eviction is oldest-written-first: recording reads would turn every hit into a
write, the very contention WAL is here to avoid. (With one TTL, soonest-to-expire is
oldest-written; the index on `expires_at` serves both the purge and the eviction.)
"""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Callable
from typing import TypeVar

import anyio.to_thread

from ...backends.sqlite import open_sqlite
from .model import CacheStats, Clock

__all__ = ["SqliteCache"]

T = TypeVar("T")

_SCHEMA = """
CREATE TABLE IF NOT EXISTS search_cache (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL,
    stored_at REAL NOT NULL,
    expires_at REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS search_cache_expiry ON search_cache (expires_at);
"""
BUSY_TIMEOUT_MS = 5_000


class SqliteCache:
    """A cache in one SQLite file; safe to share between processes."""

    def __init__(
        self, path: str, *, ttl: float, max_entries: int, clock: Clock = time.time
    ) -> None:
        self.path = path
        self.ttl = ttl
        self.max_entries = max_entries
        self._clock = clock
        self._lock = threading.Lock()
        self._db: sqlite3.Connection | None = None
        self._hits = 0
        self._misses = 0

    async def _run(self, work: Callable[[sqlite3.Connection], T]) -> T:
        def locked() -> T:
            with self._lock:
                return work(self._connection())

        return await anyio.to_thread.run_sync(locked)

    def _connection(self) -> sqlite3.Connection:
        if self._db is None:
            db = open_sqlite(self.path, busy_timeout=BUSY_TIMEOUT_MS / 1000)
            db.executescript(_SCHEMA)
            self._db = db
        return self._db

    async def get(self, key: str) -> str | None:
        now = self._clock()

        def read(db: sqlite3.Connection) -> str | None:
            row = db.execute(
                "SELECT value FROM search_cache WHERE key = ? AND expires_at > ?", (key, now)
            ).fetchone()
            return None if row is None else str(row[0])

        value = await self._run(read)
        if value is None:
            self._misses += 1
        else:
            self._hits += 1
        return value

    async def set(self, key: str, value: str) -> None:
        now = self._clock()

        def write(db: sqlite3.Connection) -> None:
            db.execute("BEGIN IMMEDIATE")
            try:
                db.execute(
                    "INSERT OR REPLACE INTO search_cache VALUES (?, ?, ?, ?)",
                    (key, value, now, now + self.ttl),
                )
                db.execute("DELETE FROM search_cache WHERE expires_at <= ?", (now,))
                (count,) = db.execute("SELECT COUNT(*) FROM search_cache").fetchone()
                if count > self.max_entries:
                    db.execute(
                        "DELETE FROM search_cache WHERE key IN (SELECT key FROM search_cache"
                        " ORDER BY expires_at LIMIT ?)",
                        (count - self.max_entries,),
                    )
                db.execute("COMMIT")
            except BaseException:
                db.execute("ROLLBACK")
                raise

        await self._run(write)

    async def stats(self) -> CacheStats:
        now = self._clock()

        def count(db: sqlite3.Connection) -> int:
            row = db.execute(
                "SELECT COUNT(*) FROM search_cache WHERE expires_at > ?", (now,)
            ).fetchone()
            return int(row[0])

        entries = await self._run(count)
        return CacheStats("sqlite", self._hits, self._misses, entries, self.max_entries, self.ttl)

    async def clear(self) -> None:
        await self._run(lambda db: db.execute("DELETE FROM search_cache"))

    async def aclose(self) -> None:
        def close(_: sqlite3.Connection) -> None:
            if self._db is not None:
                self._db.close()
                self._db = None

        if self._db is not None:
            await self._run(close)
