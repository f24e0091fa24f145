"""Run ASGI apps on 127.0.0.1:0 in a thread (httpx's `serve_in_thread` habit).

    with serve(app) as server:
        server.port, server.url("/path")

Tests never hard-code a port: the socket is bound to port 0 first and the port read from it, so
test runs on one machine never collide (only the offline tour asks for the port its docs name).
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import uvicorn

__all__ = ["LiveServer", "listen", "serve"]


class _ThreadServer(uvicorn.Server):
    """uvicorn without signal handlers (they belong to the main thread)."""

    def install_signal_handlers(self) -> None:  # older uvicorn; newer skips off the main thread
        pass


@dataclass(frozen=True)
class LiveServer:
    host: str
    port: int

    def url(self, path: str = "/", *, host: str | None = None, scheme: str = "http") -> str:
        """A URL on this server; `host` puts a test hostname (pinned to 127.0.0.1) in front."""
        return f"{scheme}://{host or self.host}:{self.port}{path}"


def listen(host: str = "127.0.0.1", port: int = 0) -> socket.socket:
    """A socket bound to `port` of `host` (0: any free one), not yet listening."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError:
        sock.close()
        raise
    return sock


@contextmanager
def serve(
    app: Any,
    *,
    host: str = "127.0.0.1",
    port: int = 0,
    also: Sequence[socket.socket] = (),
    **config: Any,
) -> Iterator[LiveServer]:
    """Serve `app` on `port` (0: any free one) until the block ends; waits until it accepts
    connections. `also`: more bound sockets (from `listen()`) the same app answers on, as a
    second listener."""
    sock = listen(host, port)
    port = sock.getsockname()[1]
    options: dict[str, Any] = {"log_level": "warning", "lifespan": "off", "access_log": False}
    options.update(config)
    server = _ThreadServer(uvicorn.Config(app, **options))
    sockets = [sock, *also]
    thread = threading.Thread(target=server.run, kwargs={"sockets": sockets}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("test server did not start")
        time.sleep(0.01)
    try:
        yield LiveServer(host=host, port=port)
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        for each in sockets:
            each.close()
