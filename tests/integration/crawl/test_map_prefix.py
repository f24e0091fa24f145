"""A map with a limit downloads a urlset only as far as the URLs it wants: the rest of a
large sitemap is never sent. When the sieve leaves out too much of that prefix, the document
is read again whole, and the answer is the same as if it had been read whole at first."""

from __future__ import annotations

import asyncio
import gc
from collections import Counter
from collections.abc import AsyncIterator, Callable, Iterator
from urllib.parse import urlsplit

import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response, StreamingResponse
from starlette.routing import Route

from netsift.client import Client
from netsift.config import Settings
from netsift.crawl.scope import Scope
from netsift.crawl.sitemaps import SitemapReader
from tests.offline_web.fixtures import ALLOW_LOOPBACK, entered_client
from tests.offline_web.server import LiveServer, serve

LONG_HOST = "long.test"  # one sitemap of ENTRIES page URLs, sent a chunk at a time
HIDDEN_HOST = "hidden.test"  # its sitemap lists HIDDEN disallowed URLs before the allowed
ENTRIES = 20_000
CHUNK = 400  # entries a chunk: 50 chunks, ~30 KB each
CHUNK_GAP = 0.01  # seconds between two chunks: the site sends no faster than it is read
HIDDEN = 2 * CHUNK  # the first chunks hold none the map may keep
NS = "http://www.sitemaps.org/schemas/sitemap/0.9"


class Sent:
    """Chunks each sitemap's stream yielded, and requests per path."""

    def __init__(self) -> None:
        self.chunks: Counter[str] = Counter()
        self.requests: Counter[str] = Counter()


def _app(sent: Sent) -> Starlette:
    def host(request: Request) -> str:
        return request.headers.get("host", "")

    async def robots(request: Request) -> Response:
        name = "hidden.xml" if host(request).startswith(HIDDEN_HOST) else "sitemap.xml"
        return PlainTextResponse(
            f"User-agent: *\nDisallow: /private/\nSitemap: http://{host(request)}/{name}\n"
        )

    def stream(path: str, locs: list[str]) -> StreamingResponse:
        async def body() -> AsyncIterator[bytes]:
            yield f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="{NS}">'.encode()
            for start in range(0, len(locs), CHUNK):
                rows = "".join(
                    f"<url><loc>{loc}</loc></url>" for loc in locs[start : start + CHUNK]
                )
                sent.chunks[path] += 1
                yield rows.encode()
                await asyncio.sleep(CHUNK_GAP)
            yield b"</urlset>"

        sent.requests[path] += 1
        return StreamingResponse(body(), media_type="application/xml")

    async def sitemap(request: Request) -> Response:
        base = f"http://{host(request)}"
        return stream("/sitemap.xml", [f"{base}/docs/p{n:05d}.html" for n in range(ENTRIES)])

    async def hidden(request: Request) -> Response:
        base = f"http://{host(request)}"
        locs = [f"{base}/private/p{n:04d}.html" for n in range(HIDDEN)]
        locs += [f"{base}/docs/p{n:04d}.html" for n in range(HIDDEN)]
        return stream("/hidden.xml", locs)

    routes = [
        Route("/robots.txt", robots),
        Route("/sitemap.xml", sitemap),
        Route("/hidden.xml", hidden),
    ]
    return Starlette(routes=routes)


@pytest.fixture(scope="module")
def site() -> Iterator[tuple[LiveServer, Sent]]:
    sent = Sent()
    with serve(_app(sent), timeout_graceful_shutdown=1) as server:
        yield server, sent


@pytest.fixture
async def client(make_settings: Callable[..., Settings]) -> AsyncIterator[Client]:
    settings = make_settings(
        resolve=[f"{LONG_HOST}:127.0.0.1", f"{HIDDEN_HOST}:127.0.0.1"],
        allow_networks=ALLOW_LOOPBACK,
    )
    async for entered in entered_client(settings):
        yield entered


async def test_a_limit_stops_the_download_not_only_the_parse(
    client: Client, site: tuple[LiveServer, Sent]
) -> None:
    server, sent = site
    sent.chunks.clear()
    result = await client.map(server.url("/", host=LONG_HOST), limit=100, sitemaps="only")
    assert [urlsplit(link.url).path for link in result.links] == [
        f"/docs/p{n:05d}.html" for n in range(100)
    ]
    [report] = result.sitemaps
    assert report.status == "read" and report.urls == 100
    assert "100 sitemap URLs were in hand: the rest were not read" in result.stopped_because
    await asyncio.sleep(10 * CHUNK_GAP)  # a stream the client left has stopped by now
    # the prefix of 2 x 100 URLs (+ a few) is in the first chunk; the site saw the
    # connection close while it sent the next ones, of 50
    assert sent.chunks["/sitemap.xml"] <= 5, sent.chunks


async def test_a_query_reads_whole(client: Client, site: tuple[LiveServer, Sent]) -> None:
    server, sent = site
    sent.chunks.clear()
    result = await client.map(
        server.url("/", host=LONG_HOST), limit=5, query="p01234", sitemaps="only"
    )
    assert result.found == ENTRIES
    assert urlsplit(result.links[0].url).path == "/docs/p01234.html"
    assert sent.chunks["/sitemap.xml"] == ENTRIES // CHUNK


async def test_a_prefix_the_sieve_empties_is_read_again_whole(
    client: Client, site: tuple[LiveServer, Sent]
) -> None:
    server, sent = site
    sent.requests.clear()
    result = await client.map(server.url("/", host=HIDDEN_HOST), limit=20, sitemaps="only")
    # the first 2 x 20 (+ a few) entries are all disallowed: the prefix kept none
    assert [urlsplit(link.url).path for link in result.links] == [
        f"/docs/p{n:04d}.html" for n in range(20)
    ]
    assert result.left_out["robots"] == HIDDEN
    assert sent.requests["/hidden.xml"] == 2
    [report] = result.sitemaps
    assert report.status == "read" and report.reason is not None
    assert "20 URLs were in hand" in report.reason


async def test_what_a_reader_keeps_is_not_objects_the_collector_walks(
    client: Client, site: tuple[LiveServer, Sent]
) -> None:
    """20,000 URLs kept are 50 strings until they are read: as 20,000 objects they
    were enough for a full collection during a map, which walked every one of them."""
    server, _ = site
    start = server.url("/", host=LONG_HOST)
    reader = SitemapReader(client.http, Scope.of(start), compute=client.compute)
    gc.collect()
    before = len(gc.get_objects())
    await reader.read([(server.url("/sitemap.xml", host=LONG_HOST), "robots")])
    grown = len(gc.get_objects()) - before
    assert reader.kept == ENTRIES
    assert grown < ENTRIES // 4, grown  # as objects: 20,000 and more
    listed = list(reader.listed)
    assert [item.url for item in listed[:2]] == [
        server.url(f"/docs/p{n:05d}.html", host=LONG_HOST) for n in range(2)
    ]
    assert len({item.key for item in listed}) == ENTRIES
