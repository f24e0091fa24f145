"""Traps the crawl's rule was not written on, and real sites that look like traps: an archive
whose pager never ends, a session id in every link, a faceted search; a blog of short posts
alike and a numbered changelog (tests/offline_web/trap_sites.py). A trap is stopped early,
its pages are not returned, and the real pages are all kept."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterator
from urllib.parse import urlsplit

import pytest

from netsift.client import Client
from netsift.config import Settings
from netsift.models import CrawlReport
from tests.offline_web.fixtures import entered_client
from tests.offline_web.server import LiveServer, serve
from tests.offline_web.state import SiteState
from tests.offline_web.trap_sites import (
    ARCHIVE_HOST,
    CHANGELOG_HOST,
    FACETS_HOST,
    GARMENTS,
    KIOSK_HOST,
    NOTES,
    NOTES_HOST,
    PRODUCTS,
    RELEASES,
    STORIES,
    TRAP_HOSTS,
    build_trap_sites,
    release_path,
)

# The most requests each trap site may take: its real pages, plus a few dozen spent judging
# the trap (the archive's pager and the shop's copies are endless, the search has 840 listings).
ARCHIVE_REQUESTS = 60  # 40 stories
KIOSK_REQUESTS = 60  # 12 products
FACETS_REQUESTS = 150  # 30 garments


@pytest.fixture(scope="module")
def sites() -> Iterator[tuple[LiveServer, SiteState]]:
    state = SiteState()
    with serve(build_trap_sites(state), timeout_graceful_shutdown=1) as server:
        yield server, state


@pytest.fixture
async def client(make_settings: Callable[..., Settings]) -> AsyncIterator[Client]:
    settings = make_settings(
        resolve=[f"{host}:127.0.0.1" for host in TRAP_HOSTS],
        allow_networks=["127.0.0.0/8"],
        jobs_url="memory://",
    )
    async for entered in entered_client(settings):
        yield entered


def _kept(report: CrawlReport) -> list[str]:
    """The kept pages as path and query."""
    parts = [urlsplit(page.final_url) for page in report.pages]
    return [part.path + (f"?{part.query}" if part.query else "") for part in parts]


async def _crawl(client: Client, sites: tuple[LiveServer, SiteState], host: str) -> CrawlReport:
    server, state = sites
    state.reset()
    # depth 50 and 400 pages: only the trap rule can stop a trap early
    return await client.crawl(server.url("/", host=host), max_pages=400, max_depth=50)


async def test_an_archive_whose_pager_never_ends(
    client: Client, sites: tuple[LiveServer, SiteState]
) -> None:
    report = await _crawl(client, sites, ARCHIVE_HOST)
    kept = _kept(report)
    assert set(STORIES) <= set(kept)
    # the first archive page led to stories no other page linked; the rest repeat it
    assert {path for path in kept if path.startswith("/archive")} <= {"/archive?page=1"}
    assert sites[1].hits(ARCHIVE_HOST) <= ARCHIVE_REQUESTS


async def test_a_session_id_in_every_link(
    client: Client, sites: tuple[LiveServer, SiteState]
) -> None:
    report = await _crawl(client, sites, KIOSK_HOST)
    titles = [page.title for page in report.pages]
    assert all(titles.count(product) == 1 for product in PRODUCTS)
    assert sum(path.startswith("/catalog") for path in _kept(report)) <= 1
    assert sites[1].hits(KIOSK_HOST) <= KIOSK_REQUESTS
    assert "max_pages" not in report.stopped_because


async def test_a_faceted_search(client: Client, sites: tuple[LiveServer, SiteState]) -> None:
    report = await _crawl(client, sites, FACETS_HOST)
    kept = _kept(report)
    assert {f"/garment/{n}" for n in range(len(GARMENTS))} <= set(kept)
    assert {path for path in kept if path.startswith("/shop")} <= {"/shop"}
    assert sites[1].hits(FACETS_HOST) <= FACETS_REQUESTS
    assert "trap" in report.stopped_because and "max_pages" not in report.stopped_because


async def test_a_blog_of_short_posts_alike_is_read_whole(
    client: Client, sites: tuple[LiveServer, SiteState]
) -> None:
    report = await _crawl(client, sites, NOTES_HOST)
    assert {f"/notes/{n}" for n in NOTES} <= set(_kept(report)), report.skipped_by_code
    assert report.stopped_because == ["done"] and not report.traps


async def test_a_numbered_changelog_is_read_whole(
    client: Client, sites: tuple[LiveServer, SiteState]
) -> None:
    report = await _crawl(client, sites, CHANGELOG_HOST)
    assert {release_path(version) for version in RELEASES} <= set(_kept(report))
    assert report.stopped_because == ["done"] and not report.traps
