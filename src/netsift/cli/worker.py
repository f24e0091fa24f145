"""`netsift worker`: a process that only runs jobs (research, and every other job kind).

Run as many as you like beside `netsift serve --no-worker` replicas; they share the job
store (Redis when scaled out). SIGTERM or SIGINT stops claiming, hands the running jobs back
to the queue with their checkpoints and exits within NETSIFT_JOB_STOP_TIMEOUT seconds.

With `--metrics-port`, the worker serves its own Prometheus `/metrics` (jobs by outcome and
duration, usage per client): one scrape target per process, the way Prometheus finds pods
and processes, rather than counts pushed into the shared store for the API to sum.
"""

from __future__ import annotations

import logging
import signal
import sys
from typing import Annotated

import anyio
import typer

from .boundary import build_settings, check_port_free, guarded, run

__all__ = ["worker"]


def worker(
    concurrency: Annotated[
        int | None,
        typer.Option(help="Jobs run at once (NETSIFT_WORKER_CONCURRENCY).", min=1, max=256),
    ] = None,
    log_level: Annotated[str, typer.Option(help="Log level (jobs claimed, handed back).")] = "info",
    metrics_port: Annotated[
        int | None,
        typer.Option(
            help="Serve Prometheus metrics on this port (NETSIFT_WORKER_METRICS_PORT).",
            envvar="NETSIFT_WORKER_METRICS_PORT",
            min=1,
            max=65535,
        ),
    ] = None,
    metrics_host: Annotated[
        str,
        typer.Option(
            help="Address the metrics listen on (loopback by default; they carry no auth).",
            envvar="NETSIFT_WORKER_METRICS_HOST",
        ),
    ] = "127.0.0.1",
) -> None:
    """Run jobs from the shared job store until stopped (SIGTERM hands them back)."""
    from ..client import Client

    logging.basicConfig(level=log_level.upper(), format="%(asctime)s %(levelname)s %(message)s")

    settings = build_settings(worker_concurrency=concurrency)
    if metrics_port is not None:  # a busy port is said in one line before the worker starts
        with guarded(as_json=False):
            check_port_free(metrics_host, metrics_port)

    async def work() -> None:
        from ..server.limits import ClientLimits
        from ..server.metrics import Metrics

        limits = ClientLimits.from_settings(settings)
        async with Client(settings) as client:
            # The same limits as the API: a job's searches take from its client's quota
            # (shared through Redis) and stop at the per-request cap.
            client.billing.quota = limits.spend_searches
            client.billing.search_cap = settings.max_searches_per_request
            exporter = None
            if metrics_port is not None:
                metrics = Metrics()
                client.billing.observers.append(metrics.observe_usage)
                client.observe_jobs(metrics.observe_job)
                exporter = metrics.serve_http(metrics_host, metrics_port)
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
            if exporter is not None:
                exporter.shutdown()
        await limits.aclose()

    run(work, as_json=False)
