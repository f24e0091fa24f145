"""Imported first by the compute pool's forkserver (`compute.PRELOAD`): its workers never run
the main module of the process that started the pool.

multiprocessing prepares every process it starts by running the parent's main module again
(`multiprocessing.spawn.prepare`: the script by its path, or the `-m` module by its name), so
that functions defined there can be unpickled. The pool's workers run only netsift's own
functions, named by module (`compute.Compute.run`), so that run is pure cost, in every worker
the pool starts or replaces: for `netsift serve` the CLI's imports (typer, click: ~3 MiB a
worker), for a program that embeds the Client its whole main module (~14 MiB a worker for
bench/render.py's, bench/README.md), and that module's top-level code, which in a script
without an `if __name__ == "__main__":` guard starts the pool again inside each worker, and
every worker dies ("All workers expired").

Python skips the run when the forkserver has imported the main module itself ("__main__" in
the preload list), but 3.11's forkserver is never given the main's path (it keeps a
`main_path` key of the preparation data, which names it `init_main_from_path`), and that
import would still cost the forkserver what it imports. So, in the forkserver only, before it
forks a worker, the two steps that run the main module do nothing. The forkserver is netsift's:
`compute` sets its preload list, which is process-wide already.
"""

from __future__ import annotations

from multiprocessing import spawn


def _keep_main(_main: str) -> None:
    """A worker keeps the forkserver's `__main__` (the forkserver's own `-c` command)."""


def skip_main_module() -> None:
    """Turn the re-run of the parent's main module off in this process and what it forks."""
    for step in ("_fixup_main_from_path", "_fixup_main_from_name"):
        if hasattr(spawn, step):  # private steps: a Python without them keeps its behaviour
            setattr(spawn, step, _keep_main)


skip_main_module()
