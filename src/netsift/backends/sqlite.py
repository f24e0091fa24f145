"""Opening a SQLite file that several processes of one machine share (cache, jobs, sleeps),
and using one connection to it from a process's tasks and threads.

WAL lets readers and one writer work at once; a busy timeout makes writers queue instead of
failing. Switching a file to WAL needs a moment of exclusive access, and SQLite answers
"database is locked" at once, without waiting on the busy handler, when another process
holds the file in that moment: several processes opening a new store together hit it. So the
switch is retried for a bounded time, and skipped when the file is already in WAL mode.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import anyio
import anyio.to_thread

__all__ = ["BUSY_TIMEOUT_S", "CHECKPOINT_COMMITS", "SerialConnection", "open_sqlite"]

T = TypeVar("T")

BUSY_TIMEOUT_S = 10.0
# Commits between two of a SerialConnection's checkpoints of the write-ahead log (copying
# the pages it holds back into the file). SQLite's own runs in the COMMIT that takes the log
# past 1,000 pages, so on the event loop: 11-15 ms of wall time (its fsyncs) and ~3 ms of
# CPU there, far more on a loaded machine (the crawl's commits held the server's loop 15-50
# ms). A crawl's commit writes a few pages (a page's text is the biggest), so 200 commits
# keep the log near SQLite's bound, and each checkpoint runs in a thread.
CHECKPOINT_COMMITS = 200


def open_sqlite(path: str | Path, *, busy_timeout: float = BUSY_TIMEOUT_S) -> sqlite3.Connection:
    """An autocommit connection in WAL mode, usable from worker threads under a lock."""
    if str(path) != ":memory:":
        Path(path).parent.mkdir(parents=True, exist_ok=True)
    db = sqlite3.connect(
        path,
        timeout=busy_timeout,
        isolation_level=None,  # autocommit: no transaction outlives a statement
        check_same_thread=False,  # callers serialize use with their own lock
    )
    db.execute(f"PRAGMA busy_timeout = {int(busy_timeout * 1000)}")
    deadline = time.monotonic() + busy_timeout
    while True:
        try:
            mode = db.execute("PRAGMA journal_mode").fetchone()[0]
            if mode != "wal" and str(path) != ":memory:":
                db.execute("PRAGMA journal_mode = WAL")
            break
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() > deadline:
                db.close()
                raise
            time.sleep(0.02)
    db.execute("PRAGMA synchronous = NORMAL")  # WAL + NORMAL: durable at checkpoints
    return db


class SerialConnection:
    """One process's connection to a shared SQLite file, used by one piece of work at a time.

    A transaction of the crawl frontier is 0.1-0.8 ms of SQL, and handing it to a worker
    thread cost more than that: the hop, then the thread and the event loop taking the GIL
    from each other at every statement (in a one-worker crawl, 6 transactions a page held
    the connection 3.2 ms a page and waited 0.8 ms each to start). So a transaction runs
    inline on the event loop when the file's write lock is free (BEGIN IMMEDIATE with no busy
    wait). When another connection is writing, or the work is `bulk`, it goes to a thread
    that waits up to the busy timeout, so the loop never sleeps on someone else's lock.

    Tasks take turns on an async lock, so a task never falls back to a thread only because
    another task's work is in one (that cascade sent a third of the work to threads); the
    thread lock guards the connection against use from another event loop or thread.

    The connection never checkpoints in a COMMIT (SQLite's automatic checkpoint would run
    inline): every `CHECKPOINT_COMMITS` transactions, the next one first runs a PASSIVE
    checkpoint in a thread. PASSIVE takes no write lock and waits for no one, so the other
    processes sharing the file write on meanwhile, and each process's connection bounds the
    log its own commits grow.
    """

    def __init__(self, db: sqlite3.Connection, *, busy_timeout: float = BUSY_TIMEOUT_S) -> None:
        self.db = db
        self._busy_ms = int(busy_timeout * 1000)
        self._turn = anyio.Lock()
        self._lock = threading.Lock()
        self._commits = 0  # transactions since the last checkpoint
        db.execute("PRAGMA busy_timeout = 0")  # inline work never waits; threads set their own
        db.execute("PRAGMA wal_autocheckpoint = 0")  # checkpoints run in a thread (above)

    async def call(self, work: Callable[[sqlite3.Connection], T]) -> T:
        """Run `work` in a thread, waiting for the file as long as the busy timeout allows."""
        async with self._turn:
            return await anyio.to_thread.run_sync(self._waiting, work)

    async def transaction(
        self, work: Callable[[sqlite3.Connection], T], *, bulk: bool = False
    ) -> T:
        """Run `work` in one write transaction: inline if it can start at once, else in a thread."""

        def atomic(db: sqlite3.Connection) -> T:
            db.execute("BEGIN IMMEDIATE")
            return _finish(db, work)

        async with self._turn:
            if self._commits >= CHECKPOINT_COMMITS:
                self._commits = 0
                await anyio.to_thread.run_sync(self._checkpoint)
            self._commits += 1
            if not bulk and self._lock.acquire(blocking=False):
                try:
                    if _begin(self.db):
                        return _finish(self.db, work)
                finally:
                    self._lock.release()
            return await anyio.to_thread.run_sync(self._waiting, atomic)

    def close(self) -> None:
        with self._lock:
            self.db.close()

    def _checkpoint(self) -> None:
        """Copy the log's pages back into the file, as far as no reader still needs them."""
        with self._lock:
            self.db.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()

    def _waiting(self, work: Callable[[sqlite3.Connection], T]) -> T:
        with self._lock:
            self.db.execute(f"PRAGMA busy_timeout = {self._busy_ms}")
            try:
                return work(self.db)
            finally:
                self.db.execute("PRAGMA busy_timeout = 0")


def _begin(db: sqlite3.Connection) -> bool:
    """Take the file's write lock; False when another connection holds it past the busy wait."""
    try:
        db.execute("BEGIN IMMEDIATE")
    except sqlite3.OperationalError as exc:
        if exc.sqlite_errorcode != sqlite3.SQLITE_BUSY:
            raise
        return False
    return True


def _finish(db: sqlite3.Connection, work: Callable[[sqlite3.Connection], T]) -> T:
    """Run `work` in the open transaction: commit what it did, or roll it all back."""
    try:
        value = work(db)
    except BaseException:
        db.execute("ROLLBACK")
        raise
    db.execute("COMMIT")
    return value
