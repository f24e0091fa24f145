"""Hostile bodies of the offline web: slow drips, stalls, huge bodies and compression bombs.

Every stream is produced on the fly, chunk by chunk, so the session starts instantly and a
bomb costs the server only what the client actually reads. Each generator watches the site's
`stopping` event, so no response outlives the server (no hung threads at exit).
"""

from __future__ import annotations

import threading
import zlib
from collections.abc import AsyncIterator, Callable

import anyio
import anyio.lowlevel
import brotli
import zstandard

__all__ = [
    "BOMB_SIZE",
    "compress_gzip",
    "stream_bomb",
    "stream_drip",
    "stream_filler",
    "stream_stall",
]

MiB = 1024 * 1024
BOMB_SIZE = 10 * 1024 * MiB  # what a bomb inflates to: 10 GiB of zeros
_ZEROS = bytes(MiB)


async def stream_drip(
    stopping: threading.Event, *, interval: float = 0.5, duration: float = 60.0
) -> AsyncIterator[bytes]:
    """One byte every `interval` seconds: never idle long enough for a read timeout."""
    yield b"<html><body><p>"
    for _ in range(int(duration / interval)):
        if stopping.is_set():
            return
        await anyio.sleep(interval)
        yield b"."
    yield b"</p></body></html>"


async def stream_stall(
    stopping: threading.Event, *, duration: float = 60.0
) -> AsyncIterator[bytes]:
    """Headers are sent, then nothing at all for `duration` seconds."""
    waited = 0.0
    while waited < duration and not stopping.is_set():
        await anyio.sleep(0.1)
        waited += 0.1
    yield b"<html><body><p>finally</p></body></html>"


async def stream_filler(
    stopping: threading.Event, *, size: int, chunk: int = 64 * 1024
) -> AsyncIterator[bytes]:
    """`size` bytes of HTML paragraphs, sent in `chunk`-sized pieces."""
    piece = (b"<p>" + b"Filler text for a very large page. " * 40 + b"</p>\n") * 64
    block = (piece * (chunk // len(piece) + 1))[:chunk]
    sent = 0
    while sent < size and not stopping.is_set():
        part = block[: min(chunk, size - sent)]
        sent += len(part)
        yield part
        await anyio.lowlevel.checkpoint()


def _gzip_compressor() -> Callable[[bytes | None], bytes]:
    compressor = zlib.compressobj(9, zlib.DEFLATED, 31)  # 31: gzip header and trailer

    def step(data: bytes | None) -> bytes:
        if data is None:
            return compressor.flush(zlib.Z_FINISH)
        return compressor.compress(data) + compressor.flush(zlib.Z_SYNC_FLUSH)

    return step


def _brotli_compressor() -> Callable[[bytes | None], bytes]:
    compressor = brotli.Compressor(quality=5)

    def step(data: bytes | None) -> bytes:
        if data is None:
            return bytes(compressor.finish())
        return bytes(compressor.process(data)) + bytes(compressor.flush())

    return step


def _zstd_compressor() -> Callable[[bytes | None], bytes]:
    compressor = zstandard.ZstdCompressor(level=3).compressobj()

    def step(data: bytes | None) -> bytes:
        if data is None:
            return bytes(compressor.flush(zstandard.COMPRESSOBJ_FLUSH_FINISH))
        out = compressor.compress(data)
        return bytes(out) + bytes(compressor.flush(zstandard.COMPRESSOBJ_FLUSH_BLOCK))

    return step


_COMPRESSORS: dict[str, Callable[[], Callable[[bytes | None], bytes]]] = {
    "gzip": _gzip_compressor,
    "br": _brotli_compressor,
    "zstd": _zstd_compressor,
}


async def stream_bomb(
    stopping: threading.Event, *, encoding: str, size: int = BOMB_SIZE
) -> AsyncIterator[bytes]:
    """`size` bytes of zeros compressed with `encoding` (gzip, br or zstd), made as it is read.

    A MiB of zeros shrinks to about a kilobyte, so the whole 10 GiB bomb is ~10 MB on the wire
    and a client that stops reading costs the server nothing more.
    """
    step = _COMPRESSORS[encoding]()
    made = 0
    while made < size:
        if stopping.is_set():
            return
        part = _ZEROS[: min(MiB, size - made)]
        made += len(part)
        yield step(part)
        await anyio.lowlevel.checkpoint()
    yield step(None)


def compress_gzip(data: bytes) -> bytes:
    """A complete gzip member (for the well-behaved /gzip-ok page)."""
    compressor = zlib.compressobj(6, zlib.DEFLATED, 31)
    return compressor.compress(data) + compressor.flush()
