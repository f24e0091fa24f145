"""A real forward proxy and a canary on 127.0.0.1, for the tests of proxied requests.

    with run_proxy(names={"rebind.test": "127.0.0.1"}, routes={...}) as proxy:
        ... netsift with http_proxy=proxy.url ...
        assert proxy.asked == [...] and canary.connections == 0

`ForwardProxy` speaks both proxy forms: absolute-form requests (`GET http://host:port/path`,
forwarded to the origin) and `CONNECT host:port` (a byte tunnel). It resolves names through
the test's own table (`names`), not netsift's, so a name can rebind: netsift's pins answer a
public address, the proxy's table 127.0.0.1. Addresses stand for a network: `routes` maps a
public `(address, port)` to the local server playing it; an address with no route is
unreachable (502 with an RFC 9209 `Proxy-Status` error), except loopback, which the proxy
reaches as a real one would. `names_only=True` makes it a proxy whose policy refuses
addresses (403, `Proxy-Status: ...; error=destination_ip_prohibited`), and
`require_auth=("user", "password")` one that wants Basic credentials (407).

`Canary` counts every TCP connection it is sent and answers each with a short 200: a test
asserts that it counted none. Both run an asyncio loop in a thread; ports are the kernel's.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import ipaddress
import threading
from collections.abc import Callable, Coroutine, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

__all__ = ["Asked", "Canary", "ForwardProxy", "run_canary", "run_proxy"]

_CHUNK = 64 * 1024
_PROXY_NAME = b"testproxy"

Handler = Callable[[asyncio.StreamReader, asyncio.StreamWriter], Coroutine[Any, Any, None]]


@dataclass(frozen=True)
class Asked:
    """One request the proxy was asked: its method, its target as written, its Host header."""

    method: str
    target: str
    host: str


class _LoopThread:
    """An asyncio server (127.0.0.1, a port of the kernel's by default) in a thread of its own."""

    def __init__(self, handler: Handler, host: str = "127.0.0.1", port: int = 0) -> None:
        self._handler = handler
        self._host = host
        self._port = port
        self._loop = asyncio.new_event_loop()
        self._ready = threading.Event()
        self._stop: asyncio.Event | None = None
        self._error: OSError | None = None
        self.port = 0
        self._thread = threading.Thread(target=self._loop.run_until_complete, args=(self._run(),))
        self._thread.daemon = True

    async def _run(self) -> None:
        self._stop = asyncio.Event()
        try:
            server = await asyncio.start_server(self._handler, self._host, self._port)
        except OSError as exc:
            self._error = exc
            self._ready.set()
            return
        self.port = server.sockets[0].getsockname()[1]
        self._ready.set()
        async with server:
            await self._stop.wait()
        server.close()
        pending = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
        for task in pending:  # kept-alive connections and tunnels still piping
            task.cancel()
        await asyncio.gather(*pending, return_exceptions=True)

    def __enter__(self) -> _LoopThread:
        self._thread.start()
        if not self._ready.wait(10):
            raise RuntimeError("the test server did not start")
        if self._error is not None:
            raise self._error
        return self

    def __exit__(self, *exc_info: object) -> None:
        assert self._stop is not None
        self._loop.call_soon_threadsafe(self._stop.set)
        self._thread.join(timeout=10)


@dataclass
class ForwardProxy:
    """See the module docstring. `asked` and `reached` are what the proxy saw and did."""

    names: Mapping[str, str] = field(default_factory=dict)
    routes: Mapping[tuple[str, int], tuple[str, int]] = field(default_factory=dict)
    names_only: bool = False
    require_auth: tuple[str, str] | None = None
    asked: list[Asked] = field(default_factory=list)
    reached: list[tuple[str, int]] = field(default_factory=list)
    port: int = 0

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def _where(self, host: str, port: int) -> tuple[str, int] | str:
        """Where (host, port) leads on this proxy's network, or the RFC 9209 error."""
        bare = host.strip("[]")
        try:
            address = ipaddress.ip_address(bare)
        except ValueError:
            resolved = self.names.get(bare.lower())
            if resolved is None:
                return "dns_error"
            address = ipaddress.ip_address(resolved)
        else:
            if self.names_only:
                return "destination_ip_prohibited"
        route = self.routes.get((str(address), port))
        if route is not None:
            return route
        if address.is_loopback:
            return (str(address), port)
        return "destination_unavailable"

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            head = await reader.readuntil(b"\r\n\r\n")
        except (asyncio.IncompleteReadError, asyncio.LimitOverrunError):
            writer.close()
            return
        line, *header_lines = head.decode("latin-1").split("\r\n")
        method, target, _ = line.split(" ", 2)
        headers = [h.split(":", 1) for h in header_lines if ":" in h]
        host_header = next((v.strip() for k, v in headers if k.lower() == "host"), "")
        self.asked.append(Asked(method, target, host_header))
        if self.require_auth is not None:
            expected = "Basic " + base64.b64encode(":".join(self.require_auth).encode()).decode()
            given = next((v.strip() for k, v in headers if k.lower() == "proxy-authorization"), "")
            if given != expected:
                await _answer(writer, 407, "Proxy Authentication Required", "http_request_denied")
                return
        if method == "CONNECT":
            host, _, port = target.rpartition(":")
            where = self._where(host, int(port))
        else:
            parts = urlsplit(target)
            where = self._where(parts.hostname or "", parts.port or 80)
        if isinstance(where, str):
            status = 403 if where == "destination_ip_prohibited" else 502
            await _answer(writer, status, "Refused" if status == 403 else "Bad Gateway", where)
            return
        try:
            up_reader, up_writer = await asyncio.open_connection(*where)
        except OSError:
            await _answer(writer, 502, "Bad Gateway", "connection_refused")
            return
        self.reached.append(where)
        if method == "CONNECT":
            writer.write(b"HTTP/1.1 200 Connection established\r\n\r\n")
            await writer.drain()
        else:
            parts = urlsplit(target)
            origin_form = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
            kept = [
                f"{k}:{v}"
                for k, v in headers
                if k.lower() not in {"proxy-authorization", "proxy-connection", "connection"}
            ]
            upstream_head = "\r\n".join(
                [f"{method} {origin_form} HTTP/1.1", *kept, "Connection: close", "", ""]
            )
            up_writer.write(upstream_head.encode("latin-1"))
        await _pipe_both(reader, writer, up_reader, up_writer)


async def _answer(writer: asyncio.StreamWriter, status: int, reason: str, error: str) -> None:
    body = f"{reason}: {error}\n".encode()
    writer.write(
        b"HTTP/1.1 %d %s\r\nProxy-Status: %s; error=%s\r\nContent-Length: %d\r\n"
        b"Connection: close\r\n\r\n%s"
        % (status, reason.encode(), _PROXY_NAME, error.encode(), len(body), body)
    )
    with contextlib.suppress(OSError):
        await writer.drain()
    writer.close()


async def _pipe_both(
    reader: asyncio.StreamReader,
    writer: asyncio.StreamWriter,
    up_reader: asyncio.StreamReader,
    up_writer: asyncio.StreamWriter,
) -> None:
    async def pipe(source: asyncio.StreamReader, sink: asyncio.StreamWriter) -> None:
        with contextlib.suppress(OSError, asyncio.CancelledError):
            while chunk := await source.read(_CHUNK):
                sink.write(chunk)
                await sink.drain()
        with contextlib.suppress(OSError):
            sink.close()

    await asyncio.gather(pipe(reader, up_writer), pipe(up_reader, writer))


@contextlib.contextmanager
def run_proxy(
    *,
    names: Mapping[str, str] | None = None,
    routes: Mapping[tuple[str, int], tuple[str, int]] | None = None,
    names_only: bool = False,
    require_auth: tuple[str, str] | None = None,
) -> Iterator[ForwardProxy]:
    proxy = ForwardProxy(
        names=dict(names or {}),
        routes=dict(routes or {}),
        names_only=names_only,
        require_auth=require_auth,
    )
    with _LoopThread(proxy.handle) as thread:
        proxy.port = thread.port
        yield proxy


@dataclass
class Canary:
    """Counts every connection it is sent; answers each with `200 canary`."""

    connections: int = 0
    port: int = 0
    received: list[bytes] = field(default_factory=list)

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        with contextlib.suppress(OSError, asyncio.IncompleteReadError, asyncio.LimitOverrunError):
            self.received.append(await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 5))
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 6\r\nConnection: close\r\n\r\ncanary")
        with contextlib.suppress(OSError):
            await writer.drain()
        writer.close()


@contextlib.contextmanager
def run_canary(*, host: str = "127.0.0.1", port: int = 0) -> Iterator[Canary]:
    """A canary; `host` and `port` for one that must sit where a test name leads."""
    canary = Canary()
    with _LoopThread(canary.handle, host, port) as thread:
        canary.port = thread.port
        yield canary
