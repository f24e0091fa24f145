"""Time in tests on a busy machine: CPU time for the tests that check an algorithm's growth (a
ratio to a linear baseline, never a wall-clock bound), and a measured slowness factor for the
few waits whose deadline is the point (a hang guard, a lease, a stop timeout).

A test that can await an event awaits it; a deadline only says how long "never" is. On a quiet
development machine that is the written number of seconds; on a loaded CI runner or laptop the
same work takes several times longer, so `scaled(seconds)` stretches it by `slowness()`, the
ratio of a fixed CPU-bound probe's wall time now to its time on the quiet 2-core development
machine."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable

__all__ = ["least_cpu", "scaled", "slowness"]

# The probe: a pure-Python loop of this many steps takes PROBE_REFERENCE seconds of CPU on the
# 2-core development machine (measured: 11.8-12.0 ms), short enough to run before every wait.
PROBE_STEPS = 200_000
PROBE_REFERENCE = 0.012
# Odd, so the median is one run; five runs ride out one unlucky scheduler slice.
PROBE_RUNS = 5
# A machine more than this many times slower is thrashing, not slow: waits stop growing so a
# real hang still ends inside CI's time.
MAX_SLOWNESS = 20.0


def least_cpu(work: Callable[[], object], *, runs: int = 3) -> float:
    """The least CPU time of `runs` runs of `work` (the least is the least disturbed by a busy
    host)."""
    best = float("inf")
    for _ in range(runs):
        started = time.process_time()
        work()
        best = min(best, time.process_time() - started)
    return best


def _probe() -> float:
    started = time.perf_counter()
    total = 0
    for step in range(PROBE_STEPS):
        total += step * step
    return time.perf_counter() - started


def slowness() -> float:
    """How many times slower than the quiet development machine this one runs right now (1 at
    least): the probe's median wall time over its reference, so both a slower CPU and the share
    of it other processes take count."""
    measured = statistics.median(_probe() for _ in range(PROBE_RUNS)) / PROBE_REFERENCE
    return min(max(measured, 1.0), MAX_SLOWNESS)


def scaled(seconds: float) -> float:
    """`seconds` on the quiet development machine, as seconds on this one now."""
    return seconds * slowness()
