"""decompress.py: right answers, and bounded output per step however dense the input."""

from __future__ import annotations

import gzip
import zlib

import brotli
import pytest
import zstandard

from netsift.net.decompress import PIECE, build_decoder, decode_errors

TEXT = b"<p>The quick brown fox jumps over the lazy dog.</p>\n" * 2000
MiB = 1024 * 1024


def decode_all(encoding: str, blob: bytes, step: int) -> bytes:
    decoder = build_decoder(encoding)
    out = [p for i in range(0, len(blob), step) for p in decoder.decode(blob[i : i + step])]
    return b"".join(out) + b"".join(decoder.flush())


ENCODED = {
    "gzip": gzip.compress(TEXT),
    "x-gzip": gzip.compress(TEXT),
    "deflate": zlib.compress(TEXT),
    "br": brotli.compress(TEXT),
    "zstd": zstandard.ZstdCompressor().compress(TEXT),
    "identity": TEXT,
    "": TEXT,
    "unknown-coding": TEXT,
    "gzip, br": brotli.compress(gzip.compress(TEXT)),
    "GZIP": gzip.compress(TEXT),
}


@pytest.mark.parametrize("encoding", list(ENCODED))
@pytest.mark.parametrize("step", [1, 7, 4096, 10**9])
def test_round_trip(encoding: str, step: int) -> None:
    assert decode_all(encoding, ENCODED[encoding], step) == TEXT


def test_raw_deflate_without_zlib_header() -> None:
    raw = zlib.compressobj(9, zlib.DEFLATED, -15)
    blob = raw.compress(TEXT) + raw.flush()
    assert decode_all("deflate", blob, 4096) == TEXT


def test_concatenated_zstd_frames() -> None:
    c = zstandard.ZstdCompressor()
    assert decode_all("zstd", c.compress(b"one ") + c.compress(b"two"), 5) == b"one two"


def zeros_bomb(encoding: str, mib: int) -> bytes:
    zeros = bytes(MiB)
    if encoding == "br":
        b = brotli.Compressor(quality=5)
        return b"".join(bytes(b.process(zeros)) for _ in range(mib)) + bytes(b.finish())
    if encoding == "zstd":
        z = zstandard.ZstdCompressor(level=3).compressobj()
        return b"".join(z.compress(zeros) for _ in range(mib)) + z.flush()
    wbits = 31 if encoding == "gzip" else 15
    d = zlib.compressobj(9, zlib.DEFLATED, wbits)
    return b"".join(d.compress(zeros) for _ in range(mib)) + d.flush()


@pytest.mark.parametrize("encoding", ["gzip", "deflate", "br", "zstd"])
def test_every_piece_is_small_even_from_a_dense_bomb(encoding: str) -> None:
    """64 MiB of zeros: brotli packs it in ~100 bytes, handed over in one chunk."""
    blob = zeros_bomb(encoding, 64)
    decoder = build_decoder(encoding)
    total = 0
    largest = 0
    for piece in decoder.decode(blob):  # the whole bomb in one call
        largest = max(largest, len(piece))
        total += len(piece)
    assert total == 64 * MiB
    limit = 3 * MiB if encoding == "zstd" else 2 * PIECE
    assert largest <= limit, f"{encoding}: a {largest}-byte piece"


def test_a_caller_can_stop_early() -> None:
    decoder = build_decoder("br")
    pieces = decoder.decode(zeros_bomb("br", 64))
    taken = sum(len(next(pieces)) for _ in range(3))
    assert taken <= 6 * PIECE


@pytest.mark.parametrize("encoding", ["gzip", "deflate", "br", "zstd"])
def test_garbage_raises_a_decode_error_type(encoding: str) -> None:
    with pytest.raises(decode_errors()):
        decode_all(encoding, b"\xff" * 64 + b"this is not compressed at all" * 10, 1000)
