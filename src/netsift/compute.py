"""Compute: the pool of worker processes that CPU-bound parsing and extraction run in.

A hostile page must never stall the event loop or exhaust the host, so page parsing runs in
worker processes (pebble's `ProcessPool`), each task with a CPU-time budget and a memory
ceiling enforced by the kernel in the worker (RLIMIT_CPU, RLIMIT_AS) plus a wall-clock backstop.
A task past a limit dies with its worker; pebble starts a fresh worker and fails only that
task's future, so the caller gets `TooComplex` naming the limit and every other task goes on.

Why pebble: `concurrent.futures.ProcessPoolExecutor` marks the whole pool broken when one
worker dies (every in-flight task fails, and the pool must be rebuilt); loky restarts the whole
executor on a crash, also failing its neighbours; a hand-rolled pool would re-implement pebble's
per-task timeout, kill-and-replace and result channel. pebble does exactly that, in pure Python.

Workers are forked from a forkserver (never from the multi-threaded server process) that has
imported the extraction modules once, so starting or replacing a worker costs a fork, not an
import of lxml and trafilatura. A one-page CLI command forks its single worker from itself
instead, under the same limits (oneshot.py says why); `run` uses it while it lives.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import signal
import threading
from collections.abc import Callable
from concurrent.futures import CancelledError
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass
from typing import Any, TypeVar

from pebble import ProcessExpired, ProcessPool

from . import oneshot
from .errors import TooComplex, error_from_dict
from .task_limits import init_worker, run_task

__all__ = ["INLINE_MAX_BYTES", "WORKER_NICENESS", "Compute", "ComputeLimits", "default_workers"]

T = TypeVar("T")

# Below this many input bytes a task runs inline on the caller's thread: shipping it to a
# worker (pickle, pipe, wake-up, result back) costs ~0.4 ms, as much as reading 2.4 KB of
# JSON, and a linear-time parser cannot spend long on so little (bench/hostile.py measures
# the round trip). HTML is never inline: its parse walks trafilatura's whole pipeline.
INLINE_MAX_BYTES = 4096

# The wall-clock backstop for a task: its CPU budget times this plus a grace period, for a worker
# that stops using CPU (blocked) rather than running over its budget (RLIMIT_CPU ends those).
WALL_FACTOR = 3.0
WALL_GRACE_SECONDS = 5.0
# A worker only slowed by a busy core must not meet the backstop before its CPU budget: CFS
# weighs a process at nice n about 1.25**-n of one at nice 0 (the kernel's sched_prio_to_weight:
# 1024 at 0, 110 at 10), so beside one busy process of the server's priority a worker at nice n
# gets 1 / (1 + 1.25**n) of the core, a tenth at 10. With a flat 3x, bench/hostile.py's 4 CPU s
# pages ended `too_complex` (time) after 20 s having had 2.5 CPU s, on a host where one other
# process of the session was busy.
NICE_WEIGHT_STEP = 1.25

# A worker is replaced after this many tasks, so slow leaks (caches in parsers, fragmentation
# after a large page) cannot accumulate for the life of the server.
TASKS_PER_WORKER = 500

# Workers run at this much lower scheduling priority (nice) than the process that serves
# requests: parsing is throughput work and answering is latency work, so when both want a
# core the kernel runs the event loop first (at 10, CFS weighs a worker at about a tenth of
# the loop on a contended core) while an idle core still goes wholly to the worker. One prompt
# worker is exempt on a host of two cores or more (`Compute` says why).
WORKER_NICENESS = 10

# The modules a worker needs, imported once by the forkserver so each fork starts warm: the
# readers' dispatch (light on purpose: no httpx, settings or render step) and the HTML reader
# (trafilatura, lxml), which nearly every task uses.
PRELOAD = ["netsift.fetch.content", "netsift.fetch.html"]
# Imported before PRELOAD: keeps the workers from running the main module of the process that
# started the pool again (compute_nomain.py).
NO_MAIN = "netsift.compute_nomain"
# Imported after PRELOAD: reads a small page in the forkserver, so what extraction loads on
# first use is shared by the workers instead of loaded into each (compute_warmup.py).
WARMUP = "netsift.compute_warmup"


def default_workers() -> int:
    """One worker per core this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


@dataclass(frozen=True)
class ComputeLimits:
    """What one task may use: whole CPU seconds (RLIMIT_CPU's unit) and megabytes of memory."""

    cpu_seconds: int
    memory_mb: int

    def wall_seconds(self, niceness: int = 0) -> float:
        """The wall-clock backstop of a task run by a worker at `niceness`."""
        factor = max(WALL_FACTOR, 1 + NICE_WEIGHT_STEP**niceness)
        return self.cpu_seconds * factor + WALL_GRACE_SECONDS


def _ready() -> bool:
    return True


class Compute:
    """Run CPU-bound functions in bounded worker processes; the event loop only awaits them.

    The pool starts on first use, so a client that never parses a page never forks. `run` is
    safe to call from many tasks at once: extra work queues in the pool.

    On a host with two cores or more, one of the workers is prompt: it runs at the serving
    process's own priority and takes a task whenever it is free, the others at `niceness`.
    One task at a time takes one core and leaves the serving process the rest, so it has
    nothing to yield to, while at nice 10 it lost to every other busy process of its session
    (bench/fetch_one.py: 158-193 ms a page against 95-105 at nice 0 on a loaded host, the same
    CPU). When more tasks run than that, the nice workers take them and answering goes first
    on the cores they share with the serving process.
    """

    def __init__(
        self, *, workers: int, limits: ComputeLimits, niceness: int = WORKER_NICENESS
    ) -> None:
        if workers < 1:
            raise ValueError("workers must be 1 or more")
        self.workers = workers
        self.limits = limits
        self.niceness = niceness
        prompt = 1 if niceness > 0 and default_workers() >= 2 else 0
        # (niceness, workers) of each pool: the prompt worker's, then the nice workers'
        self._sizes = [(0, prompt), (niceness, workers - prompt)]
        self._pools: list[ProcessPool | None] = [None, None]
        self._prompt_busy = False
        self._lock = threading.Lock()

    def _ensure_pool(self, which: int) -> ProcessPool:
        with self._lock:
            pool = self._pools[which]
            if pool is None or not pool.active:
                niceness, workers = self._sizes[which]
                context = multiprocessing.get_context("forkserver")
                context.set_forkserver_preload([NO_MAIN, *PRELOAD, WARMUP])
                pool = ProcessPool(
                    max_workers=workers,
                    max_tasks=TASKS_PER_WORKER,
                    initializer=init_worker,
                    initargs=[self.limits.memory_mb, niceness],
                    context=context,
                )
                # pebble forks its workers on the first schedule: do it here, off the loop
                pool.schedule(_ready).result()
                self._pools[which] = pool
            return pool

    @property
    def started(self) -> bool:
        """Whether a worker pool is running (started by `start` or by a first task)."""
        return any(pool is not None and pool.active for pool in self._pools)

    def start(self) -> None:
        """Start the worker a page goes to first, now: a server calls this in a thread at
        start-up, so its first page does not wait for the forkserver's imports and warm-up
        (about a second of CPU) while that work competes with answering other requests."""
        self._ensure_pool(self._pick())

    def _pick(self) -> int:
        """The prompt worker when it is free (or there is no other), else the nice workers."""
        prompt, nice = self._sizes[0][1], self._sizes[1][1]
        if prompt and (not self._prompt_busy or not nice):
            return 0
        return 1

    async def run(self, function: Callable[..., T], *args: Any, what: str = "the task") -> T:
        """`function(*args)` in a worker; `TooComplex` when it runs past a limit.

        `function` must be importable by name (module level, outside the main module, which
        the workers do not run: compute_nomain.py) and its arguments picklable.
        `what` names the work in the error message ("the page at …").
        """
        forked = oneshot.claim(self.limits.memory_mb)  # a one-shot CLI command's own worker
        if forked is not None:
            limits = self.limits
            status, value = await forked.run(
                limits.cpu_seconds, limits.wall_seconds(oneshot.ONESHOT_NICENESS), function, args
            )
            return self._outcome(status, value, what)  # type: ignore[no-any-return]
        which = self._pick()
        wall = self.limits.wall_seconds(self._sizes[which][0])
        claimed = which == 0 and not self._prompt_busy
        if claimed:
            self._prompt_busy = True
        try:
            # starting the pool waits for the forkserver to import the extraction modules:
            # seconds that must not be spent on the event loop
            pool = self._pools[which]
            if pool is None or not pool.active:
                pool = await asyncio.to_thread(self._ensure_pool, which)
            future = pool.schedule(
                run_task, args=[self.limits.cpu_seconds, function, args], timeout=wall
            )
            try:
                status, value = await asyncio.wrap_future(future)
            except FutureTimeout:
                raise self._too_complex(what, "time", wall) from None
            except ProcessExpired as exc:
                raise self._expired(what, exc.exitcode) from None
            except CancelledError:  # the pool was closed under us
                raise asyncio.CancelledError from None
        finally:
            if claimed:
                self._prompt_busy = False
        return self._outcome(status, value, what)  # type: ignore[no-any-return]

    def _outcome(self, status: str, value: Any, what: str) -> Any:
        """A worker's answer (`run_task`'s, or a one-shot worker's time-out or death) as the
        function's value or the error it stands for."""
        if status == "time":  # only the one-shot worker's own backstop answers so
            raise self._too_complex(
                what, "time", self.limits.wall_seconds(oneshot.ONESHOT_NICENESS)
            )
        if status == "expired":
            raise self._expired(what, value)
        if status == "ok":
            return value
        if status == "error":
            raise error_from_dict(value)
        if status == "memory":
            raise self._too_complex(what, "memory", self.limits.memory_mb)
        raise self._too_complex(what, "depth", None)

    def _expired(self, what: str, exitcode: int | None) -> TooComplex:
        if exitcode == -signal.SIGXCPU:
            return self._too_complex(what, "cpu", self.limits.cpu_seconds)
        # a worker that died otherwise hit the address-space cap inside C code (an abort on a
        # failed allocation) or was killed by the kernel's out-of-memory killer
        return self._too_complex(what, "memory", self.limits.memory_mb, exitcode=exitcode)

    def _too_complex(
        self, what: str, limit: str, value: float | None, *, exitcode: int | None = None
    ) -> TooComplex:
        units = {"cpu": "CPU seconds", "time": "seconds", "memory": "MB"}
        if limit == "depth":
            message = f"{what} is nested too deeply to read"
        else:
            message = f"{what} needs more than the {value:g} {units[limit]} a page may use"
        details: dict[str, Any] = {"limit": limit}
        if value is not None:
            details["value"] = value
        if exitcode is not None:
            details["exitcode"] = exitcode
        return TooComplex(message, details=details)

    def close(self) -> None:
        """Stop the workers (running tasks are ended); the next `run` starts a new pool."""
        with self._lock:
            pools, self._pools = self._pools, [None, None]
        for pool in pools:
            if pool is not None:
                pool.stop()  # type: ignore[no-untyped-call]
                pool.join(timeout=5)
