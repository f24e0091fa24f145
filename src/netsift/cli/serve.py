"""`netsift serve`: the HTTP API under uvicorn, safe by default.

It binds the loopback unless told otherwise, and refuses (exit 5) to serve any other address
without `NETSIFT_API_KEYS` or an explicit `--insecure-no-auth`. `--firecrawl-port` opens a
second listener where Firecrawl's clients find its API at the root. With several workers, their
metrics are summed through a shared multiprocess directory, removed when the server stops.
"""

from __future__ import annotations

import importlib
import os
from typing import Annotated

import typer

from ..errors import InvalidInput
from .boundary import build_settings, check_port_free, fail, guarded

__all__ = ["LOG_LEVELS", "serve"]

LOG_LEVELS = ("critical", "error", "warning", "info", "debug", "trace")  # uvicorn's


def serve(
    host: Annotated[str, typer.Option(help="Address to bind (loopback by default).")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port to bind.", min=0, max=65535)] = 8080,
    workers: Annotated[int, typer.Option(help="Worker processes.", min=1, max=64)] = 1,
    insecure_no_auth: Annotated[
        bool,
        typer.Option(
            "--insecure-no-auth",
            help="Serve a non-loopback address without API keys (something else must guard it).",
        ),
    ] = False,
    log_level: Annotated[str, typer.Option(help="uvicorn log level.")] = "info",
    firecrawl_port: Annotated[
        int | None,
        typer.Option(
            help="Also serve Firecrawl's API (v1 and v2) at the root of this port, e.g. 3002 "
            "[env: NETSIFT_FIRECRAWL_PORT].",
            min=1,
            max=65535,
        ),
    ] = None,
    no_worker: Annotated[
        bool,
        typer.Option("--no-worker", help="Only enqueue jobs; `netsift worker` processes run them."),
    ] = False,
) -> None:
    """Serve the HTTP API (REST, SSE, WebSocket, OpenAPI at /docs) and the web page."""
    if log_level.lower() not in LOG_LEVELS:
        fail(
            InvalidInput(f"--log-level must be one of {', '.join(LOG_LEVELS)}, not {log_level!r}"),
            as_json=False,
        )
    settings = build_settings()
    with guarded(as_json=False):
        from ..server.auth import check_bind
        from ..server.serve import run

        for module in ("fastapi", "uvicorn"):  # fail now, with the extra to install
            importlib.import_module(module)
        check_bind(host, api_keys=settings.api_keys, insecure_no_auth=insecure_no_auth)
        check_port_free(host, port)
        firecrawl_port = firecrawl_port or settings.firecrawl_port
        if firecrawl_port is not None:
            if firecrawl_port == port:
                raise InvalidInput(
                    f"--firecrawl-port must differ from --port ({port}): the Firecrawl "
                    "listener serves Firecrawl's API at its root, the main port netsift's",
                    details={"key": "--firecrawl-port"},
                )
            check_port_free(host, firecrawl_port, option="--firecrawl-port")
        if no_worker:  # read by every uvicorn worker's Settings
            os.environ["NETSIFT_RUN_JOBS"] = "false"
        run(
            host=host,
            port=port,
            workers=workers,
            log_level=log_level.lower(),
            stop_timeout=settings.job_stop_timeout,
            firecrawl_port=firecrawl_port,
        )
