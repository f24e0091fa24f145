"""A crawl's seeds and endings: the site's sitemaps seed it (include, only, skip), max_depth
counts link hops from the nearest seed, the report says every reason it ended short and what
it left unread, and a refused start URL fails the crawl before a job is queued. On both
frontier stores."""

from __future__ import annotations

import socket
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from netsift.client import Client
from netsift.config import Settings
from netsift.errors import BlockedAddress, BlockedByRobots, ConnectError, InvalidURL, OutOfScope
from netsift.models import CrawlReport
from netsift.params import CrawlParams
from tests.integration.crawl.conftest import GeneratedSite
from tests.offline_web.fixtures import entered_client
from tests.offline_web.seeded_site import (
    APPENDIX,
    BEYOND_3,
    GAZETTE_HOST,
    LINKED_WITHIN_3,
    LISTED,
    NUMBERED_HOST,
    NUMBERED_PAGES,
    ORPHANS,
    UNLISTED,
    build_gazette,
    build_numbered,
    numbered_path,
)
from tests.offline_web.server import LiveServer, serve
from tests.offline_web.state import SiteState

CLOSED_HOST = "closed.test"  # pinned to the loopback, on a port nothing listens on


@pytest.fixture(scope="module")
def gazette() -> Iterator[tuple[LiveServer, SiteState]]:
    state = SiteState()
    with serve(build_gazette(state), timeout_graceful_shutdown=1) as server:
        yield server, state


@pytest.fixture(scope="module")
def numbered() -> Iterator[tuple[LiveServer, SiteState]]:
    state = SiteState()
    with serve(build_numbered(state), timeout_graceful_shutdown=1) as server:
        yield server, state


def _jobs_url(store: str, tmp_path: Path, request: pytest.FixtureRequest) -> str:
    if store == "redis":
        return str(request.getfixturevalue("redis_url"))
    return f"sqlite:///{tmp_path / 'jobs.sqlite3'}"


STORES = ["sqlite", pytest.param("redis", marks=pytest.mark.redis)]


@pytest.fixture(params=STORES)
async def client(
    request: pytest.FixtureRequest, make_settings: Callable[..., Settings], tmp_path: Path
) -> AsyncIterator[Client]:
    settings = make_settings(
        resolve=[
            f"{GAZETTE_HOST}:127.0.0.1",
            f"{NUMBERED_HOST}:127.0.0.1",
            f"{CLOSED_HOST}:127.0.0.1",
        ],
        allow_networks=["127.0.0.0/8"],
        jobs_url=_jobs_url(request.param, tmp_path, request),
    )
    async for entered in entered_client(settings):
        yield entered


def _kept(report: CrawlReport) -> set[str]:
    return {urlsplit(page.final_url).path for page in report.pages}


async def test_the_sitemaps_seed_a_crawl_so_it_reads_the_whole_site(
    client: Client, gazette: tuple[LiveServer, SiteState]
) -> None:
    """Links reach 8 pages within 3 hops; the sitemaps (an index, a plain and a
    gzipped sitemap) list all 60: with the defaults every page is read, once."""
    server, state = gazette
    state.reset()
    report = await client.crawl(server.url("/", host=GAZETTE_HOST), max_pages=80)
    assert _kept(report) == LISTED | UNLISTED  # the appendix: one hop from an orphan
    assert report.stopped_because == ["done"]
    assert report.unread == 0 and report.beyond_depth == 0
    assert report.seen >= len(LISTED | UNLISTED)
    assert all(state.hits(GAZETTE_HOST, path) == 1 for path in LISTED | UNLISTED)
    assert state.hits(GAZETTE_HOST, "/maps/second.xml.gz") == 1


async def test_sitemap_skip_reads_only_what_links_reach(
    client: Client, gazette: tuple[LiveServer, SiteState]
) -> None:
    server, state = gazette
    state.reset()
    report = await client.crawl(server.url("/", host=GAZETTE_HOST), sitemap="skip")
    assert _kept(report) == LINKED_WITHIN_3
    # the branches' fourth pages were linked one hop past the depth: counted, never asked for
    assert report.stopped_because == ["max_depth"]
    assert report.beyond_depth == len(BEYOND_3) and report.unread == len(BEYOND_3)
    assert not any(state.hits(GAZETTE_HOST, path) for path in BEYOND_3 | ORPHANS)
    assert state.hits(GAZETTE_HOST, "/maps/index.xml") == 0


async def test_sitemap_only_reads_only_the_listed_pages(
    client: Client, gazette: tuple[LiveServer, SiteState]
) -> None:
    server, state = gazette
    state.reset()
    report = await client.crawl(server.url("/", host=GAZETTE_HOST), sitemap="only", max_pages=80)
    assert _kept(report) == LISTED
    assert report.stopped_because == ["done"]  # links are no part of such a crawl
    assert not any(state.hits(GAZETTE_HOST, path) for path in UNLISTED)


@pytest.mark.parametrize(("max_depth", "appendix"), [(0, False), (1, True)])
async def test_max_depth_counts_hops_from_the_nearest_seed(
    client: Client, gazette: tuple[LiveServer, SiteState], max_depth: int, appendix: bool
) -> None:
    """The appendix is linked by an orphan (a seed of the sitemaps) only: one hop from its
    nearest seed, however far from the home page."""
    server, _ = gazette
    url = server.url("/", host=GAZETTE_HOST)
    report = await client.crawl(url, max_pages=80, max_depth=max_depth)
    kept = _kept(report)
    assert LISTED <= kept and (APPENDIX in kept) is appendix
    if max_depth == 0:  # the unlisted pages are linked one hop past it
        assert kept == LISTED
        assert report.stopped_because == ["max_depth"] and report.beyond_depth == len(UNLISTED)
    else:
        assert report.stopped_because == ["done"]


async def test_a_numbered_site_is_read_whole_from_its_sitemap(
    client: Client, numbered: tuple[LiveServer, SiteState]
) -> None:
    """300 pages of one path pattern, each linking only the next: the sitemap seeds them all,
    each holds text of its own, so none is a trap's and the default depth does not cut it."""
    server, state = numbered
    state.reset()
    report = await client.crawl(server.url("/", host=NUMBERED_HOST), max_pages=400)
    paths = {numbered_path(n) for n in range(NUMBERED_PAGES)}
    assert paths <= _kept(report)
    assert report.stopped_because == ["done"] and report.unread == 0
    assert all(state.hits(NUMBERED_HOST, path) == 1 for path in paths)


async def test_a_budget_that_stops_a_crawl_says_what_it_left_unread(
    client: Client, numbered: tuple[LiveServer, SiteState]
) -> None:
    server, _ = numbered
    report = await client.crawl(server.url("/", host=NUMBERED_HOST), max_pages=40)
    assert report.pages_read == 40
    assert report.stopped_because[0] == "max_pages"
    assert report.seen >= NUMBERED_PAGES
    # every URL met is kept, skipped (by code) or left unread
    skipped = sum(report.skipped_by_code.values())
    assert report.pages_read + skipped + report.unread == report.seen
    assert report.unread >= NUMBERED_PAGES - 40 - skipped


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.mark.parametrize(
    ("url", "error"),
    [
        ("http://169.254.169.254/latest/meta-data/", BlockedAddress),
        ("http://xn--localhost-/", InvalidURL),
        (f"http://{CLOSED_HOST}:{{port}}/", ConnectError),
    ],
)
async def test_a_refused_start_url_fails_before_a_job_is_queued(
    client: Client, url: str, error: type[Exception]
) -> None:
    url = url.format(port=_closed_port())
    with pytest.raises(error):
        await client.crawl(url)
    with pytest.raises(error):
        await client.start_crawl(CrawlParams(url=url))
    assert not await client.list_jobs()


async def test_a_start_url_robots_txt_disallows_is_refused(
    crawl_client: Client, site: GeneratedSite
) -> None:
    with pytest.raises(BlockedByRobots):
        await crawl_client.crawl(site.url("/private/0"))


async def test_a_start_url_that_redirects_off_the_site_fails_the_crawl(
    crawl_client: Client, site: GeneratedSite
) -> None:
    """Its refusal is known only once it is read: the crawl kept nothing, and fails with the
    start URL's error rather than ending "done" with no page."""
    with pytest.raises(OutOfScope):
        await crawl_client.crawl(site.url("/away"), sitemap="skip")
    job = (await crawl_client.list_jobs(limit=1))[0]
    assert job.status == "failed" and job.error and job.error["code"] == "out_of_scope"
