"""`netsift serve`: the HTTP API under uvicorn, safe by default.

It binds the loopback unless told otherwise, and refuses (exit 5) to serve any other address
without `NETSIFT_API_KEYS` or an explicit `--insecure-no-auth`. With several workers, their
metrics are summed through a shared multiprocess directory, removed when the server stops.
"""

from __future__ import annotations

import os
from typing import Annotated

import typer

from ..errors import NetsiftError
from .boundary import build_settings, fail

__all__ = ["serve"]


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
    no_worker: Annotated[
        bool,
        typer.Option("--no-worker", help="Only enqueue jobs; `netsift worker` processes run them."),
    ] = False,
) -> None:
    """Serve the HTTP API (REST, SSE, WebSocket, OpenAPI at /docs) and the web page."""
    from ..server.auth import check_bind

    settings = build_settings()
    try:
        check_bind(host, api_keys=settings.api_keys, insecure_no_auth=insecure_no_auth)
    except NetsiftError as error:
        fail(error, as_json=False)
    from ..server.serve import run

    if no_worker:  # read by every uvicorn worker's Settings
        os.environ["NETSIFT_RUN_JOBS"] = "false"
    run(
        host=host,
        port=port,
        workers=workers,
        log_level=log_level,
        stop_timeout=settings.job_stop_timeout,
    )
