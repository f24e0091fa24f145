"""Inside a worker process: the limits one task runs under, shared by the compute pool's
workers (compute.py) and a one-shot command's forked worker (oneshot.py).

`init_worker` yields the CPU to request handling and caps the address space once; `run_task`
arms a CPU budget for one task (RLIMIT_CPU: the kernel ends the worker past it, even inside C
code), runs it, hands errors back as data and gives the heap back after a task that grew it.
"""

from __future__ import annotations

import math
import os
import resource
import signal
from collections.abc import Callable
from typing import Any

from .errors import NetsiftError

__all__ = ["init_worker", "run_task"]


# The heap a task grew is handed back to the kernel only when the worker then holds this many
# MB more than when it started. Ordinary pages reuse what the last one freed: the article set's
# 141 pages leave a worker at most ~18 MB above its start, and trimming after each of them, then
# faulting the pages in again for the next, cost ~1.5 ms of a ~30 ms page (60 article pages
# in-process, sum of per-page minima of 3; bench/README.md, "one page at a time").
# A large page's tens of MB still go back at once.
TRIM_ABOVE_MB = 32

_start_rss: int | None = None  # the worker's resident set when it began taking tasks


def init_worker(memory_mb: int, niceness: int) -> None:
    """Yield the CPU to request handling; cap the address space at what the worker holds now
    plus the task's allowance."""
    global _start_rss
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C stops the parent, which stops us
    os.nice(niceness)
    _start_rss = _resident_bytes()
    if memory_mb <= 0:
        return
    held = _address_space_bytes()
    limit = held + memory_mb * 1024 * 1024
    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)
    resource.setrlimit(resource.RLIMIT_AS, (limit, hard))


def _statm(field: int) -> int:
    """One field of /proc/self/statm (0: address space, 1: resident set), in bytes."""
    with open("/proc/self/statm", encoding="ascii") as statm:
        return int(statm.read().split()[field]) * os.sysconf("SC_PAGE_SIZE")


def _address_space_bytes() -> int:
    return _statm(0)


def _resident_bytes() -> int | None:
    try:
        return _statm(1)
    except OSError:  # no /proc (not Linux): every task's heap is trimmed
        return None


def run_task(cpu_seconds: int, function: Callable[..., Any], args: tuple[Any, ...]) -> Any:
    """In the worker: arm the CPU budget, run, and hand errors back as data.

    RLIMIT_CPU counts the whole process's CPU, so the soft limit is set to what the worker has
    used so far plus this task's budget; past it the kernel sends SIGXCPU, whose default action
    ends the worker (even inside a C loop where no Python handler could run).
    """
    used = resource.getrusage(resource.RUSAGE_SELF)
    spent = used.ru_utime + used.ru_stime
    _, hard = resource.getrlimit(resource.RLIMIT_CPU)
    resource.setrlimit(resource.RLIMIT_CPU, (math.ceil(spent) + cpu_seconds, hard))
    try:
        return ("ok", function(*args))
    except NetsiftError as err:  # rebuilt by code in the parent (their kwargs do not pickle)
        return ("error", err.to_dict())
    except MemoryError:
        return ("memory", None)
    except RecursionError:
        return ("recursion", None)
    finally:
        if _grown():
            _trim_heap()


def _grown() -> bool:
    """Whether the worker holds `TRIM_ABOVE_MB` more than when it started (or cannot tell)."""
    now = _resident_bytes()
    if _start_rss is None or now is None:
        return True
    return now - _start_rss > TRIM_ABOVE_MB * 1024 * 1024


_malloc_trim: Callable[[int], int] | None = None


def _trim_heap() -> None:
    """Hand the heap a task grew back to the kernel (glibc's `malloc_trim`; elsewhere nothing).

    glibc returns freed memory only from the top of the heap, so after a large page a worker
    kept its high-water mark for its whole life (`TASKS_PER_WORKER` tasks): ~10 MiB per worker
    for a 1 MB page (bench/README.md, render). Trimming costs well under a millisecond.
    """
    global _malloc_trim
    if _malloc_trim is None:
        import ctypes
        import ctypes.util

        try:
            _malloc_trim = ctypes.CDLL(ctypes.util.find_library("c")).malloc_trim
        except (OSError, AttributeError, TypeError):  # not glibc (musl, macOS)
            _malloc_trim = _no_trim
    _malloc_trim(0)


def _no_trim(_pad: int) -> int:
    return 0
