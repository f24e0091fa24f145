"""Run the API under uvicorn, with N workers summing their metrics in a directory of their own.

`netsift serve` calls `run()`, on one port, or two with the Firecrawl listener (both sockets
bound here, then served by every worker). With more than one worker, prometheus_client's
multiprocess mode needs a directory every worker writes its counters to
(`PROMETHEUS_MULTIPROC_DIR`);
`run()` makes a fresh one before the workers start and removes it when uvicorn returns, which
it does on SIGINT and SIGTERM alike (and on a failed start), so stopped servers leave nothing
in the temp dir. A directory the operator set is theirs: used, never removed.
"""

from __future__ import annotations

import contextlib
import logging
import os
import socket
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

__all__ = ["METRICS_DIR_PREFIX", "metrics_dir", "run"]

log = logging.getLogger("uvicorn.error")  # beside uvicorn's own "running on" line

APP = "netsift.server.app:create_app_from_env"
METRICS_DIR_PREFIX = "netsift-metrics-"
MULTIPROC_ENV = "PROMETHEUS_MULTIPROC_DIR"
FIRECRAWL_PORT_ENV = "NETSIFT_FIRECRAWL_PORT"


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
    *,
    host: str,
    port: int,
    workers: int,
    log_level: str,
    stop_timeout: float | None = None,
    firecrawl_port: int | None = None,
) -> None:
    """Serve `create_app_from_env()` until uvicorn is told to stop; with `firecrawl_port`, on
    that port too, where every path is Firecrawl's API (the app reads the port from
    NETSIFT_FIRECRAWL_PORT). Both listeners feed the same app in each worker: one Client, one
    set of keys, limits and metrics."""
    import uvicorn
    from uvicorn.config import STARTUP_FAILURE
    from uvicorn.supervisors import Multiprocess

    options: dict[str, Any] = {
        "factory": True,
        "host": host,
        "port": port,
        "workers": workers,
        "log_level": log_level,
        "access_log": False,
        "server_header": False,
        "proxy_headers": False,  # TrustedProxies reads X-Forwarded-For, from listed proxies only
        # SIGTERM: open streams get this long, then the jobs running here go back
        # to the queue (the lifespan's worker stop), so a stop is bounded.
        "timeout_graceful_shutdown": None if stop_timeout is None else round(stop_timeout),
    }
    with metrics_dir(workers):
        if firecrawl_port is None:
            uvicorn.run(APP, **options)
            return
        os.environ[FIRECRAWL_PORT_ENV] = str(firecrawl_port)  # read by every worker's Settings
        config = uvicorn.Config(APP, **options)
        sockets = [config.bind_socket(), _listen(host, firecrawl_port)]
        try:
            if workers > 1:
                Multiprocess(config, sockets=sockets).run()
            else:
                server = uvicorn.Server(config)
                with contextlib.suppress(KeyboardInterrupt):
                    server.run(sockets=sockets)
                if not server.started:
                    sys.exit(STARTUP_FAILURE)
        finally:
            for sock in sockets:
                sock.close()


def _listen(host: str, port: int) -> socket.socket:
    """The Firecrawl listener's socket, bound before the workers start (they inherit it)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    sock.set_inheritable(True)
    shown = f"[{host}]" if family == socket.AF_INET6 else host
    log.info("Firecrawl-compatible API on http://%s:%d (v1 and v2 at the root)", shown, port)
    return sock
