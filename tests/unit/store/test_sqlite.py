"""store/sqlite.py: a new file opened by several processes at once ends up in WAL, no error."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import time
from pathlib import Path

from netsift.store.sqlite import open_sqlite

FILES = 25
PROCESSES = 6
OPENER = f"FILES = {FILES}\n" + textwrap.dedent(
    """
    import sys, time
    from netsift.store.sqlite import open_sqlite
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
