"""`netsift serve` with a heartbeat on its event loop, for the benches that judge liveness.

    python bench/_loop_watch.py LAG_FILE serve --port N ...   (the `netsift` CLI's arguments)

A callback on the server's loop re-arms itself every `PERIOD`; when it runs late it appends a
line to LAG_FILE: the monotonic time (one clock for every process of the machine, so the
bench can tell which phase a stall fell in), how late it ran (ms, wall) and how much CPU the
loop's thread spent since the previous beat (ms). The wall figure moves with the machine's
load (another process on the core stretches it); the CPU figure is the loop's own work
between two turns, the longest stretch of it a callback or a run of callbacks held the loop,
and stays steady on a shared machine. Installed through the app factory the CLI names, so
the server runs exactly as `netsift serve` runs it (netsift is imported from PYTHONPATH, as
bench/map.py sets it).
"""

from __future__ import annotations

import asyncio
import sys
import time
from pathlib import Path
from typing import IO, Any

import netsift.server.app as server_app
from netsift.cli import main

__all__ = ["PERIOD", "REPORTED", "LoopWatch", "read_stalls"]

# The heartbeat's period: a stall shows within a period of its length, at ~1,000 cheap
# callbacks a second (about 1 % of a core).
PERIOD = 0.001
# Lateness written down: uvloop's timers tick in whole milliseconds, so a beat up to ~1 ms
# late is the timer, not a stall.
REPORTED = 0.002


class LoopWatch:
    """The heartbeat: started on the loop the app's first ASGI call runs on."""

    def __init__(self, out: IO[str]) -> None:
        self._out = out
        self._last = 0.0
        self._cpu = 0.0

    def start(self, loop: asyncio.AbstractEventLoop) -> None:
        self._last, self._cpu = time.perf_counter(), time.thread_time()
        loop.call_later(PERIOD, self._beat, loop)

    def _beat(self, loop: asyncio.AbstractEventLoop) -> None:
        now, cpu = time.perf_counter(), time.thread_time()
        late = now - self._last - PERIOD
        if late > REPORTED:
            ran = (cpu - self._cpu) * 1000
            self._out.write(f"{time.monotonic():.6f} {late * 1000:.3f} {ran:.3f}\n")
        self._last, self._cpu = now, cpu
        loop.call_later(PERIOD, self._beat, loop)


def read_stalls(path: Path) -> list[tuple[float, float, float]]:
    """LAG_FILE's lines: (monotonic time, ms late, loop CPU ms since the previous beat)."""
    if not path.exists():
        return []
    rows = []
    for line in path.read_text().splitlines():
        at, late, ran = line.split()
        rows.append((float(at), float(late), float(ran)))
    return rows


def _watched(out: IO[str]) -> Any:
    """create_app_from_env, its app wrapped to start the heartbeat on its first call."""
    make = server_app.create_app_from_env

    def factory() -> Any:
        app = make()
        watch = LoopWatch(out)
        started = False

        async def asgi(scope: Any, receive: Any, send: Any) -> None:
            nonlocal started
            if not started:
                started = True
                watch.start(asyncio.get_running_loop())
            await app(scope, receive, send)

        return asgi

    return factory


if __name__ == "__main__":
    lag_file = Path(sys.argv[1])
    with lag_file.open("a", buffering=1) as out:
        server_app.create_app_from_env = _watched(out)
        sys.argv = ["netsift", *sys.argv[2:]]
        main()
