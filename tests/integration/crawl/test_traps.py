"""Traps judged by what pages hold: a numbered manual is read whole, an endless calendar of
empty months is stopped soon after its first empty month, and the report says so."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterator
from urllib.parse import urlsplit

import pytest

from netsift.client import Client
from netsift.config import Settings
from tests.offline_web.event_calendar import (
    CALENDAR_HOST,
    ENTRY,
    EVENT_MONTHS,
    build_calendar,
    month_path,
)
from tests.offline_web.fixtures import entered_client
from tests.offline_web.numbered_docs import DOC_PAGES, DOCS_HOST, NEAR_COPIES, build_docs
from tests.offline_web.server import LiveServer, serve
from tests.offline_web.state import SiteState

# How many empty months a crawl may read past the first before it stops: "a few dozen" at
# most; the window (rules.TRAP_WINDOW) needs a dozen, pages in flight add a few.
EMPTY_MONTHS_READ = 30


@pytest.fixture(scope="module")
def docs() -> Iterator[tuple[LiveServer, SiteState]]:
    state = SiteState()
    with serve(build_docs(state), timeout_graceful_shutdown=1) as server:
        yield server, state


@pytest.fixture(scope="module")
def calendar() -> Iterator[tuple[LiveServer, SiteState]]:
    state = SiteState()
    with serve(build_calendar(state), timeout_graceful_shutdown=1) as server:
        yield server, state


@pytest.fixture
async def client(make_settings: Callable[..., Settings]) -> AsyncIterator[Client]:
    settings = make_settings(
        resolve=[f"{DOCS_HOST}:127.0.0.1", f"{CALENDAR_HOST}:127.0.0.1"],
        allow_networks=["127.0.0.0/8"],
        jobs_url="memory://",
    )
    async for entered in entered_client(settings):
        yield entered


def _path(url: str) -> str:
    return urlsplit(url).path


async def test_a_numbered_manual_is_read_whole(
    client: Client, docs: tuple[LiveServer, SiteState]
) -> None:
    """Every page is one path pattern once digits are masked, and a few are near copies: the
    pattern keeps adding text, so no page is left unread."""
    server, state = docs
    report = await client.crawl(server.url("/", host=DOCS_HOST), max_pages=1000)
    kept = {_path(page.final_url) for page in report.pages}
    codes = {_path(skip.url): skip.code for skip in report.skipped}
    # every page is read; of a page and its near copy, the one read second may be dropped
    assert all(path in kept or codes.get(path) == "duplicate" for path in DOC_PAGES)
    assert len(kept & DOC_PAGES) >= len(DOC_PAGES) - len(NEAR_COPIES)
    assert "trap" not in codes.values()
    assert report.stopped_because == ["done"]
    assert all(state.hits(DOCS_HOST, path) == 1 for path in DOC_PAGES)


async def test_an_endless_calendar_stops_soon_after_its_first_empty_month(
    client: Client, calendar: tuple[LiveServer, SiteState]
) -> None:
    server, state = calendar
    # depth 50 lets a crawl read 100 months from the entry: only a trap stops it sooner
    report = await client.crawl(server.url("/", host=CALENDAR_HOST), max_pages=400, max_depth=50)
    kept = {_path(page.final_url) for page in report.pages}
    assert {month_path(*month) for month in EVENT_MONTHS} <= kept
    asked = [
        (year, month)
        for year in range(2000, 2100)  # a few dozen months either way
        for month in range(1, 13)
        if (year, month) not in EVENT_MONTHS and state.hits(CALENDAR_HOST, month_path(year, month))
    ]
    assert 0 < len(asked) <= EMPTY_MONTHS_READ
    # the empty months read while the trap was judged are not among the pages returned
    assert not {month_path(*month) for month in asked} & kept
    assert report.stopped_because[0] == "trap"
    traps = [skip for skip in report.skipped if skip.code == "trap"]
    assert traps and all(f"{CALENDAR_HOST}/cal/0/0" in skip.message for skip in traps)
    # the report names the pattern and counts what it left unread, apart from what it read
    assert any(f"{CALENDAR_HOST}/cal/0/0" in pattern for pattern in report.traps)
    held = {_path(skip.url) for skip in traps if "held back" in skip.message}
    assert held == {month_path(*month) for month in asked}
    assert report.trapped >= len(traps) - len(held) > 0
    assert month_path(*ENTRY) in kept
