"""Small servers for the net layer's tests: a target site, a canary and hostile resolvers.

`site_app` serves what the HttpClient must cope with (redirects, bombs made on the fly, slow
bodies, statuses with Retry-After) and counts requests per path. `Canary` is a bare TCP
listener that records whether anything connected at all — the proof that a refused request
sent nothing. The resolvers are ordinary `Resolver`s handed in through the constructor.
"""

from __future__ import annotations

import ipaddress
import socket
import threading
import zlib
from collections import Counter
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import contextmanager

import anyio
import anyio.lowlevel
import brotli
import zstandard
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import (
    JSONResponse,
    PlainTextResponse,
    RedirectResponse,
    Response,
    StreamingResponse,
)
from starlette.routing import Route

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

MiB = 1024 * 1024
BOMB_GIB = 4  # what a bomb inflates to
FLUSH_EVERY = 64  # MiB of zeros per flushed block: ~64 MiB per ~100 bytes of brotli


class SiteState:
    def __init__(self) -> None:
        self.hits: Counter[str] = Counter()
        self.robots: tuple[int, str] = (200, "User-agent: *\nAllow: /\n")
        self.stopping = threading.Event()
        self.lock = threading.Lock()

    def hit(self, path: str) -> int:
        with self.lock:
            self.hits[path] += 1
            return self.hits[path]

    def reset(self) -> None:
        with self.lock:
            self.hits.clear()
        self.robots = (200, "User-agent: *\nAllow: /\n")


def _compressor(encoding: str) -> Callable[[bytes | None], bytes]:
    """compress(data) → bytes so far; compress(None) flushes a block."""
    if encoding in ("gzip", "deflate"):
        wbits = 31 if encoding == "gzip" else 15
        deflater = zlib.compressobj(6, zlib.DEFLATED, wbits)
        return lambda data: (
            deflater.flush(zlib.Z_SYNC_FLUSH) if data is None else deflater.compress(data)
        )
    if encoding == "br":
        brotli_compressor = brotli.Compressor(quality=5)
        return lambda data: bytes(
            brotli_compressor.flush() if data is None else brotli_compressor.process(data)
        )
    zstd = zstandard.ZstdCompressor(level=3).compressobj()
    return lambda data: bytes(
        zstd.flush(zstandard.COMPRESSOBJ_FLUSH_BLOCK) if data is None else zstd.compress(data)
    )


async def _bomb(encoding: str, stopping: threading.Event) -> AsyncIterator[bytes]:
    compress = _compressor(encoding)
    zeros = bytes(MiB)
    for n in range(1, BOMB_GIB * 1024 + 1):
        if stopping.is_set():
            return
        out = compress(zeros)
        if n % FLUSH_EVERY == 0:
            out += compress(None)
        if out:
            yield out
        await anyio.lowlevel.checkpoint()


async def _drip(stopping: threading.Event, interval: float) -> AsyncIterator[bytes]:
    yield b"<p>"
    while not stopping.is_set():
        await anyio.sleep(interval)
        yield b"."


async def _stall(stopping: threading.Event) -> AsyncIterator[bytes]:
    for _ in range(600):
        if stopping.is_set():
            return
        await anyio.sleep(0.1)
    yield b"late"


async def _filler(size: int) -> AsyncIterator[bytes]:
    block = b"<p>filler</p>\n" * 4681  # ~64 KiB
    sent = 0
    while sent < size:
        yield block
        sent += len(block)
        await anyio.lowlevel.checkpoint()


def site_app(state: SiteState) -> Starlette:
    async def echo(request: Request) -> Response:
        state.hit(request.url.path)
        body = await request.body()
        return JSONResponse(
            {
                "method": request.method,
                "path": request.url.path,
                "headers": {k.lower(): v for k, v in request.headers.items()},
                "body": body.decode(errors="replace"),
            }
        )

    async def redirect(request: Request) -> Response:
        state.hit(request.url.path)
        status = int(request.query_params.get("status", "302"))
        return RedirectResponse(request.query_params["to"], status_code=status)

    async def hop(request: Request) -> Response:
        n = int(request.path_params["n"])
        state.hit(request.url.path)
        if n <= 0:
            return PlainTextResponse("Arrived")
        return RedirectResponse(f"/hop/{n - 1}", status_code=302)

    async def loop(request: Request) -> Response:
        state.hit(request.url.path)
        other = "/loop-b" if request.url.path == "/loop-a" else "/loop-a"
        return RedirectResponse(other, status_code=302)

    async def relative(request: Request) -> Response:
        state.hit(request.url.path)
        return Response(status_code=301, headers={"Location": "../echo"})

    async def bomb(request: Request) -> Response:
        state.hit(request.url.path)
        encoding = request.path_params["encoding"]
        return StreamingResponse(
            _bomb(encoding, state.stopping),
            media_type="text/html",
            headers={"Content-Encoding": encoding},
        )

    async def gzip_ok(request: Request) -> Response:
        state.hit(request.url.path)
        body = zlib.compress(b"<h1>fine</h1>" * 100, wbits=31)
        return Response(body, media_type="text/html", headers={"Content-Encoding": "gzip"})

    async def broken_gzip(request: Request) -> Response:
        state.hit(request.url.path)
        return Response(b"\xff" * 100, media_type="text/html", headers={"Content-Encoding": "gzip"})

    async def huge(request: Request) -> Response:
        state.hit(request.url.path)
        return StreamingResponse(_filler(20 * MiB), media_type="text/html")

    async def declared(request: Request) -> Response:
        state.hit(request.url.path)
        return StreamingResponse(
            _filler(50 * MiB), media_type="text/html", headers={"Content-Length": str(50 * MiB)}
        )

    async def drip(request: Request) -> Response:
        state.hit(request.url.path)
        interval = float(request.query_params.get("interval", "0.2"))
        return StreamingResponse(_drip(state.stopping, interval), media_type="text/html")

    async def stall(request: Request) -> Response:
        state.hit(request.url.path)
        return StreamingResponse(_stall(state.stopping), media_type="text/html")

    async def status(request: Request) -> Response:
        count = state.hit(request.url.path)
        code = int(request.path_params["code"])
        ok_after = int(request.query_params.get("ok_after", "-1"))
        if 0 <= ok_after < count:
            return PlainTextResponse("recovered")
        headers = {}
        if "retry_after" in request.query_params:
            headers["Retry-After"] = request.query_params["retry_after"]
        return PlainTextResponse(f"status {code}", status_code=code, headers=headers)

    async def robots(request: Request) -> Response:
        state.hit(request.url.path)
        code, body = state.robots
        if 300 <= code < 400:
            return RedirectResponse(body, status_code=code)
        return PlainTextResponse(body, status_code=code)

    async def chat(request: Request) -> Response:
        state.hit(request.url.path)
        payload = await request.json()
        return JSONResponse(
            {
                "id": "chatcmpl-1",
                "object": "chat.completion",
                "created": 0,
                "model": payload["model"],
                "choices": [
                    {
                        "index": 0,
                        "finish_reason": "stop",
                        "message": {"role": "assistant", "content": "pong"},
                    }
                ],
                "usage": {"prompt_tokens": 3, "completion_tokens": 1, "total_tokens": 4},
            }
        )

    return Starlette(
        routes=[
            Route("/v1/chat/completions", chat, methods=["POST"]),
            Route("/echo", echo, methods=["GET", "POST", "PUT", "HEAD"]),
            Route("/deep/echo", echo, methods=["GET", "POST"]),
            Route("/redirect", redirect, methods=["GET", "POST", "PUT"]),
            Route("/hop/{n}", hop),
            Route("/loop-a", loop),
            Route("/loop-b", loop),
            Route("/deep/relative", relative),
            Route("/bomb/{encoding}", bomb),
            Route("/gzip-ok", gzip_ok),
            Route("/broken-gzip", broken_gzip),
            Route("/huge", huge),
            Route("/declared", declared),
            Route("/drip", drip),
            Route("/stall", stall),
            Route("/status/{code}", status, methods=["GET", "POST"]),
            Route("/robots.txt", robots),
        ]
    )


class Canary:
    """A TCP listener that only records connections (and never answers)."""

    def __init__(self, host: str = "127.0.0.1", port: int = 0) -> None:
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        self._sock = socket.socket(family, socket.SOCK_STREAM)
        self._sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._sock.bind((host, port))
        self._sock.listen(16)
        self._sock.settimeout(0.05)
        self.port: int = self._sock.getsockname()[1]
        self.connections = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self._sock.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            self.connections += 1
            conn.close()

    def close(self) -> None:
        self._stop.set()
        self._thread.join(timeout=2)
        self._sock.close()


@contextmanager
def canary(host: str = "127.0.0.1", port: int = 0) -> Iterator[Canary]:
    listener = Canary(host, port)
    try:
        yield listener
    finally:
        listener.close()


class SequenceResolver:
    """Answers each lookup of any name with the next list in `answers` (the last repeats).

    A rebinding DNS server in miniature: public first, private next.
    """

    def __init__(self, *answers: list[str]) -> None:
        self._answers = [[ipaddress.ip_address(a) for a in answer] for answer in answers]
        self.lookups: list[str] = []

    async def resolve(self, host: str, port: int) -> list[IPAddress]:
        index = min(len(self.lookups), len(self._answers) - 1)
        self.lookups.append(host)
        return list(self._answers[index])


def free_port(host: str = "127.0.0.1") -> int:
    """A port nothing listens on (bound, then released)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        port: int = sock.getsockname()[1]
    return port
