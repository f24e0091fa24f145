"""Opening a SQLite file that several processes of one machine share (cache, jobs, sleeps).

WAL lets readers and one writer work at once; a busy timeout makes writers queue instead of
failing. Switching a file to WAL needs a moment of exclusive access, and SQLite answers
"database is locked" at once, without waiting on the busy handler, when another process
holds the file in that moment: several processes opening a new store together hit it. So the
switch is retried for a bounded time, and skipped when the file is already in WAL mode.
"""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

__all__ = ["BUSY_TIMEOUT_S", "open_sqlite"]

BUSY_TIMEOUT_S = 10.0


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
