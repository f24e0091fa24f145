"""Content-Encoding decoders whose every step has a bounded output, so bombs cost no memory.

httpx's own decoders inflate each input chunk completely: 211 bytes of brotli become
256 MiB in one call, a KiB of zstd 32 MiB. These decoders yield pieces of at most `piece`
bytes, however dense the input: zlib through `max_length` and `unconsumed_tail`, brotli
through `output_buffer_limit`, zstd (whose Python API has no output limit) by feeding it a
few bytes at a time (a zstd block inflates to at most 128 KiB and needs at least 3 bytes)
with the 8 MiB window limit of RFC 9659. The caller counts the pieces against its cap.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterator
from typing import Protocol

import brotli
import zstandard

__all__ = ["PIECE", "Decoder", "build_decoder", "decode_errors"]

PIECE = 64 * 1024
_ZSTD_FEED = 48  # bytes of zstd input per step: at most ~2 MiB of output
_ZSTD_WINDOW = 8 * 1024 * 1024


class Decoder(Protocol):
    def decode(self, data: bytes) -> Iterator[bytes]: ...
    def flush(self) -> Iterator[bytes]: ...


class _Identity:
    def decode(self, data: bytes) -> Iterator[bytes]:
        if data:
            yield data

    def flush(self) -> Iterator[bytes]:
        return iter(())


class _Zlib:
    """gzip (wbits 31) or deflate: zlib-wrapped, falling back to raw deflate as httpx does."""

    def __init__(self, wbits: int, piece: int) -> None:
        self._wbits = wbits
        self._piece = piece
        self._inflater = zlib.decompressobj(wbits)
        self._started = False

    def _step(self, data: bytes) -> bytes:
        if self._started or self._wbits != zlib.MAX_WBITS:
            return self._inflater.decompress(data, self._piece)
        self._started = True
        try:
            return self._inflater.decompress(data, self._piece)
        except zlib.error:  # no zlib header: raw deflate, as some servers send
            self._inflater = zlib.decompressobj(-zlib.MAX_WBITS)
            return self._inflater.decompress(data, self._piece)

    def decode(self, data: bytes) -> Iterator[bytes]:
        while not self._inflater.eof:  # bytes after the end of the stream are ignored
            out = self._step(data)
            if out:
                yield out
            data = self._inflater.unconsumed_tail
            if not data and len(out) < self._piece:
                return

    def flush(self) -> Iterator[bytes]:
        out = self._inflater.flush(self._piece)
        if out:
            yield out


class _Brotli:
    def __init__(self, piece: int) -> None:
        self._inflater = brotli.Decompressor()
        self._piece = piece

    def decode(self, data: bytes) -> Iterator[bytes]:
        # The limit is soft (a piece may overshoot it a little) and output can stay pending
        # even when `can_accept_more_data()` says True: drain with empty input until dry.
        out = self._inflater.process(data, output_buffer_limit=self._piece)
        while out:
            yield out
            out = self._inflater.process(b"", output_buffer_limit=self._piece)

    def flush(self) -> Iterator[bytes]:
        return iter(())


class _Zstd:
    def __init__(self) -> None:
        self._context = zstandard.ZstdDecompressor(max_window_size=_ZSTD_WINDOW)
        self._inflater = self._context.decompressobj()

    def decode(self, data: bytes) -> Iterator[bytes]:
        for start in range(0, len(data), _ZSTD_FEED):
            part = data[start : start + _ZSTD_FEED]
            while part:
                out = self._inflater.decompress(part)
                if out:
                    yield out
                part = self._inflater.unused_data if self._inflater.eof else b""
                if part:  # concatenated frames
                    self._inflater = self._context.decompressobj()

    def flush(self) -> Iterator[bytes]:
        return iter(())


class _Chain:
    """Encodings applied in order; decoding runs them in reverse, piece by piece."""

    def __init__(self, decoders: list[Decoder]) -> None:
        self._decoders = decoders

    def decode(self, data: bytes) -> Iterator[bytes]:
        return self._through(0, iter([data]))

    def flush(self) -> Iterator[bytes]:
        return self._flush(0)

    def _through(self, index: int, pieces: Iterator[bytes]) -> Iterator[bytes]:
        if index == len(self._decoders):
            yield from pieces
            return
        decoder = self._decoders[index]
        for piece in pieces:
            yield from self._through(index + 1, decoder.decode(piece))

    def _flush(self, index: int) -> Iterator[bytes]:
        if index == len(self._decoders):
            return
        yield from self._through(index + 1, self._decoders[index].flush())
        yield from self._flush(index + 1)


def _one(name: str, piece: int) -> Decoder | None:
    if name in ("gzip", "x-gzip"):
        return _Zlib(zlib.MAX_WBITS | 16, piece)
    if name == "deflate":
        return _Zlib(zlib.MAX_WBITS, piece)
    if name == "br":
        return _Brotli(piece)
    if name == "zstd":
        return _Zstd()
    return None  # identity, or an encoding we do not know: the bytes stay as they are


def build_decoder(content_encoding: str | None, *, piece: int = PIECE) -> Decoder:
    """A bounded decoder for a Content-Encoding header value (`gzip`, `br, gzip`, …)."""
    names = [n.strip().lower() for n in (content_encoding or "").split(",") if n.strip()]
    decoders = [d for d in (_one(n, piece) for n in reversed(names)) if d is not None]
    if not decoders:
        return _Identity()
    return decoders[0] if len(decoders) == 1 else _Chain(decoders)


def decode_errors() -> tuple[type[Exception], ...]:
    """The exceptions a broken body raises; the caller reports them as DecodeError."""
    return (zlib.error, brotli.error, zstandard.ZstdError)
