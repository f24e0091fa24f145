"""The held-out trap set (tests/offline_web/trap_sites_fresh.py), written before the rule's code
was read: seven traps (a wiki's recent changes, a relative-link loop, stacking shop filters, an
endless "more ideas" chain, an echoing search, print/share/language variants, and, added after
the loop's rule, a climbing loop) are stopped within a few dozen of their pages and named; six
real sites of look-alike pages (a forum, a glossary, a news archive, a bolt catalogue, an API
reference, and sections sharing names) are read whole and end `done`."""

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
from tests.offline_web.trap_sites_fresh import (
    FRESH_HOSTS,
    FRESH_SITES,
    LADDER_HOST,
    build_fresh_sites,
)

# "Within a few dozen pages of the first empty page": the most requests a crawl may make to a
# trap's pages. It bounds the trap's own pages only; the real pages are required in full.
TRAP_REQUESTS = 40
# Budgets no real site here reaches (the largest has 526 pages, the deepest 17 link hops):
# only the trap rule may stop a crawl short.
MAX_PAGES = 1000
MAX_DEPTH = 50

# The traps the rule does not stop yet (docs/crawl.md, "Held-out trap set"). Strict: a rule
# that stops one makes its test pass, and then its mark must go.
UNSOLVED = {
    LADDER_HOST: "a loop climbing one level and descending two: its copies' last name is the "
    "real page's, whose own path is no single name, so no copy is judged against it",
}
TRAPS = [
    pytest.param(host, marks=pytest.mark.xfail(strict=True, reason=UNSOLVED[host]))
    if host in UNSOLVED
    else host
    for host in FRESH_HOSTS
    if FRESH_SITES[host].is_trap_page is not None
]
REAL = [host for host in FRESH_HOSTS if FRESH_SITES[host].is_trap_page is None]


@pytest.fixture(scope="module")
def sites() -> Iterator[tuple[LiveServer, SiteState]]:
    state = SiteState()
    with serve(build_fresh_sites(state), timeout_graceful_shutdown=1) as server:
        yield server, state


@pytest.fixture
async def client(make_settings: Callable[..., Settings]) -> AsyncIterator[Client]:
    settings = make_settings(
        resolve=[f"{host}:127.0.0.1" for host in FRESH_HOSTS],
        allow_networks=["127.0.0.0/8"],
        jobs_url="memory://",
    )
    async for entered in entered_client(settings):
        yield entered


def _target(url: str) -> str:
    part = urlsplit(url)
    return part.path + (f"?{part.query}" if part.query else "")


async def _crawl(client: Client, sites: tuple[LiveServer, SiteState], host: str) -> CrawlReport:
    server, state = sites
    state.reset()
    url = server.url("/", host=host)
    return await client.crawl(url, max_pages=MAX_PAGES, max_depth=MAX_DEPTH)


@pytest.mark.parametrize("host", TRAPS)
async def test_a_trap_is_stopped_and_named(
    client: Client, sites: tuple[LiveServer, SiteState], host: str
) -> None:
    site, state = FRESH_SITES[host], sites[1]
    assert site.is_trap_page is not None
    report = await _crawl(client, sites, host)
    kept = {_target(page.final_url) for page in report.pages}
    assert site.must_read <= kept, sorted(site.must_read - kept)
    assert sum(map(site.is_trap_page, kept)) <= site.first_of_trap, sorted(kept - site.must_read)
    asked = [key for key in state.requested(host) if site.is_trap_page(key)]
    assert len(asked) <= TRAP_REQUESTS, (len(asked), report.stopped_because)
    assert "trap" in report.stopped_because and "max_pages" not in report.stopped_because
    assert any(host in pattern for pattern in report.traps), report.traps


@pytest.mark.parametrize("host", REAL)
async def test_a_real_site_of_look_alike_pages_is_read_whole(
    client: Client, sites: tuple[LiveServer, SiteState], host: str
) -> None:
    site = FRESH_SITES[host]
    report = await _crawl(client, sites, host)
    kept = {_target(page.final_url) for page in report.pages}
    missed = sorted(site.must_read - kept)
    assert not missed, (len(missed), missed[:5], report.skipped_by_code, report.traps)
    assert report.stopped_because == ["done"] and not report.traps
