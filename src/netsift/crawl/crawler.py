"""Crawler: reads a site through the shared frontier, as many workers as the crawl allows.

A crawl starts from its seeds, each at depth 0: the start URL and, unless `sitemap="skip"`,
every URL in scope the site's sitemaps list (robots.txt's `Sitemap:` lines, else
/sitemap.xml; indexes followed, gzip inflated, as sitemaps.py reads them). `max_depth` counts
link hops from the nearest seed; `sitemap="only"` reads the sitemaps' URLs and follows no
link. A page's links past the depth are noted, never queued, so the report counts them.

Every URL passes the scope before it is queued and again at every redirect hop (a redirect
off the site is refused and reported, never followed), then robots.txt and the SSRF guard
inside the Fetcher (a link or redirect to a private address is refused by the guard, and
reported). Each page is a full `Page`, extracted in the compute pool. What a page yields is
admitted by the frontier in one transaction (exact hash, simhash bands, canonical URLs, the
page budget), so workers sharing a crawl never keep a page twice.

As a job, a crawl is the `crawl` kind (kind.py): its own job seeds, reads and publishes; its
helpers (`workers > 1`) read the same frontier from other workers.
"""

from __future__ import annotations

import logging
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import anyio
import anyio.lowlevel
import httpx

from ..errors import (
    HTTPError,
    InvalidInput,
    NetsiftError,
    NotFound,
    OutOfScope,
    error_from_dict,
)
from ..models import ContentFormat, Page
from ..net.guard import check_url, safe_url
from ..params import CrawlParams, FetchOptions, SitemapMode
from . import dedupe
from .frontier import HOST_BUSY_WAIT, IN_FLIGHT_WAIT, Entry, FrontierStore, Verdict
from .frontier.order import path_pattern, priority, query_words, relevance
from .frontier.rules import follows_links
from .politeness import DEFAULT_CONCURRENCY, MAX_RETRIES, RETRY_STATUSES, backoff, host_policy
from .scope import Scope, canonical_url, site_host

if TYPE_CHECKING:  # a Client registers the crawl kind without loading the fetch stack
    from ..compute import Compute
    from ..fetch.fetcher import Fetcher
    from ..net.http import HttpClient
    from ..net.robots import RobotsCache

__all__ = ["CRAWL_TASKS", "Crawler", "check_start"]

log = logging.getLogger(__name__)
# Fetches one worker keeps in flight across the crawl's hosts: the per-host politeness caps
# each host; this keeps the worker's event loop and the compute pool busy while pages
# download (extraction, not the network, is the bottleneck on a local site).
CRAWL_TASKS = 8
# Pages a worker works on per slot of a host: a page gives its host's slot back once its body
# is in, and is extracted and kept after (about as long again as the request at 50 ms), so
# twice the slots keeps every slot asking while the pages before are being kept.
TASKS_PER_SLOT = 2
# Longest a task waits before asking the frontier again (a page of this worker ending wakes
# it sooner; the claim's own wait bounds how late it sees another process's).
MAX_WAIT = 0.5
# An entry's claim outlives the slowest fetch by this much before another worker may take it.
LEASE_MARGIN = 30.0
# A page's digest (fingerprint and text sample) comes with its extraction (fetch's `Digest`,
# in the compute pool); one that came without (one the render step read again) is digested
# inline when its text is shorter than this (the fingerprint costs about 0.14 ms of CPU per
# 1,000 characters, so 7 ms at most): a pool round trip of its own (the text pickled there
# and back, a wakeup) cost 7-8 ms of wall time.
INLINE_FINGERPRINT = 50_000
# The most URLs a crawl takes from a site's sitemaps as seeds: one sitemap file's worth (the
# protocol's limit), five times the largest page budget (MAX_CRAWL_PAGES). A site that
# lists more is read from the first ones; its report counts the rest as never seen.
MAX_SITEMAP_SEEDS = 50_000
# Seeds made from a sitemap's URLs between two turns of the event loop: ~15 us each (the
# host, the priority, the entry; the sieve made the canonical form off the loop), so a run
# holds the loop ~1 ms, where 2,000 made in one go held it ~40-100 ms.
SEEDS_PER_TURN = 64
HELPER_CHECK = 1.0  # seconds between a helper's looks at whether its crawl has ended


@dataclass(frozen=True)
class Plan:
    """What a worker needs to judge one URL of a crawl, built from its params."""

    scope: Scope
    words: frozenset[str]
    max_depth: int
    respect_robots: bool
    format: ContentFormat = "markdown"
    sitemap: SitemapMode = "include"

    @classmethod
    def of(cls, params: CrawlParams, *, respect_robots: bool) -> Plan:
        scope = Scope.of(
            params.url, subdomains=params.subdomains, include=params.include, exclude=params.exclude
        )
        robots = respect_robots if params.respect_robots is None else params.respect_robots
        words = query_words(params.query)
        return cls(scope, words, params.max_depth, robots, params.format, params.sitemap)

    @property
    def follows_links(self) -> bool:
        """Whether pages' links are part of the crawl (not with `sitemap="only"`)."""
        return self.sitemap != "only"

    def seed(self, url: str, key: str | None = None) -> Entry | None:
        """`url` as a seed (depth 0); None when it is no usable URL. A seed has no path
        pattern: the start URL and the URLs a sitemap lists are pages the site named, read
        and kept as any page, never a trap's (a catalogue's listings, whose items the sitemap
        queued already, add nothing to their pattern and must still be read). `key` is its
        canonical form when already known (a sitemap's sieve made it)."""
        if key is None:
            try:
                key = canonical_url(url)
            except InvalidInput:
                return None
        score = priority(0, relevance(url, "", self.words))
        return Entry(key, url, site_host(url), 0, score)


def _skip(url: str, error: NetsiftError, **extra: Any) -> dict[str, Any]:
    return {"url": url, "code": error.code, "message": error.message, **extra}


def _trap(entry: Entry) -> dict[str, Any]:
    return {
        "url": entry.url,
        "code": "trap",
        "message": f"its path pattern {entry.pattern} is a trap: its last pages added no new "
        "text, only links to more of the same",
        "depth": entry.depth,
    }


async def check_start(robots: RobotsCache, params: CrawlParams, *, respect_robots: bool) -> None:
    """Raise the error that refuses a crawl's start URL, before anything is queued: a
    malformed URL (invalid_url), an address the guard refuses (blocked_address), a host that
    does not answer (dns_error, connect_error, timeout…), a start page robots.txt disallows
    (blocked_by_robots). Its robots.txt is read once, for the crawl too."""
    plan = Plan.of(params, respect_robots=respect_robots)
    if plan.respect_robots and plan.sitemap != "only":  # the start page itself is read
        await robots.check(params.url)  # the guard's verdict, an answer, robots.txt
        return
    rules = await robots.rules_for(check_url(params.url))  # the guard's verdict
    if rules.unreachable is not None:  # a fresh copy: one cached error, many raisers
        raise error_from_dict(rules.unreachable.to_dict())


class Crawler:
    def __init__(
        self,
        fetcher: Fetcher,
        robots: RobotsCache,
        frontier: FrontierStore,
        *,
        http: HttpClient,
        user_agent: str,
        respect_robots: bool,
        fetch_timeout: float,
        tasks: int = CRAWL_TASKS,
        compute: Compute | None = None,
        host_concurrency: int = DEFAULT_CONCURRENCY,
    ) -> None:
        self.compute = compute
        self.http = http
        self.fetch_timeout = fetch_timeout
        self.fetcher = fetcher
        self.robots = robots
        self.frontier = frontier
        self.user_agent = user_agent
        self.respect_robots = respect_robots
        self.lease = fetch_timeout + LEASE_MARGIN
        self.host_concurrency = host_concurrency
        # A worker alone can fill a host's slots (a crawl of one site keeps them busy).
        self.tasks = max(tasks, TASKS_PER_SLOT * host_concurrency)

    def plan(self, params: CrawlParams) -> Plan:
        return Plan.of(params, respect_robots=self.respect_robots)

    async def seed(self, crawl: str, params: CrawlParams) -> None:
        """Record the budgets and queue the seeds: the start URL and the sitemaps' URLs in
        scope (both once, however often the crawl is resumed)."""
        plan = self.plan(params)
        # The start URL is read even when its path matches no include pattern (a site's home,
        # crawled for its /docs/ pages): it is read for its links and not kept (Firecrawl's
        # rule too). Only its site is given.
        if (why := plan.scope.site_refusal(params.url)) is not None:
            raise InvalidInput(f"the start URL is outside the crawl's own scope: {why}")
        await self.frontier.start(
            crawl, max_pages=params.max_pages, max_bytes=params.max_bytes, deadline=params.deadline
        )
        if (await self.frontier.status(crawl))["seen"]:
            return  # seeded before it was resumed (the seeds are added in one write)
        start = plan.seed(params.url) if plan.sitemap != "only" else None
        seeds = [start] if start is not None else []
        if plan.sitemap != "skip":
            with anyio.move_on_after(params.deadline):
                seeds += await self._sitemap_seeds(params, plan)
        if not seeds:
            raise NotFound(
                f"the sitemaps of {safe_url(params.url)} list no URL in the crawl's scope, and "
                'sitemap="only" reads nothing else',
                details={"url": safe_url(params.url)},
            )
        await self.frontier.add(crawl, seeds)

    async def _sitemap_seeds(self, params: CrawlParams, plan: Plan) -> list[Entry]:
        """The URLs in scope the site's sitemaps list, as seeds (robots.txt and the guard
        are asked when each is fetched, as for a link)."""
        from ..fetch.links import absolute_url
        from .sitemaps import Sieve, SitemapReader, Via

        origin = str(check_url(params.url).copy_with(path="/", query=None, fragment=None))
        try:
            rules = await self.robots.rules_for(check_url(origin + "robots.txt"))
        except NetsiftError:
            return []  # the start page's own read says what is wrong with the site
        roots: list[tuple[str, Via]] = []
        for line in rules.sitemaps:
            if (url := absolute_url(line, origin)) is not None:
                roots.append((url, "robots"))
        roots = roots or [(origin + "sitemap.xml", "guess")]

        async def on_hop(hop: httpx.URL) -> None:
            if plan.respect_robots:
                await self.robots.check(str(hop))

        site = Scope.of(params.url, subdomains=params.subdomains)
        reader = SitemapReader(
            self.http,
            site,
            on_hop=on_hop,
            timeout=self.fetch_timeout,
            max_urls=MAX_SITEMAP_SEEDS,
            compute=self.compute,
            sieve=Sieve(scope=plan.scope),  # the scope and canonical form, where it is parsed
        )
        await reader.read(roots)
        seeds = []
        for n, listed in enumerate(reader.listed, 1):
            if (entry := plan.seed(listed.url, listed.key)) is not None:
                seeds.append(entry)
            if n % SEEDS_PER_TURN == 0:
                await anyio.lowlevel.checkpoint()  # the loop answers between two runs
        return seeds

    async def work(
        self,
        crawl: str,
        params: CrawlParams,
        *,
        worker: str,
        ended: Callable[[], Any] | None = None,
    ) -> None:
        """Claim and read the crawl's URLs with `tasks` fetches in flight until it is over."""
        plan = self.plan(params)
        known: set[str] = set()
        # A task of this worker that gives a host slot back (or ends a page that held one to
        # the end) wakes one waiting task, which claims at once instead of sleeping out the
        # claim's wait (that bounds waits on other processes). While the queue ran dry
        # (`starved`), a page's end wakes one too (its links are queued) and each task that
        # claims wakes the next. A task that ends a page while others wait queues behind them
        # instead of claiming. Waking every waiting task, and claiming after each page, made
        # a page cost 7 claims, 5 of them in vain (the host's slots were full).
        waiting = _Waiting()
        starved = [False]

        async def task() -> None:
            checked = time.monotonic()
            finished = False
            released = [False]  # whether the page being read gave its host's slot back

            def freed() -> None:
                released[0] = True
                waiting.wake()

            while True:
                if ended is not None and time.monotonic() - checked > HELPER_CHECK:
                    checked = time.monotonic()
                    if await ended():
                        return
                if finished and waiting.waiting:
                    finished = False
                    await waiting.wait(HOST_BUSY_WAIT)
                    continue
                claim = await self.frontier.claim(crawl, worker, lease=self.lease)
                if claim.over:
                    return
                if claim.entry is None:
                    finished = False
                    starved[0] = claim.wait == IN_FLIGHT_WAIT
                    await waiting.wait(min(claim.wait or MAX_WAIT, MAX_WAIT))
                    continue
                if starved[0]:
                    waiting.wake()
                released[0] = False
                try:
                    if claim.trapped:
                        await self._skipped(crawl, claim.entry, _trap(claim.entry))
                    else:
                        await self._read(crawl, claim.entry, plan, worker, known, freed)
                except Exception:  # one page's surprise must not end the whole crawl
                    log.exception("crawl %s: reading %s failed", crawl, claim.entry.url)
                    error = NetsiftError(f"reading {claim.entry.url} failed unexpectedly")
                    await self._skipped(crawl, claim.entry, _skip(claim.entry.url, error))
                if starved[0] or not released[0]:
                    waiting.wake()
                finished = True

        async with anyio.create_task_group() as group:
            for _ in range(self.tasks):
                group.start_soon(task)

    async def _politeness(self, crawl: str, entry: Entry, plan: Plan, known: set[str]) -> None:
        """Set the host's delay and concurrency from its robots.txt (once per worker)."""
        if entry.host in known:
            return
        known.add(entry.host)
        delay = None
        if plan.respect_robots:
            try:
                rules = await self.robots.rules_for(httpx.URL(entry.url))
            except NetsiftError:
                rules = None  # the fetch itself reports what is wrong with the host
            if rules is not None and rules.parser is not None:
                delay = rules.parser.crawl_delay(self.user_agent)
        policy = host_policy(delay, concurrency=self.host_concurrency)
        await self.frontier.host_policy(
            crawl, entry.host, delay=policy.delay, concurrency=policy.concurrency
        )

    async def _read(
        self,
        crawl: str,
        entry: Entry,
        plan: Plan,
        worker: str,
        known: set[str],
        wake: Callable[[], None],
    ) -> None:
        try:
            await self._politeness(crawl, entry, plan, known)

            # the start page read only for its links: held to the site, not the patterns
            refusal = plan.scope.site_refusal if _entrance(entry, plan) else plan.scope.refusal

            async def in_scope(hop: str) -> None:
                if (why := refusal(hop)) is not None:
                    raise OutOfScope(
                        f"{hop} is outside the crawl: {why}", details={"url": hop, "reason": why}
                    )

            async def downloaded() -> None:
                # The host is done with this request: its slot goes to the next one while
                # this page is extracted and kept (its claim holds until `done`).
                await self.frontier.release_host(crawl, entry.key, worker)
                wake()

            from ..fetch.content import Digest  # the fetch stack is loaded by now
            from ..fetch.fetcher import FetchHooks

            digest = Digest(dedupe.page_digest)
            page = await self.fetcher.fetch(
                FetchOptions(
                    url=entry.url,
                    format=plan.format,
                    respect_robots=plan.respect_robots,
                    no_cache=True,
                    render="never",
                ),
                FetchHooks(on_hop=in_scope, on_downloaded=downloaded, digest=digest),
            )
        except HTTPError as exc:
            if exc.status_code in RETRY_STATUSES and entry.tries < MAX_RETRIES:
                wait = backoff(exc.details.get("retry_after"), entry.tries + 1)
                await self.frontier.pause_host(crawl, entry.host, wait)
                await self.frontier.retry(crawl, entry.key, worker)
                return
            await self._skipped(crawl, entry, _skip(entry.url, exc, depth=entry.depth))
            return
        except NetsiftError as exc:
            await self._skipped(crawl, entry, _skip(entry.url, exc, depth=entry.depth))
            return
        await self._keep(crawl, entry, page, plan, worker, digest.value)

    async def _skipped(
        self, crawl: str, entry: Entry, data: dict[str, Any], verdict: Verdict | None = None
    ) -> None:
        await self.frontier.done(
            crawl, entry.key, "", skipped={**data, "url": entry.url}, verdict=verdict
        )

    async def _keep(
        self,
        crawl: str,
        entry: Entry,
        page: Page,
        plan: Plan,
        worker: str,
        digest: dedupe.PageDigest | None,
    ) -> None:
        if _entrance(entry, plan):
            await self._pass_through(crawl, entry, page, plan, worker)
            return
        keys = [entry.key, canonical_url(page.final_url)]
        canonical = page.metadata.canonical
        if canonical and plan.scope.allows(canonical):
            keys.append(canonical_url(canonical))
        if digest is None:  # not computed with the extraction (the render step read it)
            anchors = tuple(link.text for link in page.links)
            if self.compute is not None and len(page.content) > INLINE_FINGERPRINT:
                what = f"the digest of {page.final_url}"
                digest = await self.compute.run(
                    dedupe.page_digest, page.content, anchors, what=what
                )
            else:
                digest = dedupe.page_digest(page.content, anchors)
        sketch = digest.sketch
        pattern = entry.pattern
        data: dict[str, Any] = {"depth": entry.depth, "parent": entry.parent, "worker": worker}
        data["page"] = page.model_dump(mode="json")
        admission = await self.frontier.admit(
            crawl,
            keys=sorted(set(keys)),
            url=page.final_url,
            content_hash=digest.content_hash,
            bands=dedupe.bands(sketch, page.title or "") if sketch is not None else [],
            sketch=sketch,
            size=page.bytes,
            page=data,
            pattern=pattern,
            sample=digest.sample,
        )
        if admission.duplicate_of is not None:  # it added nothing to its pattern
            skip = {
                "url": entry.url,
                "code": "duplicate",
                "message": f"the same page as {admission.duplicate_of}",
                "duplicate_of": admission.duplicate_of,
                "depth": entry.depth,
            }
            await self._skipped(crawl, entry, skip, Verdict(pattern, new_text=False))
            return
        if admission.full:
            await self.frontier.done(crawl, entry.key, worker)
            return
        held = page.final_url if admission.held else None
        verdict = Verdict(pattern, admission.new_text, held)
        follow = follows_links(pattern, admission)
        await self._finish(crawl, entry, page, plan, worker, verdict=verdict, follow=follow)

    async def _pass_through(
        self, crawl: str, entry: Entry, page: Page, plan: Plan, worker: str
    ) -> None:
        """The start page outside the path patterns: its links are followed, it is not kept,
        and the report says why it is not among the pages."""
        why = plan.scope.refusal(entry.url)
        error = OutOfScope(f"{entry.url} was read for its links only: {why}")
        skipped = _skip(entry.url, error, depth=entry.depth, links_only=True)
        await self._finish(crawl, entry, page, plan, worker, skipped=skipped)

    async def _finish(
        self,
        crawl: str,
        entry: Entry,
        page: Page,
        plan: Plan,
        worker: str,
        *,
        skipped: dict[str, Any] | None = None,
        verdict: Verdict | None = None,
        follow: bool = True,
    ) -> None:
        """End the claim, queueing the page's links when the depth allows (noting them past
        it) and they are followed (`follow`: not a loop copy's), and judge the page for its
        pattern (one transaction)."""
        links: list[Entry] = []
        refused: list[tuple[Entry, dict[str, Any]]] = []
        beyond: list[str] = []
        if plan.follows_links and follow:
            links, refused = self._follow(entry, page, plan)
        if entry.depth >= plan.max_depth:  # its links stay unread: counted, not queued
            beyond, links, refused = [link.key for link in links], [], []
        await self.frontier.done(
            crawl,
            entry.key,
            worker,
            links=links,
            refused=refused,
            skipped=skipped,
            verdict=verdict,
            beyond=beyond,
        )

    @staticmethod
    def _follow(
        entry: Entry, page: Page, plan: Plan
    ) -> tuple[list[Entry], list[tuple[Entry, dict[str, Any]]]]:
        """The page's links to queue (in scope), and those refused with their `skipped` data
        (reported once each). A trap's are queued too: the frontier hands them out to be
        ended as `trap`, so the report counts what the trap left unread."""
        queued: list[Entry] = []
        refused: list[tuple[Entry, dict[str, Any]]] = []
        depth = entry.depth + 1
        for link in page.links:
            try:
                key = canonical_url(link.url)
            except InvalidInput:
                continue
            why = plan.scope.refusal(link.url)
            score = relevance(link.url, link.text, plan.words)
            shape = path_pattern(link.url)
            candidate = Entry(
                key, link.url, site_host(link.url), depth, priority(depth, score), entry.url,
                pattern=shape,
            )  # fmt: skip
            if why is None:
                queued.append(candidate)
            else:
                error = OutOfScope(f"{link.url} is outside the crawl: {why}")
                refused.append((candidate, _skip(link.url, error, depth=depth)))
        return queued, refused


class _Waiting:
    """Tasks waiting for a claim to be worth trying again, woken one at a time.

    One of them (the watcher) waits only as long as the claim said, for what other
    processes free; the rest wait up to MAX_WAIT unless woken: with every idle task polling
    the store each HOST_BUSY_WAIT, most claims (5 in 7 a page) were in vain."""

    def __init__(self) -> None:
        self._events: deque[anyio.Event] = deque()
        self._watched = False

    async def wait(self, seconds: float) -> None:
        event = anyio.Event()
        self._events.append(event)
        watching, self._watched = not self._watched, True
        try:
            with anyio.move_on_after(seconds if watching else MAX_WAIT):
                await event.wait()
        finally:
            if watching:
                self._watched = False
            if not event.is_set():
                self._events.remove(event)

    @property
    def waiting(self) -> bool:
        return bool(self._events)

    def wake(self) -> None:
        if self._events:
            self._events.popleft().set()


def _entrance(entry: Entry, plan: Plan) -> bool:
    """Whether `entry` is the start URL outside the crawl's path patterns (read, not kept)."""
    return entry.depth == 0 and plan.scope.refusal(entry.url) is not None
