"""Client: the one object every door calls; it builds the object graph from Settings, once.

async with netsift.Client() as client:
    page = await client.fetch("https://example.org/")
    found = await client.search("rust async runtimes")
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Sequence
from datetime import UTC, datetime
from types import TracebackType
from typing import TYPE_CHECKING, Any, Self

from .config import Settings
from .errors import Disabled
from .models import (
    ContentFormat,
    ContextAnswer,
    CrawlReport,
    CrawlSkip,
    Event,
    MapResult,
    Metadata,
    Page,
    PageTypeChoice,
    RenderMode,
    ResearchReport,
    SafeSearch,
    ScreenshotMode,
    SearchResponse,
    SearchResult,
    TimeRange,
)
from .params import (
    BatchFetchParams,
    BatchSearchParams,
    CitationPackParams,
    CitedReport,
    ContextParams,
    CrawlParams,
    DedupeRankParams,
    Depth,
    DiscoveriesParams,
    ExtractDataParams,
    ExtractParams,
    FetchOptions,
    FlagDiscoveryParams,
    MapOptions,
    MetaParams,
    ResearchParams,
    RobotsCheckParams,
    SearchParams,
    SleepMode,
    SleepParams,
    WakeParams,
    WaybackParams,
    validated,
)
from .search.batch import BatchItem

# The research stack, the search service and extraction load when first used (the properties
# and methods below import them), so that a command pays only for what it runs.
if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Mapping, Sequence

    import httpx

    from .archive.wayback import Wayback, WaybackResult
    from .changes.model import ChangeOptions, PageChange
    from .changes.store import SnapshotStore
    from .citations.pack import CitationPack
    from .compute import Compute
    from .crawl.batch import BatchProgress, BatchSummary
    from .crawl.crawler import Crawler
    from .crawl.frontier import FrontierStore
    from .crawl.kind import CrawlKinds, CrawlSummary
    from .crawl.map import Mapper
    from .fetch.fetcher import Fetcher
    from .jobs.executor import JobObserver
    from .jobs.kind import Kind
    from .jobs.model import Job, JobStatus
    from .jobs.runtime import Jobs
    from .jobs.store import JobStore
    from .jobs.worker import Worker
    from .net.http import HttpClient
    from .net.resolver import Resolver
    from .net.robots import RobotsCache, RobotsVerdict
    from .params import ArchiveMode, CitationFormat, SitemapMode
    from .render.actions import Action
    from .research.agent import ResearchAgent
    from .research.chat import ChatRequest
    from .research.discoveries import Discovery, DiscoveryLog, DiscoveryRead
    from .research.llm import LLM
    from .research.sleep import Sleeper
    from .research.sleep_store import SleepRecord
    from .search.rank import RankedResults
    from .search.service import SearchService
    from .structured.model import ExtractDataResult, Summary
    from .usage.ledger import UsageLedger
from .usage import Billing

__all__ = ["Client"]


class Client:
    """Search, fetch and read the web safely. Use as an async context manager."""

    def __init__(
        self,
        settings: Settings | None = None,
        *,
        resolver: Resolver | None = None,
        transport: Any = None,
    ) -> None:
        self.settings = settings if settings is not None else Settings()
        # the guarded HTTP client (httpx) is built at first use: a cached search never needs it
        self._http: HttpClient | None = None
        self._resolver = resolver
        self._transport = transport
        # robots, compute and the fetcher are built at first use (properties below): a search
        # never loads the fetch stack (the page readers, the render step, the process pool).
        self._robots: RobotsCache | None = None
        self._compute: Compute | None = None
        self._fetcher: Fetcher | None = None
        self._discoveries: DiscoveryLog | None = None
        self._search: SearchService | None = None
        self._llm: LLM | None = None
        self._job_store: JobStore | None = None
        self._jobs: Jobs | None = None
        self._research_kind: Kind[ResearchParams, ResearchReport] | None = None
        self._crawl_kinds: CrawlKinds | None = None
        self._batch_kind: Kind[BatchFetchParams, BatchSummary] | None = None
        self._ledger: UsageLedger | None = None
        self._snapshots: SnapshotStore | None = None
        # How usage is limited and recorded; a host (serve, worker) adds quota, cap, metrics.
        self.billing = Billing(ledger=lambda: self.ledger)
        self._sleeper: Sleeper | None = None
        self._mapper: Mapper | None = None
        self._frontier: FrontierStore | None = None
        self._wayback: Wayback | None = None
        self._entered = False

    @property
    def http(self) -> HttpClient:
        """The one guarded HTTP client every request of this Client goes through."""
        if self._http is None:
            from .net.audit import AuditLog
            from .net.http import HttpClient

            audit = AuditLog(self.settings.audit_log) if self.settings.audit_log else None
            self._http = HttpClient(
                self.settings, resolver=self._resolver, transport=self._transport, audit=audit
            )
        return self._http

    @property
    def discoveries(self) -> DiscoveryLog:
        """The findings agents flagged for a human (built at first use: research loads with it)."""
        if self._discoveries is None:
            from .backends import parse_store_url
            from .research.discoveries import DiscoveryLog

            # beside the jobs: in Redis, one list for every replica
            jobs = parse_store_url(self.settings.effective_jobs_url(), what="NETSIFT_JOBS_URL")
            self._discoveries = DiscoveryLog(
                self.settings.effective_discoveries_path(),
                redis_url=jobs.url if jobs.kind == "redis" else None,
            )
        return self._discoveries

    @property
    def robots(self) -> RobotsCache:
        if self._robots is None:
            from .net.robots import RobotsCache

            self._robots = RobotsCache(
                self.http,
                user_agent=self.settings.user_agent,
                timeout=self.settings.robots_timeout,
            )
        return self._robots

    @property
    def compute(self) -> Compute:
        if self._compute is None:
            from .compute import Compute, ComputeLimits, default_workers

            self._compute = Compute(
                workers=self.settings.workers or default_workers(),
                limits=ComputeLimits(
                    cpu_seconds=self.settings.task_cpu_seconds,
                    memory_mb=self.settings.task_memory_mb,
                ),
                niceness=self.settings.worker_niceness,
            )
        return self._compute

    @property
    def fetcher(self) -> Fetcher:
        if self._fetcher is None:
            from .fetch.fetcher import Fetcher

            self._fetcher = Fetcher(self.settings, self.http, self.robots, compute=self.compute)
        return self._fetcher

    @property
    def search_service(self) -> SearchService:
        """Built on first use, so a fetch-only client never opens the search cache."""
        if self._search is None:
            from .search.service import SearchService

            self._search = SearchService(self.settings, lambda: self.http)
        return self._search

    @property
    def llm(self) -> LLM | None:
        """The configured model, or None: research then runs in extractive mode."""
        from .research.llm import LLM, llm_configured

        if self._llm is None and llm_configured(self.settings):
            self._llm = LLM(self.settings, http=self.http)
        return self._llm

    @property
    def job_store(self) -> JobStore:
        """Where jobs, their events and checkpoints are kept (NETSIFT_JOBS_URL)."""
        if self._job_store is None:
            from .jobs.store import open_job_store

            self._job_store = open_job_store(self.settings.effective_jobs_url())
        return self._job_store

    @property
    def ledger(self) -> UsageLedger:
        """What each client (API key) spent, beside the jobs (shared when scaled out)."""
        if self._ledger is None:
            from .usage.ledger import open_usage_ledger

            self._ledger = open_usage_ledger(self.settings.effective_jobs_url())
        return self._ledger

    @property
    def snapshots(self) -> SnapshotStore:
        """Each caller's last reading of a page, for change tracking; beside the jobs."""
        if self._snapshots is None:
            from .changes.store import open_snapshot_store

            self._snapshots = open_snapshot_store(self.settings.effective_jobs_url())
        return self._snapshots

    async def track_changes(
        self,
        owner: str,
        url: str,
        markdown: str,
        *,
        status_code: int = 200,
        taken_at: datetime | None = None,
        options: ChangeOptions | None = None,
        reading: str | None = None,
    ) -> PageChange:
        """Compare `markdown`, a reading of `url`, with `owner`'s previous reading of it (in
        `options.tag`'s history), and record it as the next one's previous: `new`, `same`,
        `changed` or `removed` (a 404), with the diff and the schema's fields compared when
        asked (Firecrawl's `changeTracking` format; docs/compat-firecrawl.md). A reading
        named by `reading` (a job's document) compared again answers as it did first."""
        from .changes.model import ChangeOptions
        from .changes.tracker import track

        asked = options if options is not None else ChangeOptions()
        read = self._read_fields if self.llm is not None else None
        return await track(
            self.snapshots,
            read,
            owner=owner,
            url=url,
            markdown=markdown,
            status_code=status_code,
            taken_at=taken_at or datetime.now(UTC),
            options=asked,
            reading=reading,
        )

    async def _read_fields(self, url: str, text: str, options: ChangeOptions) -> ExtractDataResult:
        """A schema's fields (or a prompt's) from a reading kept as text, by the model."""
        from .structured.extract import DataExtractor

        params = validated(
            ExtractDataParams, urls=[url], output_schema=options.schema_, prompt=options.prompt
        )
        extractor = DataExtractor(
            None, self.fetcher, self.llm, context_tokens=self.settings.llm_context_tokens
        )
        return await extractor.run_on_texts(params, [text])

    async def usage(self, key: str) -> dict[str, Any]:
        """A client's usage record: searches (by provider), pages and tokens."""
        from .usage.ledger import summarize

        return summarize(await self.ledger.totals(key))

    @property
    def jobs(self) -> Jobs:
        """The job runtime: research and crawl jobs (and their helpers), one way for every
        kind; background jobs need the Client entered (`async with`)."""
        if self._jobs is None:
            from .jobs.runtime import Jobs

            kinds: list[Kind[Any, Any]] = [
                self._research,
                self._crawls.crawl,
                self._crawls.helper,
                self._batch,
            ]
            self._jobs = Jobs(
                self.job_store,
                {kind.name: kind for kind in kinds},
                lease=self.settings.job_lease,
                billing=self.billing,
                local=self.settings.run_jobs,
            )
            if self._entered:
                self._jobs.open()
        return self._jobs

    @property
    def _research(self) -> Kind[ResearchParams, ResearchReport]:
        if self._research_kind is None:
            from .research.kind import research_kind

            self._research_kind = research_kind(self._research_agent)
        return self._research_kind

    @property
    def _crawls(self) -> CrawlKinds:
        if self._crawl_kinds is None:
            from .crawl.kind import CrawlKinds

            self._crawl_kinds = CrawlKinds(lambda: self.crawler, lambda: self.frontier)
        return self._crawl_kinds

    @property
    def _batch(self) -> Kind[BatchFetchParams, BatchSummary]:
        if self._batch_kind is None:
            from .crawl.batch import batch_kind

            self._batch_kind = batch_kind(lambda: self.fetcher, lambda: self.frontier)
        return self._batch_kind

    @property
    def frontier(self) -> FrontierStore:
        """Crawls' frontiers and results, beside the jobs (shared by the same workers)."""
        if self._frontier is None:
            from .crawl.frontier import open_frontier_store

            self._frontier = open_frontier_store(self.settings.effective_jobs_url())
        return self._frontier

    @property
    def crawler(self) -> Crawler:
        from .crawl.crawler import Crawler

        return Crawler(
            self.fetcher,
            self.robots,
            self.frontier,
            http=self.http,
            user_agent=self.settings.user_agent,
            respect_robots=self.settings.respect_robots,
            fetch_timeout=self.settings.timeout,
            compute=self.compute,
            host_concurrency=self.settings.crawl_host_concurrency,
        )

    def worker(self) -> Worker:
        """A worker that claims any job from the store (`netsift worker`, `netsift serve`)."""
        return self.jobs.worker(
            concurrency=self.settings.worker_concurrency,
            stop_timeout=self.settings.job_stop_timeout,
        )

    def observe_jobs(self, observer: JobObserver) -> None:
        """Tell `observer` how each job run in this process ended (the server's metrics)."""
        self.jobs.observe(observer)

    @property
    def sleeper(self) -> Sleeper:
        if self._sleeper is None:
            from .research.sleep import Sleeper
            from .research.sleep_store import open_sleep_store

            url = self.settings.effective_jobs_url()  # Redis: shared like jobs
            self._sleeper = Sleeper(
                open_sleep_store(url), self.job_store, max_seconds=self.settings.max_sleep
            )
        return self._sleeper

    @property
    def mapper(self) -> Mapper:
        """Maps sites with this Client's guard, robots cache and Fetcher."""
        if self._mapper is None:
            from .crawl.map import Mapper

            self._mapper = Mapper(
                self.settings, self.http, self.robots, self.fetcher, compute=self.compute
            )
        return self._mapper

    def _research_agent(self) -> ResearchAgent:
        from .research.agent import ResearchAgent

        return ResearchAgent(
            self.search_service, self.fetcher, llm=self.llm, discoveries=self.discoveries
        )

    async def __aenter__(self) -> Self:
        # Jobs (research, crawls) run here once entered; the runtime and its store are built
        # at the first job, so a Client that only searches or fetches never opens the store.
        if self.settings.enabled("research") or self.settings.enabled("fetch"):
            self._entered = True
            if self._jobs is not None:
                self._jobs.open()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        if self._entered:
            self._entered = False
            if self._jobs is not None:
                await self._jobs.__aexit__(None, None, None)
        if self._frontier is not None:
            await self._frontier.aclose()
        if self._llm is not None:
            await self._llm.aclose()
        if self._job_store is not None:
            await self._job_store.aclose()
        if self._ledger is not None:
            await self._ledger.aclose()
        if self._snapshots is not None:
            await self._snapshots.aclose()
        if self._search is not None:
            await self._search.aclose()
        if self._fetcher is not None:
            await self._fetcher.aclose()
        if self._http is not None:
            await self._http.aclose()
        if self._compute is not None:
            await asyncio.to_thread(self._compute.close)

    def _require(self, capability: str) -> None:
        if not self.settings.enabled(capability):
            raise Disabled(
                f"the {capability} capability is switched off on this host "
                f"(NETSIFT_CAPABILITIES={','.join(self.settings.capabilities)})",
                details={"capability": capability},
            )

    async def fetch(
        self,
        url: str,
        *,
        format: ContentFormat = "markdown",
        max_length: int | None = None,
        start_index: int = 0,
        respect_robots: bool | None = None,
        max_bytes: int | None = None,
        timeout: float | None = None,
        no_cache: bool = False,
        page_type: PageTypeChoice = "auto",
        render: RenderMode | None = None,
        keep_source: bool = False,
        keep_hidden: bool = False,
        error_pages: bool = False,
        screenshot: ScreenshotMode | None = None,
        actions: Sequence[Action | Mapping[str, Any]] = (),
        images: bool = False,
    ) -> Page:
        """Fetch `url` and return its readable content as a Page.

        `page_type` is "auto" (classify the page) or a type to read an HTML page as.
        `render` runs the page's JavaScript in the guarded browser: "auto" (JavaScript shells
        only), "always" or "never"; None takes the host's default (netsift.render.step).
        `keep_source` also returns the decoded body as served on `Page.source`; `keep_hidden`
        keeps the text a page hides from its visitors (dropped by default); `error_pages`
        reads a page that answers 4xx/5xx as a Page with that status (else `http_error`).
        `screenshot` ("viewport" or "full_page") and `actions` (netsift.render.actions: wait,
        click, write, press, scroll, screenshot) make the page render; they come back on
        `Page.screenshot` and `Page.actions`. `images` lists its image URLs (`Page.images`).
        Bad arguments raise InvalidInput, checked by the same model every other door uses.
        """
        self._require("fetch")
        params = validated(
            FetchOptions,
            url=url,
            format=format,
            max_length=max_length,
            start_index=start_index,
            respect_robots=respect_robots,
            max_bytes=max_bytes,
            timeout=timeout,
            no_cache=no_cache,
            page_type=page_type,
            render=render,
            keep_source=keep_source,
            keep_hidden=keep_hidden,
            error_pages=error_pages,
            screenshot=screenshot,
            actions=list(actions),
            images=images,
        )
        return await self.fetcher.fetch(params)

    async def map(
        self,
        url: str,
        *,
        limit: int = 100,
        query: str | None = None,
        subdomains: bool = False,
        include: list[str] | None = None,
        exclude: list[str] | None = None,
        sitemaps: SitemapMode = "include",
        respect_robots: bool | None = None,
        timeout: float | None = None,
    ) -> MapResult:
        """List a site's URLs without reading every page: the sitemaps robots.txt names (or
        /sitemap.xml), the feeds and links of the start page; each URL once, with where it was
        found. `include`/`exclude` are regular expressions on the path; `query` ranks the URLs
        by relevance. Runs under the fetch capability, and counts pages like fetch."""
        self._require("fetch")
        params = validated(
            MapOptions,
            url=url,
            limit=limit,
            query=query,
            subdomains=subdomains,
            include=include or [],
            exclude=exclude or [],
            sitemaps=sitemaps,
            respect_robots=respect_robots,
            timeout=timeout,
        )
        return await self.mapper.map(params)

    async def meta(
        self, url: str, *, respect_robots: bool | None = None, explain: bool = False
    ) -> Metadata:
        """The link-preview card of `url`: title, description, image, site name, favicon…
        `explain` also says why the page was read as its page type
        (`page_type_explanation`: each signal, its weight and where it was found, the
        runner-up)."""
        params = validated(MetaParams, url=url, respect_robots=respect_robots, explain=explain)
        page = await self.fetch(
            params.url,
            respect_robots=params.respect_robots,
            max_length=1,
            keep_source=params.explain,
        )
        card = page.metadata.model_copy(update={"page_type": page.page_type})
        if not params.explain:
            return card
        from functools import partial

        from .fetch.explain import explain_page

        # the page as read (its HTML, or the DOM when rendered), classified again in the
        # extraction worker: a page is hostile input wherever it is parsed
        explained = await self.compute.run(
            partial(explain_page, page_type=page.page_type, url=page.final_url),
            page.source,
            what="the page",
        )
        return card.model_copy(update={"page_type_explanation": explained})

    def extract(
        self,
        html: str | bytes,
        *,
        url: str | None = None,
        format: ContentFormat = "markdown",
        max_length: int | None = None,
        start_index: int = 0,
        page_type: PageTypeChoice = "auto",
    ) -> Page:
        """Run the same extraction on HTML you already have, paginated like fetch; no network."""
        from .fetch.extract import extract

        return extract(
            html,
            url=url,
            format=format,
            max_length=max_length,
            start_index=start_index,
            page_type=page_type,
        )

    async def extract_isolated(
        self,
        html: bytes,
        *,
        url: str | None = None,
        format: ContentFormat = "markdown",
        max_length: int | None = None,
        start_index: int = 0,
        page_type: PageTypeChoice = "auto",
        what: str = "the HTML",
    ) -> Page:
        """`extract` in the extraction worker, under its CPU and memory budget
        (NETSIFT_TASK_*): HTML from a file or a stranger is as hostile as a page."""
        from functools import partial

        from .fetch.extract import extract, refuse_unreadable

        params = validated(
            ExtractParams,
            url=url,
            format=format,
            max_length=max_length,
            start_index=start_index,
            page_type=page_type,
        )
        refuse_unreadable(html, url=params.url, what=what)
        return await self.compute.run(partial(extract, **params.model_dump()), html, what=what)

    def start_workers(self) -> None:
        """Start the extraction worker now, not on the first page: a server does this in a
        thread at start-up (blocking: the forkserver imports and warms up first)."""
        self.compute.start()

    async def extract_data(
        self,
        urls: list[str] | None = None,
        *,
        query: str | None = None,
        output_schema: dict[str, Any] | None = None,
        prompt: str | None = None,
        max_pages: int | None = None,
        max_tokens: int | None = None,
        deadline: float | None = None,
    ) -> ExtractDataResult:
        """Fill `output_schema` (a JSON Schema of an object) from the pages at `urls`, or those
        a search for `query` finds: every field with the verbatim passage and URL it came
        from, or null with the reason in `missing`. With a model it reads the pages' text
        (and `prompt`); without one, their structured data, tables and definition lists.
        Options left at None take ExtractDataParams' defaults (the same on every door)."""
        self._require("fetch")
        options = {"max_pages": max_pages, "max_tokens": max_tokens, "deadline": deadline}
        params = validated(
            ExtractDataParams,
            urls=urls,
            query=query,
            output_schema=output_schema,
            prompt=prompt,
            **{name: value for name, value in options.items() if value is not None},
        )
        if params.query:
            self._require("search")
        from .structured.extract import DataExtractor

        extractor = DataExtractor(
            self.search_service if params.query else None,
            self.fetcher,
            self.llm,
            context_tokens=self.settings.llm_context_tokens,
        )
        return await extractor.run(params)

    async def summarize(self, url: str) -> Summary:
        """A page's summary, each sentence citing the page: by the model, or extractive
        without one (Firecrawl's `summary` format)."""
        from .structured.summary import summarize

        page = await self.fetch(url)
        return await summarize(page, self.llm, context_tokens=self.settings.llm_context_tokens)

    def provider_status(self) -> list[dict[str, Any]]:
        """Every search provider: configured or not, enabled, rate limit, breaker state."""
        return self.search_service.provider_status()

    async def cache_stats(self) -> dict[str, Any]:
        """The search cache's kind and counts (hits, misses, entries)."""
        return await self.search_service.cache_stats()

    async def cache_health(self) -> str:
        """ "ok", or why the search cache is degraded (a local stand-in serving while its
        Redis is away); raises when the cache does not answer at all."""
        await self.search_service.cache_stats()
        degraded: str | None = getattr(self.search_service.cache, "degraded", None)
        return degraded or "ok"

    async def search(
        self,
        query: str,
        *,
        count: int = 10,
        providers: list[str] | None = None,
        merge: bool = False,
        time_range: TimeRange | None = None,
        region: str | None = None,
        safesearch: SafeSearch = "moderate",
        no_cache: bool = False,
    ) -> SearchResponse:
        """Search the web with failover across providers; attempts say what happened."""
        self._require("search")
        params = validated(
            SearchParams,
            query=query,
            count=count,
            providers=providers,
            merge=merge,
            time_range=time_range,
            region=region,
            safesearch=safesearch,
            no_cache=no_cache,
        )
        return await self.search_service.search(**params.model_dump())

    async def batch_search(
        self,
        queries: list[str],
        *,
        count: int = 10,
        providers: list[str] | None = None,
        merge: bool = False,
        time_range: TimeRange | None = None,
        region: str | None = None,
        safesearch: SafeSearch = "moderate",
        no_cache: bool = False,
    ) -> list[BatchItem]:
        """Many searches in parallel under the limits; results in input order, errors inline."""
        self._require("search")
        params = validated(
            BatchSearchParams,
            queries=queries,
            count=count,
            providers=providers,
            merge=merge,
            time_range=time_range,
            region=region,
            safesearch=safesearch,
            no_cache=no_cache,
        )
        return await self.search_service.batch_search(**params.model_dump())

    async def context(
        self,
        query: str,
        *,
        max_tokens: int | None = None,
        max_sources: int | None = None,
        per_source: int | None = None,
        providers: list[str] | None = None,
        time_range: TimeRange | None = None,
        region: str | None = None,
        no_cache: bool = False,
    ) -> ContextAnswer:
        """The passages most relevant to `query` across the pages a search finds, within
        `max_tokens`: verbatim, deduplicated, each with its URL, title and position.

        It searches and reads through this Client's own `search` and `fetch`, so both
        capabilities, the guard, the caches, limits and usage counts apply as they do there.
        An option left at None takes ContextParams' default (the same on every door)."""
        from .context import gather
        from .operations import operation

        for capability in operation("context").capabilities():
            self._require(capability)
        options = {"max_tokens": max_tokens, "max_sources": max_sources, "per_source": per_source}
        params = validated(
            ContextParams,
            query=query,
            providers=providers,
            time_range=time_range,
            region=region,
            no_cache=no_cache,
            **{name: value for name, value in options.items() if value is not None},
        )
        return await gather(self, params)

    async def research(
        self,
        question: str,
        *,
        depth: Depth | None = None,
        breadth: int | None = None,
        max_iterations: int | None = None,
        max_searches: int | None = None,
        max_pages: int | None = None,
        max_tokens: int | None = None,
        deadline: float | None = None,
    ) -> ResearchReport:
        """Research `question` to the end and return the cited report (runs as a job).

        An option left at None takes ResearchParams' default (the same on every door)."""
        self._require("research")
        options = {
            "depth": depth,
            "breadth": breadth,
            "max_iterations": max_iterations,
            "max_searches": max_searches,
            "max_pages": max_pages,
            "max_tokens": max_tokens,
            "deadline": deadline,
        }
        params = validated(
            ResearchParams,
            question=question,
            **{name: value for name, value in options.items() if value is not None},
        )
        job, report = await self.jobs.run(self._research, params)
        if report is None:
            raise _job_error(job)
        return report

    async def crawl(
        self,
        url: str,
        *,
        max_pages: int | None = None,
        max_depth: int | None = None,
        include: list[str] | None = None,
        exclude: list[str] | None = None,
        subdomains: bool | None = None,
        query: str | None = None,
        max_bytes: int | None = None,
        deadline: float | None = None,
        respect_robots: bool | None = None,
        workers: int | None = None,
        format: ContentFormat | None = None,
        sitemap: SitemapMode | None = None,
    ) -> CrawlReport:
        """Crawl a site from `url` to the end (as a job) and return every page it kept.

        Options left at None take CrawlParams' defaults (the same on every door); a crawl
        with `workers` > 1 is shared with the `netsift worker`s of the same job store."""
        self._require("fetch")
        options = {
            "max_pages": max_pages,
            "max_depth": max_depth,
            "include": include,
            "exclude": exclude,
            "subdomains": subdomains,
            "query": query,
            "max_bytes": max_bytes,
            "deadline": deadline,
            "respect_robots": respect_robots,
            "workers": workers,
            "format": format,
            "sitemap": sitemap,
        }
        params = validated(
            CrawlParams, url=url, **{name: v for name, v in options.items() if v is not None}
        )
        await self._check_crawl_start(params)
        job, summary = await self.jobs.run(self._crawls.crawl, params)
        if summary is None:
            raise _job_error(job)
        return await self.crawl_report(job)

    def chat_model(self) -> str | None:
        """The model chat answers with, or None when no language model is configured."""
        return self.settings.llm_model if self.llm is not None else None

    async def chat(self, request: ChatRequest) -> dict[str, Any]:
        """An OpenAI chat completion, with web search when the request asks for it."""
        from .research.chat import chat

        llm, search = self._chat_parts()
        return await chat(llm, search, request)

    def chat_stream(self, request: ChatRequest) -> AsyncIterator[dict[str, Any]]:
        """The completion's chunks as the model sends them (OpenAI's stream)."""
        from .research.chat import chat_stream

        llm, search = self._chat_parts()
        return chat_stream(llm, search, request)

    def _chat_parts(self) -> tuple[LLM, SearchService | None]:
        if not self.settings.enabled("chat"):
            raise Disabled(
                "the chat capability is switched off on this host", details={"capability": "chat"}
            )
        if self.llm is None:
            raise Disabled(
                "chat needs a language model: set NETSIFT_LLM_MODEL and OPENAI_BASE_URL "
                "(or OPENAI_API_KEY)",
                details={"capability": "chat"},
            )
        return self.llm, self.search_service if self.settings.enabled("search") else None

    async def flag_discovery(
        self, title: str, description: str, url: str | None = None
    ) -> Discovery:
        """Flag a notable finding for a human to look at later (the discoveries log)."""
        self._require("research")
        params = validated(FlagDiscoveryParams, title=title, description=description, url=url)
        return self.discoveries.flag(params.title, params.description, params.url)

    async def download(
        self, url: str, *, accept: str, max_bytes: int, deadline: float, kind: str = "download"
    ) -> httpx.Response:
        """One resource as it is, through the guard and its caps, read by nobody (no robots,
        no extraction): the web page's image relay. Needs the fetch capability."""
        import httpx

        from .net.guard import check_url

        self._require("fetch")
        target = check_url(url)  # a malformed address is invalid input, before httpx parses it
        request = httpx.Request("GET", target, headers={"Accept": accept})
        return await self.http.send(request, kind=kind, max_bytes=max_bytes, deadline=deadline)

    async def read_discoveries(
        self, *, job_id: str | None = None, limit: int | None = None
    ) -> DiscoveryRead:
        """The flagged findings, oldest first (`limit`: the most recent N); a corrupt line
        is skipped and named rather than hiding everything after it."""
        self._require("research")
        params = validated(DiscoveriesParams, job_id=job_id, limit=limit)
        log = self.discoveries
        return await asyncio.to_thread(log.read, job_id=params.job_id, limit=params.limit)

    async def sleep(
        self,
        mode: SleepMode,
        *,
        seconds: float | None = None,
        job_id: str | None = None,
        reason: str = "",
    ) -> dict[str, Any]:
        """Pause until a timer, a job's end or a person's wake (capped by NETSIFT_MAX_SLEEP);
        answers `{id, woke_because, slept_s, message, note}`."""
        self._require("research")
        params = validated(SleepParams, mode=mode, seconds=seconds, job_id=job_id, reason=reason)
        return await self.sleeper.sleep(
            params.mode, seconds=params.seconds, job_id=params.job_id, reason=params.reason
        )

    async def wake(self, sleep_id: str, *, message: str | None = None) -> SleepRecord:
        """Wake a sleep, in this process or any other sharing the store."""
        self._require("research")
        params = validated(WakeParams, sleep_id=sleep_id, message=message)
        return await self.sleeper.wake(params.sleep_id, message=params.message)

    async def sleeps(self) -> list[SleepRecord]:
        """The sleeps in progress (what a person may want to wake)."""
        self._require("research")
        return await self.sleeper.store.active()

    async def get_sleep(self, sleep_id: str) -> SleepRecord:
        """One sleep; NotFound when there is none of that id."""
        self._require("research")
        return await self.sleeper.store.get(sleep_id)

    async def start_crawl(self, params: CrawlParams) -> Job:
        """Start a crawl job in the background; follow it with `stream_crawl(job.id)`. A start
        URL that is refused (malformed, a blocked address, unreachable, robots.txt) raises
        its error here, before a job is queued."""
        self._require("fetch")
        await self._check_crawl_start(params)
        return await self.jobs.start(self._crawls.crawl, params)

    async def _check_crawl_start(self, params: CrawlParams) -> None:
        """A refused start URL is the crawl's error at once, on every door (no job queued)."""
        from .crawl.crawler import check_start

        await check_start(self.robots, params, respect_robots=self.settings.respect_robots)

    async def start_batch_fetch(self, params: BatchFetchParams) -> Job:
        """Start fetching a list of URLs as one job (Firecrawl's batch scrape); its pages are
        read with `crawl_pages`, its failures with `crawl_skipped`, like a crawl's."""
        self._require("fetch")
        return await self.jobs.start(self._batch, params)

    async def start_research(self, params: ResearchParams) -> Job:
        """Start a research job in the background; follow it with `follow_job(job.id)`."""
        self._require("research")
        return await self.jobs.start(self._research, params)

    # -- jobs of every kind: read, follow, wait on, cancel (what every door calls) ----------

    async def job(self, job_id: str, *, kind: str | None = None) -> Job:
        """The job (NotFound if there is none; InvalidInput if it is not of `kind`)."""
        return await self.jobs.get(job_id, kind=kind)

    async def list_jobs(
        self,
        *,
        limit: int = 50,
        status: JobStatus | None = None,
        before: str | None = None,
        client: str | None = None,
    ) -> list[Job]:
        """Jobs of every kind, newest first; `before` (a job id) continues a listing;
        `client`: only the jobs charged to that key (an API key's fingerprint)."""
        return await self.jobs.list_jobs(limit=limit, status=status, before=before, client=client)

    async def job_events(self, job_id: str, *, since: int = 0) -> list[Event]:
        """The job's events so far after `since` (its seq numbers)."""
        return await self.jobs.events(job_id, since=since)

    def follow_job(self, job_id: str, *, since: int = 0) -> AsyncIterator[Event]:
        """Every event after `since`, live, until the job ends (resume with the last seq)."""
        return self.jobs.follow(job_id, since=since)

    def follow_job_idle(
        self, job_id: str, *, since: int = 0, idle: float | None
    ) -> AsyncIterator[Event | None]:
        """`follow_job`, plus a None after every `idle` seconds without an event."""
        return self.jobs.follow_idle(job_id, since=since, idle=idle)

    async def wait_job(self, job_id: str, *, timeout: float | None = None) -> Job:
        """The job once it has ended (or as it is when `timeout` runs out)."""
        return await self.jobs.wait(job_id, timeout=timeout)

    async def cancel_job(self, job_id: str, *, kind: str | None = None) -> Job:
        """Stop the job wherever it runs; it ends `cancelled` with what it had found.
        AlreadyFinished if it had already ended."""
        return await self.jobs.cancel(job_id, kind=kind)

    def research_report(self, job: Job) -> ResearchReport:
        """A research job's report; the job's error if it did not end done."""
        report = self._research.result_of(job)
        if report is None:
            raise _job_error(job)
        return report

    def crawl_summary(self, job: Job) -> CrawlSummary:
        """A crawl's summary (pages, bytes, why it stopped); the job's error if it did not
        end done."""
        summary = self._crawls.crawl.result_of(job)
        if summary is None:
            raise _job_error(job)
        return summary

    async def crawl_report(self, job: Job) -> CrawlReport:
        """The crawl as one object: every page kept, every URL left out, so far."""
        from .crawl.results import crawl_report

        kind = self._crawls.crawl
        url = kind.params_of(job).url
        return await crawl_report(self.frontier, job, url, kind.result_of(job))

    async def crawl_pages(
        self, job_id: str, *, since: int = 0, limit: int = 100
    ) -> list[tuple[int, int, Page]]:
        """A crawl's (or a batch fetch's) kept pages after result `since`: (n, depth, page),
        in keeping order."""
        from .crawl.results import kept_pages

        await self._results_job(job_id)
        return await kept_pages(self.frontier, job_id, since=since, limit=limit)

    async def crawl_skipped(self, job_id: str) -> list[CrawlSkip]:
        """The URLs a crawl (or a batch fetch) left out so far, and why, in order."""
        from .crawl.results import skipped_urls

        await self._results_job(job_id)
        return await skipped_urls(self.frontier, job_id)

    async def batch_progress(self, job_id: str) -> BatchProgress:
        """How far a batch fetch is: pages kept and URLs failed so far."""
        from .crawl.batch import BatchProgress

        await self.job(job_id, kind=self._batch.name)
        return BatchProgress.model_validate(await self.job_store.checkpoint(job_id) or {})

    async def _results_job(self, job_id: str) -> Job:
        """The job, which must be one that keeps pages in the frontier (a crawl or a batch)."""
        from .errors import InvalidInput

        job = await self.job(job_id)
        if job.kind not in (self._crawls.crawl.name, self._batch.name):
            raise InvalidInput(f"job {job.id} is a {job.kind} job, not a crawl or a batch")
        return job

    async def crawl_progress(self, job_id: str) -> dict[str, Any]:
        """Where a crawl stands in its frontier: pages, bytes, seen, pending, in_flight,
        stopped (the reason, or None)."""
        await self.job(job_id, kind="crawl")
        return await self.frontier.status(job_id)

    async def stream_crawl(self, job_id: str) -> AsyncIterator[tuple[Event, Page | None]]:
        """The crawl's events as they come, each `page` event with its whole page."""
        from .crawl.results import kept_page

        async for event in self.follow_job(job_id):
            page = None
            if event.type == "page":
                page = await kept_page(self.frontier, job_id, int(event.data["n"]))
            yield event, page

    # -- the toolbelt: small tools with JSON in and out (issue 29) -------------------------

    @property
    def wayback(self) -> Wayback:
        """The Internet Archive's interfaces, through this Client's guarded HTTP client."""
        if self._wayback is None:
            from .archive.wayback import Wayback

            self._wayback = Wayback(self.http, base_url=self.settings.wayback_url)
        return self._wayback

    async def robots_check(self, url: str, *, user_agent: str | None = None) -> RobotsVerdict:
        """May `user_agent` (default: netsift's) fetch `url`, and with what crawl delay? The
        answer comes from the same cached robots.txt every fetch obeys, with the rule that
        decided it."""
        self._require("robots")
        params = validated(RobotsCheckParams, url=url, user_agent=user_agent)
        return await self.robots.verdict(params.url, params.user_agent)

    async def wayback_lookup(
        self,
        url: str,
        *,
        at: str | None = None,
        save: bool = False,
        read: bool = False,
        max_length: int | None = None,
    ) -> WaybackResult:
        """The Internet Archive snapshot of `url` nearest `at` (default: the newest), the
        captures around it; `save` asks the archive to capture the page now first; `read`
        reads the snapshot as a Page (its metadata names the original URL and capture time;
        reading needs the fetch capability too)."""
        from .net.guard import check_url

        self._require("wayback")
        params = validated(
            WaybackParams, url=url, at=at, save=save, read=read, max_length=max_length
        )
        check_url(params.url)  # a malformed or non-http(s) URL is invalid before asking
        result = await self.wayback.lookup(params.url, at=params.at, save=params.save)
        if params.read and result.snapshot is not None:
            snap = result.snapshot
            page = await self.fetch(
                self.wayback.snapshot_url(snap.timestamp, snap.original, raw=True),
                max_length=params.max_length,
            )
            metadata = page.metadata.model_copy(
                update={"archived_from": snap.original, "archived_at": snap.captured_at}
            )
            result = result.model_copy(
                update={"page": page.model_copy(update={"metadata": metadata})}
            )
        return result

    async def citation_pack(
        self,
        urls: list[str] | None = None,
        *,
        report: ResearchReport | CitedReport | dict[str, Any] | None = None,
        job_id: str | None = None,
        format: CitationFormat = "csl-json",
        archive: ArchiveMode = "lookup",
    ) -> CitationPack:
        """A citation bundle of `urls`, of a research `report` or of job `job_id`'s report:
        per source its canonical URL, title, authors, site, dates, content hash, quoted
        passages and archived copy (looked up, or saved with archive="save"), with the
        references rendered as CSL-JSON, BibTeX or Markdown."""
        from .citations.pack import Cited, cited_in, pack

        self._require("citations")
        if isinstance(report, ResearchReport | CitedReport):
            report = report.model_dump(mode="json")
        params = validated(
            CitationPackParams,
            urls=urls or [],
            report=report,
            job_id=job_id,
            format=format,
            archive=archive,
        )
        if params.job_id is not None:
            done = self.research_report(await self.job(params.job_id, kind="research"))
            cited = cited_in(validated(CitedReport, **done.model_dump(mode="json")))
        elif params.report is not None:
            cited = cited_in(params.report)
        else:
            cited = [Cited(n=n, url=url) for n, url in enumerate(params.urls, start=1)]

        async def read(url: str) -> Page:
            return await self.fetch(url, max_length=1)

        async def archived(url: str) -> tuple[str, datetime] | None:
            found = await self.wayback.lookup(url, save=params.archive == "save")
            snap = found.snapshot
            return (snap.url, snap.captured_at) if snap is not None else None

        use_archive = params.archive != "off" and self.settings.enabled("wayback")
        return await pack(
            cited, format=params.format, fetch=read, archive=archived if use_archive else None
        )

    async def dedupe_rank(
        self, query: str, results: Sequence[SearchResult | dict[str, Any]], *, count: int = 10
    ) -> RankedResults:
        """Fold duplicates in a result list (the same page under other URLs, near-same text)
        and rank what is left against `query`, as a merged search does; no network."""
        from .search.rank import dedupe_rank

        self._require("search")
        given = [r.model_dump() if isinstance(r, SearchResult) else r for r in results]
        params = validated(DedupeRankParams, query=query, results=given, count=count)
        return dedupe_rank(params.query, params.results, count=params.count)


def _job_error(job: Job) -> Exception:
    from .errors import NetsiftError, error_from_dict

    if job.error:
        return error_from_dict(job.error)
    return NetsiftError(f"{job.kind} job {job.id} ended {job.status}")
