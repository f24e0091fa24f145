"""One-shot compute: the extraction worker of a single CLI command, forked before any thread.

`netsift fetch URL` reads one page and exits. Through the compute pool it would pay for two
more interpreters' start-up than trafilatura's CLI does: the forkserver (a fresh Python that
imports pydantic, the models and the readers) and the worker forked from it. An agent harness
pays that on every tool call.

Running the extraction in the CLI process itself would break the promise a pool worker keeps
(a hostile page ends within its budget as `too_complex`, never a hang): RLIMIT_CPU and
RLIMIT_AS on the CLI process would kill the very process that must report the breach, and
SIGXCPU ends a process even inside lxml's C code, where no Python handler runs.

So a one-shot command forks its worker from itself, at once, before the event loop or any
thread exists: a fork is only safe in a single-threaded process (a lock another thread held
would stay locked in the child forever). The child shares the CLI's imported modules (a fork
copies nothing until written), imports the readers while the parent downloads, and runs each
task under the pool workers' own limits (`task_limits.init_worker`, `task_limits.run_task`); the
parent turns the result, a time-out or the child's death into the same errors the pool does.
After a task has killed the worker, the command's later tasks go to the ordinary pool. The
long-running doors (serve, mcp, worker) never fork one: their workers come from the forkserver.
"""

from __future__ import annotations

import asyncio
import gc
import importlib
import multiprocessing
import threading
from collections.abc import Callable
from multiprocessing.connection import Connection
from typing import Any

__all__ = ["ForkedWorker", "claim", "fork_worker"]

_worker: ForkedWorker | None = None


def fork_worker(memory_mb: int, preload: list[str]) -> None:
    """Fork this process's one-shot worker now; nothing happens once a thread has started
    (the command then uses the pool). For a CLI command that runs one task and exits."""
    global _worker
    if _worker is None and threading.active_count() == 1:
        # what exists now lives as long as the command: the collector of neither process need
        # walk it again, and the child's would write to every page it shares with the parent
        gc.freeze()
        _worker = ForkedWorker(memory_mb, preload)


# The forked worker keeps its parent's priority: the command serves nobody but its caller, so
# there is no request handling for the worker to yield to (the pool's workers run nicer).
ONESHOT_NICENESS = 0


def claim(memory_mb: int) -> ForkedWorker | None:
    """The forked worker, while it lives and was capped at the memory a task of the caller's
    may use; None sends the caller to its pool."""
    if _worker is not None and _worker.memory_mb == memory_mb and _worker.alive:
        return _worker
    return None


def _serve(tasks: Connection, parent_end: Connection, memory_mb: int, preload: list[str]) -> None:
    """In the child: cap memory, warm the readers, then run tasks until the parent hangs up."""
    from .task_limits import init_worker, run_task

    parent_end.close()  # else the parent's exit would never reach us as end-of-file
    init_worker(memory_mb, ONESHOT_NICENESS)
    for name in preload:
        importlib.import_module(name)
    while True:
        try:
            cpu_seconds, function, args = tasks.recv()
        except EOFError:
            return
        tasks.send(run_task(cpu_seconds, function, args))


class ForkedWorker:
    """One worker process forked from this (single-threaded) process, run one task at a time."""

    def __init__(self, memory_mb: int, preload: list[str]) -> None:
        if threading.active_count() != 1:
            raise RuntimeError("a worker may only be forked before any thread starts")
        context = multiprocessing.get_context("fork")
        self.memory_mb = memory_mb
        self._tasks, child_end = context.Pipe()
        # daemonic: the interpreter's exit stops it, whatever the command was doing
        self._process = context.Process(
            target=_serve,
            args=(child_end, self._tasks, memory_mb, preload),
            name="netsift-extract",
            daemon=True,
        )
        self._process.start()
        child_end.close()
        self._lock = asyncio.Lock()

    @property
    def alive(self) -> bool:
        return not self._tasks.closed and self._process.is_alive()

    async def run(
        self, cpu_seconds: int, wall_seconds: float, function: Callable[..., Any], args: Any
    ) -> tuple[str, Any]:
        """Run `function(*args)` in the worker: `run_task`'s ("ok" | "error" | "memory" |
        "recursion", value), ("time", None) past `wall_seconds`, or ("expired", exit code) when
        the worker died. The loop waits on the pipe itself: a thread blocked on it would hold
        the interpreter's exit (Ctrl-C) until the wall-clock backstop."""
        async with self._lock:
            loop = asyncio.get_running_loop()
            answered = asyncio.Event()
            try:
                self._tasks.send((cpu_seconds, function, args))
                loop.add_reader(self._tasks.fileno(), answered.set)
                try:
                    await asyncio.wait_for(answered.wait(), wall_seconds)
                finally:
                    loop.remove_reader(self._tasks.fileno())
                return self._tasks.recv()  # type: ignore[no-any-return]
            except TimeoutError:
                self._stop()
                return ("time", None)
            except (EOFError, OSError):  # it died: SIGXCPU, the memory cap, the OOM killer
                self._stop()
                return ("expired", self._process.exitcode)
            except BaseException:  # cancelled (Ctrl-C): the task is abandoned with its worker
                self._stop()
                raise

    def _stop(self) -> None:
        self._tasks.close()
        if self._process.is_alive():
            self._process.kill()
        self._process.join()
