"""The deny-all proxy the browser is pointed at, so it has no direct network of its own.

Request interception sees requests, not sockets: Chromium still opens connections for
`<link rel=preconnect>`, its background services and anything a future version adds outside
the interception. With this sink as its proxy (loopback included, `<-loopback>`) and name
resolution switched off, every such connection lands here and is refused: the first line is
read (`CONNECT host:port` or `GET url`), written to the audit log as `blocked_direct`, and
answered 403. Nothing is ever forwarded.
"""

from __future__ import annotations

import asyncio
import contextlib

from ..net.audit import AuditLog

__all__ = ["DenyAllProxy", "request_target"]

SINK_HOST = "127.0.0.1"
# Long enough for any request line; a client that sends more is cut off, never buffered.
MAX_LINE = 8192
# A preconnect sends nothing: do not hold its socket longer than this.
READ_TIMEOUT = 2.0
_REFUSAL = b"HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"


def request_target(line: bytes) -> tuple[str, str] | None:
    """(method, URL) of a proxy request line, CONNECT's authority as an https URL; pure."""
    parts = line.decode("latin-1").split()
    if len(parts) < 2:
        return None
    method, target = parts[0].upper(), parts[1]
    if method == "CONNECT":
        return method, f"https://{target}/"
    return method, target


class DenyAllProxy:
    """Accept, record, refuse. `refused` counts connections; `start()` binds 127.0.0.1:0."""

    def __init__(self, audit: AuditLog | None) -> None:
        self._audit = audit
        self._server: asyncio.Server | None = None
        self.refused = 0
        self.port = 0
        self._handlers: set[asyncio.Task[None]] = set()

    @property
    def url(self) -> str:
        return f"http://{SINK_HOST}:{self.port}"

    async def start(self) -> None:
        self._server = await asyncio.start_server(self._refuse, SINK_HOST, 0, limit=MAX_LINE)
        self.port = self._server.sockets[0].getsockname()[1]

    async def aclose(self) -> None:
        for task in list(self._handlers):
            task.cancel()
        await asyncio.gather(*self._handlers, return_exceptions=True)
        if self._server is not None:
            self._server.close()
            with contextlib.suppress(Exception):
                await self._server.wait_closed()
            self._server = None

    async def _refuse(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.refused += 1
        task = asyncio.current_task()
        if task is not None:
            self._handlers.add(task)
            task.add_done_callback(self._handlers.discard)
        try:
            line = await asyncio.wait_for(reader.readline(), READ_TIMEOUT)
        except (TimeoutError, ValueError, OSError, asyncio.IncompleteReadError):
            line = b""
        except asyncio.CancelledError:  # the sink is closing: drop the connection
            writer.close()
            return
        target = request_target(line)
        if target is not None and self._audit is not None:
            self._audit.record(
                kind="render",
                method=target[0],
                url=target[1],
                resolved_ip=None,
                status=None,
                size=0,
                elapsed_ms=0.0,
                outcome="blocked_direct",
            )
        with contextlib.suppress(OSError):
            if line:
                writer.write(_REFUSAL)
                await writer.drain()
            writer.close()
            await writer.wait_closed()
