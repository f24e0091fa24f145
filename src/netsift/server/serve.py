"""Run the API under uvicorn, with N workers summing their metrics in a directory of their own.

`netsift serve` calls `run()`. With more than one worker, prometheus_client's multiprocess
mode needs a directory every worker writes its counters to (`PROMETHEUS_MULTIPROC_DIR`);
`run()` makes a fresh one before the workers start and removes it when uvicorn returns, which
it does on SIGINT and SIGTERM alike (and on a failed start), so stopped servers leave nothing
in the temp dir. A directory the operator set is theirs: used, never removed.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["METRICS_DIR_PREFIX", "metrics_dir", "run"]

METRICS_DIR_PREFIX = "netsift-metrics-"
MULTIPROC_ENV = "PROMETHEUS_MULTIPROC_DIR"


@contextmanager
def metrics_dir(workers: int) -> Iterator[str | None]:
    """The shared metrics directory for `workers` processes while the block runs (or None)."""
    if workers <= 1 or os.environ.get(MULTIPROC_ENV):
        yield os.environ.get(MULTIPROC_ENV)
        return
    # Set before the workers start, so each one writes its counters where /metrics reads.
    with tempfile.TemporaryDirectory(prefix=METRICS_DIR_PREFIX) as directory:
        os.environ[MULTIPROC_ENV] = directory
        try:
            yield directory
        finally:
            os.environ.pop(MULTIPROC_ENV, None)


def run(
    *, host: str, port: int, workers: int, log_level: str, stop_timeout: float | None = None
) -> None:
    """Serve `create_app_from_env()` until uvicorn is told to stop."""
    import uvicorn

    with metrics_dir(workers):
        uvicorn.run(
            "netsift.server.app:create_app_from_env",
            factory=True,
            host=host,
            port=port,
            workers=workers,
            log_level=log_level,
            access_log=False,
            server_header=False,
            proxy_headers=False,  # TrustedProxies reads X-Forwarded-For, from listed proxies only
            # SIGTERM: open streams get this long, then the jobs running here go back
            # to the queue (the lifespan's worker stop), so a stop is bounded.
            timeout_graceful_shutdown=None if stop_timeout is None else round(stop_timeout),
        )
