"""Crawling the generated site through the real guard, robots, fetcher and frontier."""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import anyio
import pytest

from netsift.client import Client
from netsift.config import Settings
from netsift.crawl.crawler import Crawler
from netsift.crawl.frontier.rules import window_is_trap
from netsift.errors import InvalidInput
from netsift.fetch.content import Content
from netsift.fetch.fetcher import Fetcher
from netsift.models import ContentFormat, CrawlReport
from netsift.params import CrawlParams
from tests.integration.crawl.conftest import GeneratedSite, serve_site
from tests.offline_web.generated import (
    ARCHIVE_MONTHS,
    CALENDAR_ENTRY,
    SiteSpec,
    expected_paths,
    forbidden,
)


def _path(url: str) -> str:
    parts = urlsplit(url)
    return parts.path + (f"?{parts.query}" if parts.query else "")


def _kept(report: CrawlReport) -> list[str]:
    return [_path(page.final_url) for page in report.pages]


def _skips(report: CrawlReport) -> dict[str, str]:
    return {skip.url: skip.code for skip in report.skipped}


async def test_a_whole_site_is_read_once_each_and_nothing_it_should_not(
    crawl_client: Client, site: GeneratedSite
) -> None:
    site.state.reset()
    report = await crawl_client.crawl(site.url("/"), max_pages=500, max_depth=20)
    kept = _kept(report)
    assert len(kept) == len(set(kept))
    assert expected_paths(site.spec) <= set(kept)
    extra = set(kept) - expected_paths(site.spec)
    assert all(path.startswith("/calendar/") for path in extra)
    assert len(extra) <= 3  # the infinite calendar: its months are near-duplicates
    # the archive's 48 months: after enough alike ones to make the calendar a trap (after its
    # entry month added text), the rest are not asked for
    alike = next(k for k in range(1, 20) if window_is_trap("1" + "0" * k))
    log = site.state.knobs["log"]
    assert isinstance(log, list)
    months = [path for _, path in log if path.startswith("/calendar/20")]
    assert len([m for m in months if int(m.split("/")[2]) < 2022]) < ARCHIVE_MONTHS // 2
    # a pattern earns its requests: the archive's months are not asked for in a burst before
    # they come back alike (the entry month, the duplicates that make the trap, and a month
    # or two kept because they are not near copies, whose changed month and year are a few
    # new words: one may count as new text; 9-10 when 8 went out at once)
    assert len(months) <= 1 + alike + 4
    assert "trap" in set(_skips(report).values())
    assert all(page.content and page.page_type for page in report.pages)
    home = report.pages[0]
    assert home.final_url == site.url("/") and home.links
    skips = _skips(report)
    assert skips[site.url("/private/0")] == "blocked_by_robots"
    assert skips["http://elsewhere.test/about"] == "out_of_scope"
    assert skips["http://10.0.0.7/admin"] == "out_of_scope"
    assert skips[site.url("/away")] == "out_of_scope"  # a redirect off the site: not followed
    assert site.state.hits("elsewhere.test") == 0
    # the site's www. name is the same site but a private address: the guard refuses it,
    # as a link and as a redirect's target
    www = site.url("/docs/0").replace("crawl.test", "www.crawl.test")
    assert skips[www] == "blocked_address"
    assert skips[site.url("/inside")] == "blocked_address"
    assert skips[site.url("/print/0")] == "duplicate"  # the same text
    assert skips[site.url("/near/0")] == "duplicate"  # the same text and a date line
    assert skips[site.url("/docs/0?session=s0")] == "duplicate"  # rel=canonical
    for path in ("/private/0", "/docs/0?utm_source=nav"):
        assert forbidden(path)
        assert site.state.hits("crawl.test", path) == 0
    for n in range(site.spec.pages):
        assert site.state.hits("crawl.test", f"/docs/{n}") == 1
    assert site.state.hits("crawl.test", "/robots.txt") == 1
    assert report.stopped_because[0] == "trap"  # the calendar's months were left unread


async def test_depth_bounds_the_crawl(crawl_client: Client, site: GeneratedSite) -> None:
    report = await crawl_client.crawl(site.url("/"), max_pages=500, max_depth=1)
    kept = set(_kept(report))
    assert {"/", "/docs/0", "/calendar/2024/1", "/busy"} <= kept
    assert not any(path.startswith("/docs/") and path != "/docs/0" for path in kept)


async def test_include_and_exclude_patterns(crawl_client: Client, site: GeneratedSite) -> None:
    report = await crawl_client.crawl(
        site.url("/"), max_pages=500, max_depth=20, include=["^/$", "^/docs/"], exclude=["/3$"]
    )
    kept = set(_kept(report))
    assert "/docs/1" in kept and "/docs/3" not in kept and "/busy" not in kept
    assert _skips(report)[site.url("/docs/3")] == "out_of_scope"


@pytest.mark.parametrize(
    ("budget", "reason"),
    [({"max_pages": 5}, "max_pages"), ({"max_bytes": 20_000}, "max_bytes")],
)
async def test_budgets_stop_the_crawl(
    crawl_client: Client, site: GeneratedSite, budget: dict[str, Any], reason: str
) -> None:
    report = await crawl_client.crawl(site.url("/"), max_depth=20, **budget)
    assert report.stopped_because[0] == reason
    if reason == "max_pages":
        assert len(report.pages) == 5
    else:  # the page that crossed the line is kept; no page is asked for after it
        assert len(report.pages) < site.spec.pages


async def test_the_time_budget_stops_the_crawl(
    make_settings: Callable[..., Settings], slow_site: GeneratedSite
) -> None:
    # every page answers 50 ms late, 8 at a time: 0.1 s reads two waves at most, not the 35
    settings = make_settings(
        resolve=slow_site.pins, allow_networks=["127.0.0.0/8"], jobs_url="memory://"
    )
    async with Client(settings) as client:
        report = await client.crawl(slow_site.url("/"), max_depth=20, max_pages=500, deadline=0.1)
    assert report.stopped_because[0] == "time"
    assert len(report.pages) < len(expected_paths(slow_site.spec))


async def test_a_start_url_outside_its_include_is_read_for_its_links_not_kept(
    crawl_client: Client, site: GeneratedSite
) -> None:
    """The home page, crawled for its /docs/ pages: read (its links lead there), not kept."""
    report = await crawl_client.crawl(site.url("/"), include=["^/docs/"], max_pages=5)
    kept = _kept(report)
    assert len(kept) == 5 and all(path.startswith("/docs/") for path in kept)
    skips = _skips(report)
    assert skips[site.url("/")] == "out_of_scope"
    assert skips[site.url("/archive")] == "out_of_scope"  # a link outside the patterns
    with pytest.raises(InvalidInput):
        await crawl_client.crawl(site.url("/"), max_pages=0)


@pytest.fixture(scope="module")
def polite_site() -> Iterator[GeneratedSite]:
    yield from serve_site(SiteSpec(pages=6, host="polite.test", crawl_delay=0.25))


async def test_crawl_delay_spaces_every_request_to_the_host(
    make_settings: Callable[..., Settings], polite_site: GeneratedSite
) -> None:
    settings = make_settings(
        resolve=polite_site.pins, allow_networks=["127.0.0.0/8"], jobs_url="memory://"
    )
    async with Client(settings) as client:
        report = await client.crawl(polite_site.url("/"), max_pages=5, max_depth=20)
    assert len(report.pages) == 5
    log = polite_site.state.knobs["log"]
    assert isinstance(log, list)
    pages = [at for at, path in log if path != "/robots.txt"]
    gaps = [b - a for a, b in itertools.pairwise(pages)]
    assert len(gaps) >= 4
    assert min(gaps) >= 0.2  # Crawl-delay: 0.25 (one at a time, never sooner)


async def test_429_pauses_the_host_and_the_page_is_read_after_retry_after(
    site_settings: Callable[..., Settings], site: GeneratedSite
) -> None:
    site.state.reset()
    async with Client(site_settings(retries=0)) as client:  # the crawler's own backoff
        report = await client.crawl(site.url("/"), max_pages=500, max_depth=1)
    assert "/busy" in _kept(report)
    assert site.state.hits("crawl.test", "/busy") == 2
    log = site.state.knobs["log"]
    assert isinstance(log, list)
    busy = [at for at, path in log if path == "/busy"]
    assert busy[1] - busy[0] >= 0.9  # Retry-After: 1


@pytest.fixture(scope="module")
def slow_site() -> Iterator[GeneratedSite]:
    yield from serve_site(SiteSpec(pages=30, host="slow.crawl.test", latency=0.05))


@pytest.mark.parametrize("store", ["sqlite", pytest.param("redis", marks=pytest.mark.redis)])
async def test_two_workers_share_one_crawl_and_read_each_page_once(
    make_settings: Callable[..., Settings],
    slow_site: GeneratedSite,
    tmp_path: Path,
    store: str,
    request: pytest.FixtureRequest,
) -> None:
    """Two workers (two Clients) on one store: one claims the crawl, the other its helper
    job; both read from the one frontier, and no page is read twice."""
    url = (
        request.getfixturevalue("redis_url")
        if store == "redis"
        else f"sqlite:///{tmp_path / 'jobs.sqlite3'}"
    )
    slow_site.state.reset()
    settings = make_settings(
        resolve=slow_site.pins,
        allow_networks=["127.0.0.0/8"],
        jobs_url=url,
        job_lease=5.0,
        run_jobs=False,  # enqueue only: the workers run it
        worker_concurrency=1,  # one job each: the crawl and its helper land on both
    )
    params = CrawlParams(url=slow_site.url("/"), max_pages=500, max_depth=20, workers=2)
    async with Client(settings) as first, Client(settings) as second:
        workers = [first.worker(), second.worker()]
        async with anyio.create_task_group() as group:
            for worker in workers:
                group.start_soon(worker.run)
            job = await first.start_crawl(params)
            done = await first.wait_job(job.id, timeout=120)
            for worker in workers:
                worker.stop()
        assert done.status == "done"
        report = await first.crawl_report(done)
        rows = await first.frontier.results(job.id, limit=1000, kind="page")
    readers = {data["worker"] for _, _, data in rows}
    assert len(readers) == 2
    for n in range(slow_site.spec.pages):
        assert slow_site.state.hits("slow.crawl.test", f"/docs/{n}") == 1
    kept = set(_kept(report))
    # Two workers race to the calendar: /archive (depth 1) links 47 more months alike to the
    # entry month, and whichever of them is admitted first is kept, the rest collapse into it.
    assert expected_paths(slow_site.spec) - {CALENDAR_ENTRY} <= kept
    assert any(path.startswith("/calendar/") for path in kept)


class SlowExtraction(Fetcher):
    """Extraction that takes EXTRACTION seconds, noting when each page's began and ended."""

    EXTRACTION = 0.2

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.extracting: list[tuple[float, float]] = []

    async def _extract(
        self,
        body: bytes,
        *,
        content_type: str,
        url: str,
        format: ContentFormat,
        page_type: str,
        digest: Callable[[str, tuple[str, ...]], Any] | None = None,
        keep_hidden: bool = False,
    ) -> Content:
        started = time.monotonic()
        await anyio.sleep(self.EXTRACTION)
        content = await super()._extract(
            body,
            content_type=content_type,
            url=url,
            format=format,
            page_type=page_type,
            digest=digest,
            keep_hidden=keep_hidden,
        )
        self.extracting.append((started, time.monotonic()))
        return content


async def test_a_host_slot_is_given_back_when_the_body_is_in_not_after_extraction(
    site_settings: Callable[..., Settings], site: GeneratedSite
) -> None:
    """One request at a time to the host, extraction slow: the next request is asked while
    the page before is still being extracted (politeness limits requests, not our work)."""
    site.state.reset()
    async with Client(site_settings(crawl_host_concurrency=1)) as client:
        fetcher = SlowExtraction(client.settings, client.http, client.robots)
        crawler = Crawler(
            fetcher,
            client.robots,
            client.frontier,
            http=client.http,
            user_agent=client.settings.user_agent,
            respect_robots=True,
            fetch_timeout=client.settings.timeout,
            host_concurrency=1,
        )
        params = CrawlParams(url=site.url("/"), max_pages=6, max_depth=2)
        await crawler.seed("slow", params)
        await crawler.work("slow", params, worker="w")
        status = await client.frontier.status("slow")
    assert status["pages"] == 6
    log = site.state.knobs["log"]
    assert isinstance(log, list)
    asked = [at for at, path in log if path != "/robots.txt"]
    assert len(fetcher.extracting) >= 6
    # Held until the page was kept, the host's one slot would let no request in while a page
    # is extracted; given back with the body, the next is asked meanwhile.
    during = [at for at in asked if any(a < at < b for a, b in fetcher.extracting)]
    assert len(during) >= 2
