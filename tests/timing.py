"""CPU time for the tests that check an algorithm's growth (a ratio to a linear baseline, never
a wall-clock bound)."""

from __future__ import annotations

import time
from collections.abc import Callable

__all__ = ["least_cpu"]


def least_cpu(work: Callable[[], object], *, runs: int = 3) -> float:
    """The least CPU time of `runs` runs of `work` (the least is the least disturbed by a busy
    host)."""
    best = float("inf")
    for _ in range(runs):
        started = time.process_time()
        work()
        best = min(best, time.process_time() - started)
    return best
