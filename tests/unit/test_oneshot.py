"""A one-shot command's own worker (netsift/oneshot.py): forked from the command's process
before any thread, it keeps the pool's promise (a task past its budget is `too_complex`, never a
hang or a dead command) and hands later tasks to the pool once a task has killed it.

Each case runs in a fresh single-threaded interpreter, as a CLI command does: a fork is refused
in a process that has started a thread, and this test process has.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]


def spin() -> None:
    while True:
        pass


def hog(megabytes: int) -> int:
    return len(bytearray(megabytes * 1024 * 1024))


def parent() -> int:
    return os.getppid()


ONE_SHOT = """
import asyncio, json, os
from netsift import oneshot
from netsift.compute import Compute, ComputeLimits
from netsift.errors import TooComplex
from tests.unit.test_oneshot import hog, parent, spin

oneshot.fork_worker(200, [])
compute = Compute(workers=1, limits=ComputeLimits(cpu_seconds=1, memory_mb=200))

async def main():
    out = {"me": os.getpid(), "forked_parent": await compute.run(parent)}
    for name, function, args in (("hog", hog, (400,)), ("spin", spin, ())):
        try:
            await compute.run(function, *args)
        except TooComplex as err:
            out[name] = err.details
        out[name + "_claimed_after"] = oneshot.claim(200) is not None
    out["pool_parent"] = await compute.run(parent)
    compute.close()
    print(json.dumps(out))

asyncio.run(main())
"""


def run_script(code: str) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
        cwd=REPO,
    )
    return dict(json.loads(done.stdout.splitlines()[-1]))


def test_the_forked_worker_keeps_the_limits_and_hands_over_to_the_pool() -> None:
    out = run_script(ONE_SHOT)
    assert out["forked_parent"] == out["me"]  # forked from the command itself, no forkserver
    assert out["hog"]["limit"] == "memory"
    assert out["hog_claimed_after"] is True  # a MemoryError is reported; the worker lives on
    assert out["spin"]["limit"] == "cpu"
    assert out["spin_claimed_after"] is False  # SIGXCPU ended it
    assert out["pool_parent"] != out["me"]  # the pool's worker comes from the forkserver


def test_no_worker_is_forked_once_a_thread_runs() -> None:
    code = (
        "import threading, time, json\nfrom netsift import oneshot\n"
        "threading.Thread(target=time.sleep, args=(1,), daemon=True).start()\n"
        "oneshot.fork_worker(200, [])\n"
        "print(json.dumps({'forked': oneshot.claim(200) is not None}))"
    )
    assert run_script(code) == {"forked": False}
