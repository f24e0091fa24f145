"""Client: the one object every door calls; it builds the object graph from Settings, once.

async with netsift.Client() as client:
    page = await client.fetch("https://example.org/")
    found = await client.search("rust async runtimes")
"""

from __future__ import annotations

import asyncio
from types import TracebackType
from typing import TYPE_CHECKING, Any, Self

from .config import Settings
from .errors import Disabled
from .models import (
    ContentFormat,
    CrawlReport,
    MapResult,
    Metadata,
    Page,
    RenderMode,
    ResearchReport,
    SafeSearch,
    SearchResponse,
    TimeRange,
)
from .params import (
    BatchSearchParams,
    CrawlParams,
    Depth,
    FetchOptions,
    MapOptions,
    MetaParams,
    PageTypeChoice,
    ResearchParams,
    SearchParams,
    validated,
)
from .search.batch import BatchItem
from .store.discoveries import DiscoveryLog

# The research stack, the search service and extraction load when first used (the properties
# and methods below import them), so that a command pays only for what it runs.
if TYPE_CHECKING:
    from .compute import Compute
    from .crawl.crawler import Crawler, CrawlRunner
    from .crawl.map import Mapper
    from .fetch.fetcher import Fetcher
    from .jobs.executor import Executor
    from .jobs.kinds import Kind
    from .jobs.worker import Worker
    from .net.http import HttpClient
    from .net.resolver import Resolver
    from .net.robots import RobotsCache
    from .params import SitemapMode
    from .research.agent import ResearchAgent
    from .research.llm import LLM
    from .research.runner import ResearchRunner
    from .research.sleep import Sleeper
    from .search.service import SearchService
    from .store.frontier import FrontierStore
    from .store.jobs import Job, JobStore
    from .store.usage import UsageLedger
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
        jobs_url = self.settings.effective_jobs_url()  # Redis: one list for every replica
        self.discoveries = DiscoveryLog(
            self.settings.effective_discoveries_path(),
            redis_url=jobs_url if jobs_url.startswith(("redis://", "rediss://")) else None,
        )
        self._search: SearchService | None = None
        self._llm: LLM | None = None
        self._jobs: JobStore | None = None
        self._runner: ResearchRunner | None = None
        self._executor: Executor | None = None
        self._ledger: UsageLedger | None = None
        # How usage is limited and recorded; a host (serve, worker) adds quota, cap, metrics.
        self.billing = Billing(ledger=lambda: self.ledger)
        self._sleeper: Sleeper | None = None
        self._mapper: Mapper | None = None
        self._frontier: FrontierStore | None = None
        self._crawls: CrawlRunner | None = None

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
    def jobs(self) -> JobStore:
        if self._jobs is None:
            from .store.jobs import open_job_store

            self._jobs = open_job_store(self.settings.effective_jobs_url())
        return self._jobs

    @property
    def ledger(self) -> UsageLedger:
        """What each client (API key) spent, beside the jobs (shared when scaled out)."""
        if self._ledger is None:
            from .store.usage import open_usage_ledger

            self._ledger = open_usage_ledger(self.settings.effective_jobs_url())
        return self._ledger

    async def usage(self, key: str) -> dict[str, Any]:
        """A client's usage record: searches (by provider), pages and tokens."""
        from .store.usage import summarize

        return summarize(await self.ledger.totals(key))

    @property
    def job_kinds(self) -> dict[str, Kind]:
        """The kinds of job this Client's workers run, by name."""
        from .crawl.crawler import crawl_kind
        from .research.runner import research_kind

        return {
            "research": research_kind(self._research_agent),
            "crawl": crawl_kind(lambda: self.crawler, lambda: self.jobs),
        }

    @property
    def executor(self) -> Executor:
        """Runs jobs in this process under one worker identity (its leases' owner)."""
        if self._executor is None:
            from .jobs.executor import Executor
            from .jobs.worker import worker_id

            self._executor = Executor(
                self.jobs,
                self.job_kinds,
                worker=worker_id(),
                lease=self.settings.job_lease,
                billing=self.billing,
            )
        return self._executor

    @property
    def runner(self) -> ResearchRunner:
        """Research jobs; background jobs need the Client entered (`async with`)."""
        if self._runner is None:
            from .research.runner import ResearchRunner

            self._runner = ResearchRunner(self.jobs, self.executor, local=self.settings.run_jobs)
        return self._runner

    @property
    def frontier(self) -> FrontierStore:
        """Crawls' frontiers and results, beside the jobs (shared by the same workers)."""
        if self._frontier is None:
            from .store.frontier import open_frontier_store

            self._frontier = open_frontier_store(self.settings.effective_jobs_url())
        return self._frontier

    @property
    def crawler(self) -> Crawler:
        from .crawl.crawler import Crawler

        return Crawler(
            self.fetcher,
            self.robots,
            self.frontier,
            user_agent=self.settings.user_agent,
            respect_robots=self.settings.respect_robots,
            fetch_timeout=self.settings.timeout,
            compute=self.compute,
            host_concurrency=self.settings.crawl_host_concurrency,
        )

    @property
    def crawls(self) -> CrawlRunner:
        """Crawl jobs; background crawls need the Client entered (`async with`)."""
        if self._crawls is None:
            from .crawl.crawler import CrawlRunner

            self._crawls = CrawlRunner(
                self.jobs, self.executor, self.frontier, local=self.settings.run_jobs
            )
            # Background crawls run in the research runner's task group when the Client has
            # one (entered with it); `async with client.crawls:` gives them their own.
            self._crawls.fallback = lambda: self._runner._group if self._runner else None
        return self._crawls

    def worker(self) -> Worker:
        """A worker that claims any job from the store (`netsift worker`, `netsift serve`)."""
        from .jobs.worker import Worker

        return Worker(
            self.jobs,
            self.job_kinds,
            lease=self.settings.job_lease,
            concurrency=self.settings.worker_concurrency,
            stop_timeout=self.settings.job_stop_timeout,
            executor=self.executor,
        )

    @property
    def sleeper(self) -> Sleeper:
        if self._sleeper is None:
            from .research.sleep import Sleeper
            from .store.sleeps import open_sleep_store

            url = self.settings.effective_jobs_url()  # Redis: shared like jobs
            self._sleeper = Sleeper(
                open_sleep_store(url), self.jobs, max_seconds=self.settings.max_sleep
            )
        return self._sleeper

    @property
    def mapper(self) -> Mapper:
        """Maps sites with this Client's guard, robots cache and Fetcher."""
        if self._mapper is None:
            from .crawl.map import Mapper

            self._mapper = Mapper(self.settings, self.http, self.robots, self.fetcher)
        return self._mapper

    def _research_agent(self) -> ResearchAgent:
        from .research.agent import ResearchAgent

        return ResearchAgent(
            self.search_service, self.fetcher, llm=self.llm, discoveries=self.discoveries
        )

    async def __aenter__(self) -> Self:
        if self.settings.enabled("research"):
            await self.runner.__aenter__()
            self._entered = True
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        if getattr(self, "_entered", False) and self._runner is not None:
            self._entered = False
            await self._runner.__aexit__(None, None, None)
        if self._frontier is not None:
            await self._frontier.aclose()
        if self._llm is not None:
            await self._llm.aclose()
        if self._jobs is not None:
            await self._jobs.aclose()
        if self._ledger is not None:
            await self._ledger.aclose()
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
    ) -> Page:
        """Fetch `url` and return its readable content as a Page.

        `page_type` is "auto" (classify the page) or a type to read an HTML page as.
        `render` runs the page's JavaScript in the guarded browser: "auto" (JavaScript shells
        only), "always" or "never"; None takes the host's default (netsift.render.step).
        `keep_source` also returns the decoded body as served on `Page.source`; `keep_hidden`
        keeps the text a page hides from its visitors (dropped by default). Bad
        arguments raise InvalidInput, checked by the same model every other door uses.
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
        )
        return await self.fetcher.fetch(**params.model_dump())

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

    async def meta(self, url: str, *, respect_robots: bool | None = None) -> Metadata:
        """The link-preview card of `url`: title, description, image, site name, favicon…"""
        params = validated(MetaParams, url=url, respect_robots=respect_robots)
        page = await self.fetch(params.url, respect_robots=params.respect_robots, max_length=1)
        return page.metadata.model_copy(update={"page_type": page.page_type})

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
        job, report = await self.runner.run(params)
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
        }
        params = validated(
            CrawlParams, url=url, **{name: v for name, v in options.items() if v is not None}
        )
        job, _ = await self.crawls.run(params)
        if job.status != "done":
            raise _job_error(job)
        return await self.crawls.report(job)

    async def start_crawl(self, params: CrawlParams) -> Job:
        """Start a crawl job in the background; follow it with `crawls.stream(job.id)`."""
        self._require("fetch")
        return await self.crawls.start(params)

    async def start_research(self, params: ResearchParams) -> Job:
        """Start a research job in the background; follow it with `runner.follow(job.id)`."""
        self._require("research")
        return await self.runner.start(params)


def _job_error(job: Job) -> Exception:
    from .errors import NetsiftError, error_from_dict

    if job.error:
        return error_from_dict(job.error)
    return NetsiftError(f"{job.kind} job {job.id} ended {job.status}")
