"""The offline web itself: each route serves what the fetch tests rely on, byte for byte.

These talk raw HTTP to the site (no netsift), so a failure here points at the site, not at the
code under test.
"""

from __future__ import annotations

import io
import time
import zlib

import brotli
import httpx
import pypdf
import pytest
import zstandard

from tests.offline_web import documents as docs
from tests.offline_web.fixtures import OfflineWeb
from tests.offline_web.site import HOSTS, MANIFEST, build_app, load_manifest
from tests.offline_web.state import SiteState


@pytest.fixture
async def raw(offline_web: OfflineWeb):
    async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{offline_web.port}") as client:
        yield client


async def get(raw: httpx.AsyncClient, host: str, path: str) -> httpx.Response:
    return await raw.get(path, headers={"host": host})


def test_pins_cover_every_host(offline_web: OfflineWeb) -> None:
    assert offline_web.hosts == HOSTS
    assert offline_web.pins == [f"{host}:127.0.0.1" for host in HOSTS]
    assert offline_web.url("news.test", "/article") == (
        f"http://news.test:{offline_web.port}/article"
    )
    assert all(host in HOSTS for host, _ in MANIFEST)


@pytest.mark.parametrize("name", list(docs.CHARSET_TEXT))
async def test_charset_pages_declare_once(raw: httpx.AsyncClient, name: str) -> None:
    response = await get(raw, "news.test", f"/{name}")
    body, content_type = docs.build_charset_page(name)
    assert response.content == body
    assert response.headers["content-type"] == content_type
    declared_in_header = "charset" in content_type.lower()
    declared_in_meta = b"<meta charset" in body
    assert (declared_in_header, declared_in_meta) == {
        "latin1": (False, True),
        "latin1-header": (True, False),
        "sjis": (False, True),
        "bom": (False, False),
        "nocharset": (False, False),
    }[name]
    codec = {"latin1": "iso-8859-1", "latin1-header": "iso-8859-1", "sjis": "shift_jis"}
    assert docs.CHARSET_TEXT[name] in body.decode(codec.get(name, "utf-8-sig"))


async def test_pdf_is_real(raw: httpx.AsyncClient) -> None:
    response = await get(raw, "files.test", "/report.pdf")
    reader = pypdf.PdfReader(io.BytesIO(response.content))
    assert len(reader.pages) == 2
    assert reader.metadata is not None and reader.metadata.title == docs.PDF_TITLE
    assert docs.PDF_TEXT[1] in reader.pages[1].extract_text()


async def test_redirect_routes(raw: httpx.AsyncClient, offline_web: OfflineWeb) -> None:
    assert (await get(raw, "redirect.test", "/hop/2")).headers["location"] == "/hop/1"
    assert (await get(raw, "redirect.test", "/hop/0")).status_code == 200
    assert (await get(raw, "redirect.test", "/relative")).headers["location"] == "hop/1"
    assert (await get(raw, "redirect.test", "/307")).status_code == 307
    target = "http://127.0.0.1:9/x?y=1"
    response = await raw.get("/to", params={"url": target}, headers={"host": "redirect.test"})
    assert response.headers["location"] == target
    assert offline_web.state.hits("redirect.test") == 5


async def test_flaky_fails_once_per_test(raw: httpx.AsyncClient) -> None:
    assert (await get(raw, "status.test", "/flaky")).status_code == 503
    assert (await get(raw, "status.test", "/flaky")).status_code == 200


async def test_counts_reset_between_tests(raw: httpx.AsyncClient, offline_web: OfflineWeb):
    assert offline_web.state.total() == 0
    await get(raw, "status.test", "/flaky")
    assert offline_web.state.hits("status.test", "/flaky") == 1


@pytest.mark.parametrize(
    ("path", "inflate"),
    [
        ("/gzip-bomb", lambda: zlib.decompressobj(31)),
        ("/brotli-bomb", brotli.Decompressor),
        ("/zstd-bomb", lambda: zstandard.ZstdDecompressor().decompressobj()),
    ],
)
async def test_bombs_are_small_on_the_wire(raw: httpx.AsyncClient, path: str, inflate) -> None:
    decoder = inflate()
    wire = inflated = 0
    async with raw.stream("GET", path, headers={"host": "big.test"}) as response:
        assert "content-length" not in response.headers
        async for chunk in response.aiter_raw():
            wire += len(chunk)
            out = (
                decoder.process(chunk) if hasattr(decoder, "process") else decoder.decompress(chunk)
            )
            inflated += len(out)
            if inflated >= 64 * 1024 * 1024:
                break
    assert inflated >= 64 * 1024 * 1024
    assert wire < inflated / 500


async def test_gzip_ok_is_a_page(raw: httpx.AsyncClient) -> None:
    response = await get(raw, "big.test", "/gzip-ok")
    assert response.headers["content-encoding"] == "gzip"
    assert "travelled gzip-compressed" in response.text


async def test_drip_paces_its_bytes(raw: httpx.AsyncClient) -> None:
    started = time.monotonic()
    arrivals = []
    async with raw.stream("GET", "/drip", headers={"host": "slow.test"}) as response:
        async for _chunk in response.aiter_raw():
            arrivals.append(time.monotonic() - started)
            if len(arrivals) == 4:
                break
    assert arrivals[-1] > 1.2  # three half-second drips after the opening tag


async def test_manifest_rows_are_served(raw: httpx.AsyncClient) -> None:
    for (host, path), page in MANIFEST.items():
        response = await get(raw, host, path)
        assert response.status_code == page.status
        assert response.content == page.file.read_bytes()


async def test_robots_variants(raw: httpx.AsyncClient) -> None:
    assert "Disallow: /private/" in (await get(raw, "docs.test", "/robots.txt")).text
    assert (await get(raw, "robots5xx.test", "/robots.txt")).status_code == 503
    assert (await get(raw, "robots4xx.test", "/robots.txt")).status_code == 404


async def test_manifest_loader_serves_its_rows(tmp_path) -> None:
    (tmp_path / "thread.html").write_text("<html><body><p>a forum thread</p></body></html>")
    (tmp_path / "feed.xml").write_text("<rss version='2.0'><channel/></rss>")
    (tmp_path / "manifest.toml").write_text(
        '["forum.test/thread"]\nfile = "thread.html"\ncontent_type = "text/html; charset=utf-8"\n'
        '["shop.test/feeds/all.xml"]\nfile = "feed.xml"\ncontent_type = "application/rss+xml"\n'
        "status = 203\n"
    )
    manifest = load_manifest(tmp_path / "manifest.toml")
    assert set(manifest) == {("forum.test", "/thread"), ("shop.test", "/feeds/all.xml")}
    state = SiteState()
    transport = httpx.ASGITransport(app=build_app(state, manifest))
    async with httpx.AsyncClient(transport=transport, base_url="http://forum.test") as client:
        thread = await client.get("/thread")
        feed = await client.get("http://shop.test/feeds/all.xml")
        missing = await client.get("/other")
    assert (thread.status_code, thread.text) == (
        200,
        "<html><body><p>a forum thread</p></body></html>",
    )
    assert thread.headers["content-type"] == "text/html; charset=utf-8"
    assert (feed.status_code, feed.headers["content-type"]) == (203, "application/rss+xml")
    assert missing.status_code == 404
    assert state.hits("forum.test") == 2
    assert load_manifest(tmp_path / "absent.toml") == {}
