"""Caps and clocks over real sockets: bombs, huge bodies, slow drips, stalls, deadlines."""

from __future__ import annotations

import time
import tracemalloc
from pathlib import Path

import httpx
import pytest

from netsift import errors
from netsift.errors import TooLarge
from netsift.net.http import StopBody

from .conftest import MakeHttp, Site, read_audit

MiB = 1024 * 1024


@pytest.mark.parametrize("encoding", ["gzip", "deflate", "br", "zstd"])
async def test_compression_bombs_stop_at_the_cap_with_flat_memory(
    make_http: MakeHttp, site: Site, encoding: str, audit_path: Path
) -> None:
    """A 4 GiB bomb (brotli: ~100 bytes per 64 MiB) against the 10 MiB default cap."""
    http = make_http()
    tracemalloc.start()
    try:
        with pytest.raises(TooLarge) as caught:
            await http.send(httpx.Request("GET", site.url(f"/bomb/{encoding}")), kind="fetch")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert "decompressed" in caught.value.message
    assert caught.value.details["max_bytes"] == 10 * MiB
    assert peak < 50 * MiB, f"peak {peak / MiB:.1f} MiB"
    [line] = read_audit(audit_path)
    assert line["outcome"] == "too_large" and line["status"] == 200
    assert line["bytes"] < 2 * MiB  # raw bytes read: the bomb was not downloaded


async def test_small_cap_on_a_bomb(make_http: MakeHttp, site: Site) -> None:
    with pytest.raises(TooLarge):
        await make_http().send(
            httpx.Request("GET", site.url("/bomb/br")), kind="fetch", max_bytes=100_000
        )


async def test_normal_gzip_is_decoded(make_http: MakeHttp, site: Site) -> None:
    response = await make_http().send(httpx.Request("GET", site.url("/gzip-ok")), kind="fetch")
    assert response.text == "<h1>fine</h1>" * 100
    assert response.headers["content-encoding"] == "gzip"


async def test_streamed_body_over_the_cap(make_http: MakeHttp, site: Site) -> None:
    tracemalloc.start()
    try:
        with pytest.raises(TooLarge) as caught:
            await make_http().send(httpx.Request("GET", site.url("/huge")), kind="fetch")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert "the body" in caught.value.message
    assert peak < 30 * MiB
    response = await make_http().send(
        httpx.Request("GET", site.url("/huge")), kind="fetch", max_bytes=25 * MiB
    )
    assert len(response.content) >= 20 * MiB


async def test_declared_length_over_the_cap_fails_before_reading(
    make_http: MakeHttp, site: Site, audit_path: Path
) -> None:
    with pytest.raises(TooLarge, match="declares") as caught:
        await make_http().send(httpx.Request("GET", site.url("/declared")), kind="fetch")
    assert caught.value.details["declared"] == 50 * MiB
    [line] = read_audit(audit_path)
    assert line["bytes"] == 0


async def test_slow_drip_cannot_outlast_the_deadline(make_http: MakeHttp, site: Site) -> None:
    """A byte every 0.2 s never trips the read timeout; the total deadline stops it."""
    http = make_http(read_timeout=5, timeout=30)
    started = time.monotonic()
    with pytest.raises(errors.Timeout) as caught:
        await http.send(httpx.Request("GET", site.url("/drip")), kind="fetch", deadline=1.5)
    elapsed = time.monotonic() - started
    assert 1.4 <= elapsed < 3.0
    assert caught.value.code == "timeout" and caught.value.retryable
    assert "1.5s" in caught.value.message


async def test_settings_timeout_is_the_default_deadline(
    make_http: MakeHttp, site: Site, audit_path: Path
) -> None:
    started = time.monotonic()
    with pytest.raises(errors.Timeout):
        await make_http(timeout=1.0).send(httpx.Request("GET", site.url("/drip")), kind="fetch")
    assert time.monotonic() - started < 2.5
    [line] = read_audit(audit_path)
    assert line["outcome"] == "timeout" and line["status"] == 200


async def test_stall_hits_the_read_timeout(make_http: MakeHttp, site: Site) -> None:
    started = time.monotonic()
    with pytest.raises(errors.Timeout, match="waiting for data"):
        await make_http(read_timeout=0.5).send(
            httpx.Request("GET", site.url("/stall")), kind="fetch"
        )
    assert time.monotonic() - started < 2.5


async def test_deadline_covers_redirects_too(make_http: MakeHttp, site: Site) -> None:
    """Each hop is quick; the last one drips. The deadline counts from the first hop."""
    target = site.url("/drip")
    url = site.url(f"/redirect?to={target}")
    started = time.monotonic()
    with pytest.raises(errors.Timeout):
        await make_http().send(httpx.Request("GET", url), kind="fetch", deadline=1.0)
    assert time.monotonic() - started < 2.5


async def test_broken_compression_is_a_decode_error(
    make_http: MakeHttp, site: Site, audit_path: Path
) -> None:
    with pytest.raises(errors.DecodeError) as caught:
        await make_http().send(httpx.Request("GET", site.url("/broken-gzip")), kind="fetch")
    assert caught.value.code == "decode_error"
    assert read_audit(audit_path)[0]["outcome"] == "decode_error"


async def test_head_with_a_large_declared_length_is_fine(make_http: MakeHttp, site: Site) -> None:
    response = await make_http().send(httpx.Request("HEAD", site.url("/declared")), kind="fetch")
    assert response.status_code == 200 and response.content == b""
    assert response.headers["content-length"] == str(50 * MiB)


async def test_a_timed_out_body_gives_its_connection_back(make_settings, site: Site) -> None:
    """One connection in the pool: if a cancelled read kept it, the next request would wait."""
    from netsift.net.guard import AddressPolicy
    from netsift.net.http import HttpClient
    from netsift.net.resolver import StaticResolver
    from netsift.net.transport import GuardedTransport

    transport = GuardedTransport(
        StaticResolver({"site.test": ["127.0.0.1"]}),
        AddressPolicy(["127.0.0.0/8"]),
        max_connections=1,
    )
    http = HttpClient(make_settings(retries=0), transport=transport)
    for _ in range(3):
        with pytest.raises(errors.Timeout):
            await http.send(httpx.Request("GET", site.url("/drip")), kind="fetch", deadline=0.3)
        with pytest.raises(TooLarge):
            await http.send(httpx.Request("GET", site.url("/huge")), kind="fetch", max_bytes=1000)
    response = await http.send(httpx.Request("GET", site.url("/echo")), kind="fetch", deadline=2)
    assert response.status_code == 200
    await http.aclose()


async def test_a_sink_that_has_enough_stops_the_read(
    make_http: MakeHttp, site: Site, audit_path: Path
) -> None:
    """A sink that raises StopBody ends the read there: `send` answers with the response,
    the rest of the 20 MiB body is never read, and the audit says the exchange went well."""
    got = bytearray()

    def sink(piece: bytes) -> None:
        got.extend(piece)
        if len(got) >= 100_000:
            raise StopBody

    response = await make_http().send(
        httpx.Request("GET", site.url("/huge")), kind="fetch", sink=sink, max_bytes=64 * MiB
    )
    assert response.status_code == 200
    assert 100_000 <= len(got) < MiB
    [line] = read_audit(audit_path)
    assert line["outcome"] == "ok" and line["bytes"] < MiB
