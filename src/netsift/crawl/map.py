"""Mapper: a site's URLs, fast, without reading every page.

Four sources, read through the same guard, caps and robots.txt as a fetch: the sitemaps
robots.txt names (or `/sitemap.xml` when it names none), their indexes, the RSS/Atom feeds the
start page announces, and the start page's links. Every URL is listed once (by
`canonical_url`), with where it was found, its `lastmod` and title when a source said them;
URLs outside the scope, disallowed by robots.txt or past the limit are left out and counted.
With a query, the URLs are ranked by BM25 over the words of their path and title (the
ranker search uses), so "the pricing pages" come first.

Bounded however large the site: sitemaps are parsed off the event loop and stop once `limit`
URLs are in hand (without a query; with one, at `MAX_CANDIDATES`, as ranking needs them all),
ranking runs in the compute pool, and the loop merges what they found a slice at a time.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

import anyio
import anyio.lowlevel
import anyio.to_thread
import httpx
from protego import Protego

from ..config import Settings
from ..errors import (
    BlockedAddress,
    ConnectError,
    DNSError,
    InvalidInput,
    NetsiftError,
    TLSError,
    error_from_dict,
)
from ..fetch.fetcher import Fetcher
from ..fetch.links import absolute_url
from ..models import MapLink, MapResult, MapSource, Page
from ..net.guard import check_url, safe_url
from ..net.http import HttpClient
from ..net.robots import RobotsCache, RobotsRules
from ..params import FetchOptions, MapOptions
from .feeds import feed_links
from .map_rank import joined, ranked
from .scope import Scope, canonical_url
from .sitemap_parse import key_origin
from .sitemaps import Sieve, SitemapReader, Via, origin_of

if TYPE_CHECKING:
    from ..compute import Compute

__all__ = ["MAP_TIMEOUT", "MAX_CANDIDATES", "MAX_ROBOTS_ORIGINS", "Mapper"]

# The whole map's time when the caller gives none: enough for robots.txt, a start page, a
# feed and a few dozen sitemaps on a slow site; what was found by then is answered.
MAP_TIMEOUT = 60.0
# URLs gathered before filtering and ranking: 2 sitemaps of the protocol's 50,000. A site with
# more is bounded here, and the result says so.
MAX_CANDIDATES = 100_000
# Origins whose robots.txt is read to filter the URLs (subdomains each have their own);
# URLs of further origins are left out rather than listed unchecked.
MAX_ROBOTS_ORIGINS = 20
# Start-page errors that mean the site cannot be mapped at all (the guard refused it, or it
# cannot be reached); any other failure of the start page leaves the sitemaps to answer.
FATAL = (BlockedAddress, InvalidInput, DNSError, ConnectError, TLSError)
# Candidates merged between two turns of the event loop: a candidate costs up to ~80 µs
# (canonical form, scope, robots), so a slice holds the loop about a millisecond.
SLICE = 16
# URLs and titles joined for the ranking between two turns of the loop: about 1 ms of work.
JOIN_SLICE = 2_000
# Links of the answer built between two turns of the loop: a MapLink is validated in ~4 µs
# alone, ~25 µs in py-spy's samples of a loaded server during limit-1000 maps (where building
# them was the loop's largest cost): 64 keep a slice near a millisecond even there (1,000
# built in one go held the loop ~4 ms on a quiet core).
LINK_SLICE = 64


@dataclass(frozen=True)
class _Candidate:
    url: str
    source: MapSource
    found_in: str
    lastmod: str | None = None
    title: str | None = None
    key: str | None = None  # the canonical form, when a sitemap's sieve made it
    checked: bool = False  # the sieve checked its scope and robots.txt


@dataclass
class _Found:
    """The URLs a map keeps, in the order found: a column per field, holding only strings
    (and None), and where each canonical URL is. A query map keeps 50,000: as objects they
    were enough for a full collection during the merge, which walked them all (~20-30 ms of
    the loop's); strings the collector never walks."""

    at: dict[str, int] = field(default_factory=dict)  # canonical URL: its row
    urls: list[str] = field(default_factory=list)
    sources: list[MapSource] = field(default_factory=list)
    found_in: list[str] = field(default_factory=list)
    lastmods: list[str | None] = field(default_factory=list)
    titles: list[str | None] = field(default_factory=list)

    def add(self, key: str, candidate: _Candidate) -> None:
        self.at[key] = len(self.urls)
        self.urls.append(candidate.url)
        self.sources.append(candidate.source)
        self.found_in.append(candidate.found_in)
        self.lastmods.append(candidate.lastmod)
        self.titles.append(candidate.title)

    def complete(self, row: int, again: _Candidate) -> None:
        """A URL found again keeps its first source and gains what the later one knew."""
        self.lastmods[row] = self.lastmods[row] or again.lastmod
        self.titles[row] = self.titles[row] or again.title


class Mapper:
    """Maps sites for one Client: its HttpClient, robots cache and Fetcher."""

    def __init__(
        self,
        settings: Settings,
        http: HttpClient,
        robots: RobotsCache,
        fetcher: Fetcher,
        *,
        compute: Compute | None = None,
    ) -> None:
        self._settings = settings
        self._http = http
        self._robots = robots
        self._fetcher = fetcher
        self._compute = compute

    async def map(self, params: MapOptions) -> MapResult:
        started = time.perf_counter()
        start = str(check_url(params.url))
        scope = Scope.of(
            start, subdomains=params.subdomains, include=params.include, exclude=params.exclude
        )
        run = _Run(self, params, start, Scope.of(start, subdomains=params.subdomains), scope)
        deadline = params.timeout or MAP_TIMEOUT
        with anyio.move_on_after(deadline) as timer:
            try:
                async with anyio.create_task_group() as group:
                    if params.sitemaps != "only":
                        group.start_soon(run.read_start_page)
                    if params.sitemaps != "skip":
                        group.start_soon(run.read_sitemaps)
            except BaseExceptionGroup as failed:  # the site cannot be mapped: say why, once
                raise _first(failed) from None
        if timer.cancelled_caught:
            run.stopped.append(f"the map's time limit of {deadline:g}s")
        result = await self._assemble(run, scope)
        result.elapsed_ms = round((time.perf_counter() - started) * 1000, 1)
        return result

    async def _assemble(self, run: _Run, scope: Scope) -> MapResult:
        params = run.params
        left_out = {"robots": 0, "scope": 0, "duplicate": 0, "invalid": 0, "limit": 0}
        if run.reader is not None:
            for reason, count in run.reader.left_out.items():
                left_out[reason] = left_out.get(reason, 0) + count
        found = _Found()
        checker = _RobotsChecker(self._robots, enabled=run.respect_robots)
        for n, candidate in enumerate(run.candidates()):
            if n % SLICE == 0:
                await anyio.lowlevel.checkpoint()  # the loop answers between two slices
            key = candidate.key
            if key is None:
                try:
                    check_url(candidate.url)  # the guard's parser, before anything decodes it
                    key = canonical_url(candidate.url)
                except NetsiftError:
                    left_out["invalid"] += 1
                    continue
            if (known := found.at.get(key)) is not None:
                left_out["duplicate"] += 1
                found.complete(known, candidate)
                continue
            if not candidate.checked:
                if scope.refusal(candidate.url) is not None:
                    left_out["scope"] += 1
                    continue
            if not (candidate.checked and run.robots_checked(key)):
                if not await checker.allows(candidate.url):
                    left_out["robots"] += 1
                    continue
            found.add(key, candidate)
        order: list[tuple[int, float | None]]
        if params.query:
            order = list(await self._rank(params.query, found, params.limit))
        else:
            order = [(index, None) for index in range(min(len(found.urls), params.limit))]
        links: list[MapLink] = []
        for n, (index, score) in enumerate(order):
            if n % LINK_SLICE == 0:
                await anyio.lowlevel.checkpoint()
            links.append(
                MapLink(
                    url=found.urls[index],
                    source=found.sources[index],
                    found_in=found.found_in[index],
                    lastmod=found.lastmods[index],
                    title=found.titles[index],
                    score=score,
                )
            )
        left_out["limit"] = max(0, len(found.urls) - params.limit)
        if checker.skipped_origins:
            run.warnings.append(
                f"robots.txt was read for {MAX_ROBOTS_ORIGINS} origins only; URLs of "
                f"{checker.skipped_origins} more were left out (counted under robots)"
            )
        return MapResult(
            url=params.url,
            links=links,
            found=len(found.urls),
            sitemaps=run.reader.reports if run.reader else [],
            feeds=run.feeds,
            left_out=left_out,
            stopped_because=[*(run.reader.stopped if run.reader else []), *run.stopped],
            warnings=run.warnings,
        )

    async def _rank(self, query: str, found: _Found, limit: int) -> list[tuple[int, float]]:
        """The best `limit` of `found` for `query` (index, score), ranked off the loop."""
        if not found.urls:  # nothing to rank (and "".split() would be one empty document)
            return []
        urls, titles = await _joined(found)
        if self._compute is None:
            return await anyio.to_thread.run_sync(ranked, query, urls, titles, limit)
        return await self._compute.run(ranked, query, urls, titles, limit, what="the ranking")


class _Run:
    """One map's discovery: what each source found, in a fixed order (so two runs agree)."""

    def __init__(
        self, mapper: Mapper, params: MapOptions, start: str, site: Scope, scope: Scope
    ) -> None:
        self.mapper = mapper
        self.params = params
        self.start = start
        self.site = site
        self.scope = scope
        self.robots_origins: frozenset[str] = frozenset()  # whose rules the sieve applied
        settings = mapper._settings
        self.respect_robots = (
            settings.respect_robots if params.respect_robots is None else params.respect_robots
        )
        self.page: Page | None = None
        self.page_found: list[_Candidate] = []
        self.feed_found: list[_Candidate] = []
        self.feeds: list[str] = []
        self.reader: SitemapReader | None = None
        self.stopped: list[str] = []
        self.warnings: list[str] = []

    def candidates(self) -> Iterable[_Candidate]:
        """The start page first, then sitemaps, feeds and the page's links."""
        yield from self.page_found[:1]
        if self.reader is not None:
            for listed in self.reader.listed:
                source: MapSource = "robots" if listed.from_robots else "sitemap"
                yield _Candidate(
                    listed.url,
                    source,
                    listed.sitemap,
                    listed.lastmod,
                    key=listed.key,
                    checked=listed.key is not None,
                )
        yield from self.feed_found
        yield from self.page_found[1:]

    async def read_start_page(self) -> None:
        fetcher = self.mapper._fetcher
        try:
            page = await fetcher.fetch(
                FetchOptions(
                    url=self.start,
                    max_length=1,
                    respect_robots=self.respect_robots,
                    keep_source=True,  # its feed links are read from the source
                )
            )
        except FATAL:
            raise
        except NetsiftError as exc:
            self.warnings.append(f"the start page was not read: {exc.message} ({exc.code})")
            return
        self.page = page
        self.page_found.append(_Candidate(page.final_url, "page", self.start, title=page.title))
        self.page_found.extend(
            _Candidate(link.url, "page", page.final_url, title=link.text or None)
            for link in page.links
        )
        if page.page_type == "feed" or not page.source:
            return
        for feed in feed_links(page.source, page.final_url):
            await self._read_feed(feed)

    async def _read_feed(self, url: str) -> None:
        shown = safe_url(url)
        if reason := self.site.refusal(url):
            self.warnings.append(f"the feed {shown} was not read: {reason}")
            return
        try:
            feed = await self.mapper._fetcher.fetch(
                FetchOptions(url=url, max_length=1, respect_robots=self.respect_robots)
            )
        except NetsiftError as exc:
            self.warnings.append(f"the feed {shown} was not read: {exc.message} ({exc.code})")
            return
        self.feeds.append(shown)
        self.feed_found.extend(
            _Candidate(entry.url, "feed", shown, lastmod=entry.published, title=entry.title)
            for entry in feed.entries
            if entry.url
        )

    async def read_sitemaps(self) -> None:
        mapper = self.mapper
        origin = _origin(self.start)
        rules = await mapper._robots.rules_for(check_url(origin + "/robots.txt"))
        if rules.unreachable is not None:  # the site is down: a fresh copy of its error
            raise error_from_dict(rules.unreachable.to_dict())
        roots: list[tuple[str, Via]] = []
        for line in rules.sitemaps:
            if (url := absolute_url(line, origin + "/")) is not None:
                roots.append((url, "robots"))
        if not roots:
            roots.append((origin + "/sitemap.xml", "guess"))

        robots, respect = mapper._robots, self.respect_robots

        async def on_hop(hop: httpx.URL) -> None:
            # closes over locals, not `self`: the reader holds this hook, and a hook that held
            # the run would make run and reader a cycle, its 50,000 URLs left for a full
            # collection (~40 ms of the loop's) instead of freed when the map returns
            if respect:
                await robots.check(str(hop))

        known: dict[str, Protego | bool] = {}
        if self.respect_robots:  # the site's own rules go to the sieve; others are checked here
            known[origin_of(origin)] = rules.parser if rules.parser is not None else rules.allow_all
        self.robots_origins = frozenset(known)
        # Without a query the first `limit` URLs are the answer: reading stops once they are
        # in hand. A ranking needs every candidate, up to the bound.
        want = MAX_CANDIDATES if self.params.query else self.params.limit
        self.reader = SitemapReader(
            mapper._http,
            self.site,
            on_hop=on_hop,
            timeout=mapper._settings.timeout,
            max_urls=want,
            compute=mapper._compute,
            sieve=Sieve(scope=self.scope, robots=known, user_agent=mapper._robots.user_agent),
        )
        await self.reader.read(roots)

    def robots_checked(self, key: str) -> bool:
        """Whether the sieve applied robots.txt to the URL of canonical form `key`."""
        return key_origin(key) in self.robots_origins


class _RobotsChecker:
    """robots.txt verdicts for the URLs of a map, one robots.txt per origin."""

    def __init__(self, robots: RobotsCache, *, enabled: bool) -> None:
        self._robots = robots
        self._enabled = enabled
        self._rules: dict[str, RobotsRules | None] = {}
        self.skipped_origins = 0

    async def allows(self, url: str) -> bool:
        if not self._enabled:
            return True
        origin = _origin(url)
        if origin not in self._rules:
            if len(self._rules) >= MAX_ROBOTS_ORIGINS:
                self.skipped_origins += 1
                self._rules[origin] = None
            else:
                try:
                    self._rules[origin] = await self._robots.rules_for(check_url(url))
                except NetsiftError:
                    self._rules[origin] = None
        rules = self._rules[origin]
        return rules is not None and rules.allows(url, self._robots.user_agent)


async def _joined(found: _Found) -> tuple[str, str]:
    """The URLs and titles found as `ranked` takes them, joined a slice at a time with the
    loop answering between two (50,000 titles normalized in one go held it ~30 ms)."""
    urls: list[str] = []
    titles: list[str] = []
    for start in range(0, len(found.urls), JOIN_SLICE):
        end = start + JOIN_SLICE
        some_urls, some_titles = joined(found.urls[start:end], found.titles[start:end])
        urls.append(some_urls)
        titles.append(some_titles)
        await anyio.lowlevel.checkpoint()
    return "\n".join(urls), "\n".join(titles)


def _first(group: BaseExceptionGroup[BaseException]) -> BaseException:
    """The first error a task group collected (both tasks may fail on one unreachable site)."""
    error: BaseException = group
    while isinstance(error, BaseExceptionGroup):
        error = error.exceptions[0]
    return error


def _origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme.lower()}://{parts.netloc.lower()}"
