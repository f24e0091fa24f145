"""backends/sqlite.py: a new file opened by several processes at once ends up in WAL, no error;
one connection taken in turns, on the event loop unless the file is busy; its write-ahead log
checkpointed in a thread, never in a COMMIT on the loop."""

from __future__ import annotations

import asyncio
import sqlite3
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from netsift.backends.sqlite import CHECKPOINT_COMMITS, SerialConnection, open_sqlite

FILES = 25
PROCESSES = 6
OPENER = f"FILES = {FILES}\n" + textwrap.dedent(
    """
    import sys, time
    from netsift.backends.sqlite import open_sqlite
    start = float(sys.argv[2])
    while time.time() < start:
        pass
    modes = set()
    for n in range(FILES):  # many fresh files, so the processes collide while switching to WAL
        db = open_sqlite(f"{sys.argv[1]}-{n}")
        db.execute("CREATE TABLE IF NOT EXISTS t (n INTEGER)")
        db.execute("INSERT INTO t VALUES (1)")
        modes.add(db.execute("PRAGMA journal_mode").fetchone()[0])
        db.close()
    print(*modes)
    """
)


def test_processes_opening_a_new_file_together_all_succeed(tmp_path: Path) -> None:
    path = tmp_path / "shared" / "store.sqlite3"
    start = time.time() + 1.5  # every process is waiting before the first one opens
    processes = [
        subprocess.Popen(
            [sys.executable, "-c", OPENER, str(path), str(start)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(PROCESSES)
    ]
    outputs = [process.communicate(timeout=60) for process in processes]
    assert [p.returncode for p in processes] == [0] * PROCESSES, [err for _, err in outputs]
    assert {out.strip() for out, _ in outputs} == {"wal"}
    for n in range(FILES):
        db = open_sqlite(f"{path}-{n}")
        assert db.execute("SELECT COUNT(*) FROM t").fetchone()[0] == PROCESSES


def test_memory_database_opens(tmp_path: Path) -> None:
    db = open_sqlite(":memory:")
    assert db.execute("SELECT 1").fetchone()[0] == 1


def _serial(path: Path) -> SerialConnection:
    db = open_sqlite(path)
    db.execute("CREATE TABLE IF NOT EXISTS t (n INTEGER)")
    return SerialConnection(db, busy_timeout=5.0)


def _insert(n: int) -> Callable[[sqlite3.Connection], int]:
    def work(db: sqlite3.Connection) -> int:
        db.execute("INSERT INTO t VALUES (?)", (n,))
        return threading.get_ident()

    return work


async def test_a_transaction_runs_on_the_event_loop_when_the_file_is_free(tmp_path: Path) -> None:
    serial = _serial(tmp_path / "s.sqlite3")
    assert await serial.transaction(_insert(1)) == threading.get_ident()
    assert await serial.transaction(_insert(2), bulk=True) != threading.get_ident()
    assert serial.db.execute("SELECT COUNT(*) FROM t").fetchone()[0] == 2


async def test_a_busy_file_is_waited_for_in_a_thread_while_the_loop_runs_on(
    tmp_path: Path,
) -> None:
    serial = _serial(tmp_path / "s.sqlite3")
    other = open_sqlite(tmp_path / "s.sqlite3")
    other.execute("BEGIN IMMEDIATE")  # another process's writer holds the file
    other.execute("INSERT INTO t VALUES (0)")
    waiting = asyncio.ensure_future(serial.transaction(_insert(1)))
    ticks = 0
    while ticks < 20:  # the loop keeps turning while the transaction waits
        await asyncio.sleep(0.01)
        ticks += 1
    assert not waiting.done()
    other.execute("COMMIT")
    assert await waiting != threading.get_ident()
    assert [row[0] for row in serial.db.execute("SELECT n FROM t ORDER BY n")] == [0, 1]
    # the thread's busy wait is not left on the connection: inline work never waits
    assert serial.db.execute("PRAGMA busy_timeout").fetchone()[0] == 0


async def test_tasks_take_turns_and_a_failed_transaction_leaves_nothing(tmp_path: Path) -> None:
    serial = _serial(tmp_path / "s.sqlite3")

    def fail(db: sqlite3.Connection) -> None:
        db.execute("INSERT INTO t VALUES (99)")
        raise ValueError("refused")

    with pytest.raises(ValueError, match="refused"):
        await serial.transaction(fail)
    threads = await asyncio.gather(
        *(serial.transaction(_insert(n), bulk=n % 2 == 0) for n in range(20))
    )
    assert threading.get_ident() in threads  # the inline ones did not wait behind the bulk ones
    rows = [row[0] for row in serial.db.execute("SELECT n FROM t ORDER BY n")]
    assert rows == list(range(20))


def _log_size(path: Path) -> int:
    """The size of the file's write-ahead log (SQLite reuses it from the start once it was
    checkpointed whole; it grows while it is not)."""
    return Path(f"{path}-wal").stat().st_size


async def test_the_log_is_checkpointed_in_a_thread_and_stays_bounded(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite3"
    serial = _serial(path)
    assert serial.db.execute("PRAGMA wal_autocheckpoint").fetchone()[0] == 0
    checkpoints: list[int] = []

    def traced(statement: str) -> None:
        if "wal_checkpoint" in statement:
            checkpoints.append(threading.get_ident())

    serial.db.set_trace_callback(traced)
    row = "x" * 8000  # a few pages of the log a commit

    def write(db: sqlite3.Connection) -> None:
        db.execute("INSERT INTO t VALUES (?)", (row,))

    for _ in range(CHECKPOINT_COMMITS):
        await serial.transaction(write)
    assert checkpoints == []
    grown = _log_size(path)  # a checkpoint's worth of commits
    for _ in range(2 * CHECKPOINT_COMMITS + 1):
        await serial.transaction(write)
    assert len(checkpoints) == 3  # before the commits N+1, 2N+1 and 3N+1
    assert threading.get_ident() not in checkpoints  # never on the event loop
    # each checkpoint let the log start over: without them it would be 3x `grown`
    assert _log_size(path) < 1.5 * grown
    other = open_sqlite(path)  # another process sees every commit
    assert other.execute("SELECT COUNT(*) FROM t").fetchone()[0] == 3 * CHECKPOINT_COMMITS + 1
