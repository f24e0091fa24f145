"""Crawler: reads a site through the shared frontier, as many workers as the crawl allows.

Every URL passes the scope before it is queued and again at every redirect hop (a redirect
off the site is refused and reported, never followed), then robots.txt and the SSRF guard
inside the Fetcher (a link or redirect to a private address is refused by the guard, and
reported). Each page is a full `Page`, extracted in the compute pool. What a page yields is
admitted by the frontier in one transaction (exact hash, simhash bands, canonical URLs, the
page budget), so workers sharing a crawl never keep a page twice.

As a job (`crawl_kind`): the crawl's own job seeds the frontier, reads, and publishes the
frontier's results as `page` and `skipped` events, checkpointing how far it published; with
`workers > 1` it also queues helper jobs (params `of` = the crawl's id) that any `netsift
worker` claims and that read from the same frontier until it is exhausted.
"""

from __future__ import annotations

import logging
import time
from collections import deque
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import anyio
import httpx
from anyio.abc import TaskGroup

from ..errors import HTTPError, InvalidInput, NetsiftError, OutOfScope
from ..jobs.executor import Executor
from ..jobs.kinds import JobContext, Kind, Outcome
from ..jobs.model import Job
from ..jobs.store import JobStore
from ..models import ContentFormat, CrawlReport, CrawlSkip, Event, Page
from ..params import CrawlParams
from ..research.runner import ResearchRunner
from ..usage import caller_key
from . import dedupe
from .frontier import HOST_BUSY_WAIT, IN_FLIGHT_WAIT, Entry, FrontierStore, Verdict
from .frontier.order import path_pattern, priority, query_words, relevance
from .politeness import DEFAULT_CONCURRENCY, MAX_RETRIES, RETRY_STATUSES, backoff, host_policy
from .scope import Scope, canonical_url, site_host

if TYPE_CHECKING:  # a Client registers the crawl kind without loading the fetch stack
    from ..compute import Compute
    from ..fetch.fetcher import Fetcher
    from ..net.robots import RobotsCache

__all__ = ["CRAWL_TASKS", "CrawlRunner", "Crawler", "build_crawl_partial", "crawl_kind"]

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
PUBLISH_EVERY = 0.2  # seconds between publishing rounds of the crawl's own job
PUBLISH_BATCH = 200
# A page's fingerprint comes with its extraction (fetch's `Digest`, in the compute pool); one
# that came without (one the render step read again) is fingerprinted inline when its text is
# shorter than this (about 0.14 ms of CPU per 1,000 characters, so 7 ms at most): a pool
# round trip of its own (the text pickled there and back, a wakeup) cost 7-8 ms of wall time.
INLINE_FINGERPRINT = 50_000
HELPER_CHECK = 1.0  # seconds between a helper's looks at whether its crawl has ended


@dataclass(frozen=True)
class Plan:
    """What a worker needs to judge one URL of a crawl, built from its params."""

    scope: Scope
    words: frozenset[str]
    max_depth: int
    respect_robots: bool
    format: ContentFormat = "markdown"

    @classmethod
    def of(cls, params: CrawlParams, *, respect_robots: bool) -> Plan:
        scope = Scope.of(
            params.url, subdomains=params.subdomains, include=params.include, exclude=params.exclude
        )
        robots = respect_robots if params.respect_robots is None else params.respect_robots
        return cls(scope, query_words(params.query), params.max_depth, robots, params.format)


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


class Crawler:
    def __init__(
        self,
        fetcher: Fetcher,
        robots: RobotsCache,
        frontier: FrontierStore,
        *,
        user_agent: str,
        respect_robots: bool,
        fetch_timeout: float,
        tasks: int = CRAWL_TASKS,
        compute: Compute | None = None,
        host_concurrency: int = DEFAULT_CONCURRENCY,
    ) -> None:
        self.compute = compute
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
        """Record the budgets and queue the start URL (both once, however often resumed)."""
        plan = self.plan(params)
        # The start URL is read even when its path matches no include pattern (a site's home,
        # crawled for its /docs/ pages): it is read for its links and not kept (Firecrawl's
        # rule too). Only its site is given.
        if (why := plan.scope.site_refusal(params.url)) is not None:
            raise InvalidInput(f"the start URL is outside the crawl's own scope: {why}")
        await self.frontier.start(
            crawl, max_pages=params.max_pages, max_bytes=params.max_bytes, deadline=params.deadline
        )
        key = canonical_url(params.url)
        entry = Entry(key, params.url, site_host(params.url), pattern=path_pattern(params.url))
        await self.frontier.add(crawl, [entry])

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

            digest = Digest(dedupe.fingerprint)
            page = await self.fetcher.fetch(
                entry.url,
                format=plan.format,
                respect_robots=plan.respect_robots,
                no_cache=True,
                render="never",
                on_hop=in_scope,
                on_downloaded=downloaded,
                digest=digest,
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
        fingerprint: tuple[str, int | None] | None,
    ) -> None:
        if _entrance(entry, plan):
            await self._pass_through(crawl, entry, page, plan, worker)
            return
        keys = [entry.key, canonical_url(page.final_url)]
        canonical = page.metadata.canonical
        if canonical and plan.scope.allows(canonical):
            keys.append(canonical_url(canonical))
        if fingerprint is not None:  # computed with the extraction, in the compute pool
            digest, sketch = fingerprint
        elif self.compute is not None and len(page.content) > INLINE_FINGERPRINT:
            what = f"the fingerprint of {page.final_url}"
            digest, sketch = await self.compute.run(dedupe.fingerprint, page.content, what=what)
        else:
            digest, sketch = dedupe.fingerprint(page.content)
        # What the page adds to its pattern is judged on its text outside its links.
        anchors = [link.text for link in page.links]
        if self.compute is not None and len(page.content) > INLINE_FINGERPRINT:
            what = f"the text sample of {page.final_url}"
            sample = await self.compute.run(dedupe.text_sample, page.content, anchors, what=what)
        else:
            sample = dedupe.text_sample(page.content, anchors)
        pattern = path_pattern(entry.url)
        data: dict[str, Any] = {"depth": entry.depth, "parent": entry.parent, "worker": worker}
        data["page"] = page.model_dump(mode="json")
        admission = await self.frontier.admit(
            crawl,
            keys=sorted(set(keys)),
            url=page.final_url,
            content_hash=digest,
            bands=dedupe.bands(sketch) if sketch is not None else [],
            sketch=sketch,
            size=page.bytes,
            page=data,
            pattern=pattern,
            sample=sample,
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
        verdict = Verdict(pattern, admission.new_text)
        await self._finish(crawl, entry, page, plan, worker, verdict=verdict)

    async def _pass_through(
        self, crawl: str, entry: Entry, page: Page, plan: Plan, worker: str
    ) -> None:
        """The start page outside the path patterns: its links are followed, it is not kept,
        and the report says why it is not among the pages."""
        why = plan.scope.refusal(entry.url)
        error = OutOfScope(f"{entry.url} was read for its links only: {why}")
        skipped = _skip(entry.url, error, depth=entry.depth)
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
    ) -> None:
        """End the claim, queueing the page's links when the depth allows, and judge the page
        for its pattern (one transaction)."""
        links: list[Entry] = []
        refused: list[tuple[Entry, dict[str, Any]]] = []
        if entry.depth < plan.max_depth:
            links, refused = self._follow(entry, page, plan)
        await self.frontier.done(
            crawl, entry.key, worker, links=links, refused=refused, skipped=skipped, verdict=verdict
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


def page_event(n: int, data: dict[str, Any]) -> dict[str, Any]:
    """A kept page as its `page` event shows it (the whole page is paged from the store)."""
    page = data.get("page", {})
    return {
        "n": n,
        "url": page.get("url"),
        "final_url": page.get("final_url"),
        "title": page.get("title"),
        "depth": data.get("depth"),
        "status": page.get("status"),
        "bytes": page.get("bytes"),
        "page_type": page.get("page_type"),
        "links": len(page.get("links", [])),
    }


def build_crawl_partial(events: list[Event]) -> dict[str, Any]:
    """What a crawl that did not finish had kept, from its events (its pages stay paged)."""
    pages = [event.data for event in events if event.type == "page"]
    skipped = sum(1 for event in events if event.type == "skipped")
    return {"partial": True, "pages_read": len(pages), "skipped": skipped, "pages": pages}


def crawl_kind(crawler: Callable[[], Crawler], jobs: Callable[[], JobStore]) -> Kind:
    """The `crawl` job kind: a crawl's own job (seeds, reads, publishes, ends it) or one of
    its helpers (`of` in params: reads the same frontier until the crawl is over)."""

    async def run(context: JobContext) -> Outcome:
        fields = dict(context.job.params)
        of = fields.pop("of", None)
        params = CrawlParams.model_validate(fields)
        engine = crawler()
        worker = context.job.owner or context.job.id
        if of is not None:
            return await _help(engine, jobs(), str(of), params, worker)
        return await _lead(engine, jobs(), context, params, worker)

    return Kind(run=run, partial=build_crawl_partial)


async def _help(
    engine: Crawler, jobs: JobStore, crawl: str, params: CrawlParams, worker: str
) -> Outcome:
    async def ended() -> bool:
        return (await jobs.get(crawl)).finished

    await engine.work(crawl, params, worker=worker, ended=ended)
    return Outcome(result={"crawl": crawl}, event={"crawl": crawl})


async def _lead(
    engine: Crawler, jobs: JobStore, context: JobContext, params: CrawlParams, worker: str
) -> Outcome:
    crawl = context.job.id
    saved = context.saved or {}
    started = time.monotonic()
    await engine.seed(crawl, params)
    helpers: list[str] = list(saved.get("helpers", []))
    if context.saved is None and params.workers > 1:
        for _ in range(params.workers - 1):
            helper = await jobs.create(
                "crawl", {**params.model_dump(), "of": crawl}, client=context.job.client
            )
            helpers.append(helper.id)
    published = int(saved.get("published", 0))
    await context.save({"published": published, "helpers": helpers})
    working = True

    async def publish() -> bool:
        nonlocal published
        rows = await engine.frontier.results(crawl, since=published, limit=PUBLISH_BATCH)
        for n, kind, data in rows:
            if kind == "page":
                await context.emit("page", page_event(n, data))
            else:
                await context.emit("skipped", {"n": n, **data})
            published = n
        if rows:
            await context.save({"published": published, "helpers": helpers})
        return bool(rows)

    async def publisher() -> None:
        while working:
            if not await publish():
                await anyio.sleep(PUBLISH_EVERY)

    try:
        async with anyio.create_task_group() as group:
            group.start_soon(publisher)
            await engine.work(crawl, params, worker=worker)
            # Helpers may still hold pages in flight: their results are published too.
            await _settled(engine.frontier, crawl)
            working = False
    finally:
        working = False
    while await publish():
        pass
    await engine.frontier.stop(crawl, "done")  # a stop the budgets made first stays the reason
    status = await engine.frontier.status(crawl)
    for helper_id in helpers:  # helpers no worker claimed end with the crawl
        await jobs.finish(helper_id, worker=None, status="done", event=("done", {"crawl": crawl}))
    summary = {
        "url": params.url,
        "pages_read": status["pages"],
        "bytes": status["bytes"],
        "seen": status["seen"],
        "stopped_because": status["stopped"] or "done",
        "elapsed_ms": round((time.monotonic() - started) * 1000, 1),
    }
    return Outcome(result=summary, event=summary)


async def _settled(frontier: FrontierStore, crawl: str) -> None:
    """Return once no worker holds a page of the crawl in flight."""
    while True:  # the state is in the store, shared with other processes: poll it
        if not (await frontier.status(crawl))["in_flight"]:
            return
        await anyio.sleep(PUBLISH_EVERY)


class CrawlRunner(ResearchRunner):
    """Crawl jobs: started, followed, waited on and cancelled like research jobs."""

    def __init__(
        self, store: JobStore, executor: Executor, frontier: FrontierStore, *, local: bool = True
    ) -> None:
        super().__init__(store, executor, local=local)
        self.frontier = frontier
        self.fallback: Callable[[], TaskGroup | None] | None = None

    async def start(self, params: CrawlParams) -> Job:  # type: ignore[override]
        job = await self.store.create("crawl", params.model_dump(), client=caller_key())
        group = self._group or (self.fallback() if self.fallback else None)
        # With no task group here (the Client entered without research, and `client.crawls`
        # not entered) the job stays queued for a worker (`netsift serve` runs one).
        if self.local and group is not None:
            claimed = await self.store.claim(
                self.executor.worker, lease=self.executor.lease, job_id=job.id
            )
            if claimed is not None:
                group.start_soon(self._execute, claimed)
        return job

    async def run(self, params: CrawlParams) -> tuple[Job, None]:  # type: ignore[override]
        job = await self.store.create("crawl", params.model_dump(), client=caller_key())
        claimed = await self.store.claim(
            self.executor.worker, lease=self.executor.lease, job_id=job.id
        )
        if claimed is not None:
            await self._execute(claimed)
        # Claimed first by another worker of the store: it runs to the end there.
        return await self.wait(job.id), None

    async def cancel(self, job_id: str) -> Job:
        ended = await super().cancel(job_id)
        # No claim after this, wherever the crawl's helpers run (they also see the job end).
        await self.frontier.stop(job_id, "cancelled")
        return ended

    async def pages(
        self, job_id: str, *, since: int = 0, limit: int = 100
    ) -> list[tuple[int, int, Page]]:
        """Kept pages after result `since`: (n, depth, page), in the order they were kept."""
        await self.store.get(job_id)
        rows = await self.frontier.results(job_id, since=since, limit=limit, kind="page")
        return [(n, int(data["depth"]), Page.model_validate(data["page"])) for n, _, data in rows]

    async def report(self, job: Job) -> CrawlReport:
        """The finished crawl as one object: every page kept, every URL left out."""
        pages: list[Page] = []
        skipped: list[CrawlSkip] = []
        since = 0
        while rows := await self.frontier.results(job.id, since=since, limit=500):
            for n, kind, data in rows:
                since = n
                if kind == "page":
                    pages.append(Page.model_validate(data["page"]))
                else:
                    fields = {k: data.get(k) for k in ("url", "code", "message", "duplicate_of")}
                    skipped.append(CrawlSkip.model_validate(fields))
        result = job.result or {}
        return CrawlReport(
            url=str(job.params.get("url", "")),
            job_id=job.id,
            pages=pages,
            skipped=skipped,
            pages_read=len(pages),
            bytes=sum(page.bytes for page in pages),
            stopped_because=str(result.get("stopped_because", job.status)),
            elapsed_ms=float(result.get("elapsed_ms", 0.0)),
        )

    async def stream(self, job_id: str) -> AsyncIterator[tuple[Event, Page | None]]:
        """The crawl's events as they come, each `page` event with its whole page."""
        async for event in self.follow(job_id):
            page = None
            if event.type == "page":
                n = int(event.data["n"])
                rows = await self.frontier.results(job_id, since=n - 1, limit=1, kind="page")
                if rows and rows[0][0] == n:
                    page = Page.model_validate(rows[0][2]["page"])
            yield event, page
