"""`netsift worker`: a process that only runs jobs (research, and every other job kind).

Run as many as you like beside `netsift serve --no-worker` replicas; they share the job
store (Redis when scaled out). SIGTERM or SIGINT stops claiming, hands the running jobs back
to the queue with their checkpoints and exits within NETSIFT_JOB_STOP_TIMEOUT seconds.
"""

from __future__ import annotations

import signal
import sys
from typing import Annotated

import anyio
import typer

from .boundary import build_settings, run

__all__ = ["worker"]


def worker(
    concurrency: Annotated[
        int | None,
        typer.Option(help="Jobs run at once (NETSIFT_WORKER_CONCURRENCY).", min=1, max=256),
    ] = None,
) -> None:
    """Run jobs from the shared job store until stopped (SIGTERM hands them back)."""
    from ..client import Client

    settings = build_settings(worker_concurrency=concurrency)

    async def work() -> None:
        async with Client(settings) as client:
            running = client.worker()
            sys.stderr.write(f"netsift worker {running.id} started\n")

            async def on_signals() -> None:
                with anyio.open_signal_receiver(signal.SIGTERM, signal.SIGINT) as signals:
                    async for _ in signals:
                        running.stop()
                        return

            async with anyio.create_task_group() as group:
                group.start_soon(on_signals)
                await running.run()
                group.cancel_scope.cancel()

    run(work, as_json=False)
