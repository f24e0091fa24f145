"""Firecrawl's API (`firecrawl-py` v1 and v2, its MCP server) over netsift: scrape, search, map
and crawl (a netsift crawl job, polled and cancelled by its id).

firecrawl-py builds `urljoin(api_url + "/", "/v2/scrape")`, which drops any path in its base
URL, so Firecrawl's clients need a host root (routing.py): the Firecrawl listener's
(`netsift serve --firecrawl-port 3002`) serves v1 and v2, the main port's serves v2 (its `/v1/`
is netsift's own). Everything also answers under `/firecrawl` on the main port.

Answers keep Firecrawl's `{success, data}` envelope and its errors `{success: false, error}`
with the statuses firecrawl-py maps to its exceptions (403 website not supported, 408
timeout, 429 rate limit). `skipTlsVerification` is accepted and ignored: netsift always
verifies certificates.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from datetime import timedelta
from typing import Annotated, Any, Literal
from urllib.parse import urlsplit

from fastapi import APIRouter, Query, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field

from ...errors import BlockedByRobots, InvalidInput, NetsiftError
from ...jobs.model import Job, JobStatus
from ...models import ContentFormat, MapLink, Page, SearchResult
from ...params import MAX_MAP_LIMIT, MAX_QUERY_CHARS, CrawlParams
from ..deps import Caller, CallerDep, ServerState, StateDep
from ..operations import Operations
from ..responses import FetchRequest, MapRequest, SearchRequest, status_of
from .firecrawl_extract import STRUCTURED_FORMATS, StructuredOptions, structured_fields
from .shared import (
    ROUTED_FROM,
    build,
    crawl_include,
    error_reply,
    parse_body,
    rank_score,
    time_range_of,
)

__all__ = ["PREFIX", "render_error", "router"]

PREFIX = "/firecrawl"
MAX_SEARCH_LIMIT = 50  # netsift's per-search ceiling (params.py); Firecrawl's own is 100
# Formats netsift serves; the others (screenshot, json, summary…) are refused by name rather
# than silently left out or answered with something else.
SERVED_FORMATS = {"markdown", "html", "rawHtml", "links", *STRUCTURED_FORMATS}
# Firecrawl's error codes that firecrawl-py turns into their own exception classes.
_CODES = {"dns_error": "SCRAPE_DNS_RESOLUTION_ERROR", "tls_error": "SCRAPE_SSL_ERROR"}
# Firecrawl's statuses where netsift's differ: a timeout is 408 there, a failed upstream 500
# (firecrawl-py retries 502s, which would repeat a fetch netsift already reported as failed).
_STATUS = {504: 408, 502: 500, 422: 400, 413: 400, 415: 400}
# A crawl keeps each page in one content format (Markdown or main-content HTML) with its links,
# so those are the formats a crawl serves, one content format per crawl.
CRAWL_FORMATS = {"markdown", "html", "links"}
ROBOTS_CODE = BlockedByRobots.code
CRAWL_PAGE_SIZE = 50  # documents per status answer; `next` points at the rest
# `expiresAt`: Firecrawl keeps a crawl's results 24 hours, and its v1 client requires the field.
# netsift keeps them longer (until the job store is cleared), so this is a lower bound.
CRAWL_KEPT = timedelta(hours=24)
# Firecrawl's self-hosted answer for a team without a credit plan (its clients want a number).
# netsift sells no credits: a host's limits are its rate limit and search quota (429 past them).
UNMETERED = 99_999_999
JOBS_PAGE = 200  # jobs read from the store per call while collecting one caller's
# netsift's job statuses in Firecrawl's words.
_CRAWL_STATUS = {
    "queued": "scraping",
    "running": "scraping",
    "done": "completed",
    "failed": "failed",
    "interrupted": "failed",
    "cancelled": "cancelled",
}

router = APIRouter(prefix=PREFIX, tags=["compat: firecrawl"], include_in_schema=False)


class _Lenient(BaseModel):
    model_config = ConfigDict(extra="ignore", populate_by_name=True)


class ScrapeOptions(StructuredOptions, _Lenient):
    formats: list[str | dict[str, Any]] = ["markdown"]  # pydantic copies the default
    only_main_content: bool = Field(default=True, alias="onlyMainContent")
    max_age: int | None = Field(default=None, ge=0, alias="maxAge")
    store_in_cache: bool = Field(default=True, alias="storeInCache")
    timeout: int | None = Field(default=None, gt=0)  # milliseconds


class Scrape(ScrapeOptions):
    url: str = Field(min_length=1)


class Search(_Lenient):
    query: str = Field(min_length=1, max_length=MAX_QUERY_CHARS)
    limit: int = Field(default=5, ge=1, le=100)
    tbs: str | None = None
    lang: str | None = None
    country: str | None = None
    timeout: int | None = Field(default=None, gt=0)
    scrape_options: ScrapeOptions | None = Field(default=None, alias="scrapeOptions")


class Crawl(_Lenient):
    url: str = Field(min_length=1)
    limit: int | None = Field(default=None, ge=1)
    include_paths: list[str] = Field(default_factory=list, alias="includePaths")
    exclude_paths: list[str] = Field(default_factory=list, alias="excludePaths")
    max_depth: int | None = Field(default=None, ge=0, alias="maxDepth")  # v1
    max_discovery_depth: int | None = Field(default=None, ge=0, alias="maxDiscoveryDepth")
    crawl_entire_domain: bool | None = Field(default=None, alias="crawlEntireDomain")
    allow_backward_links: bool | None = Field(default=None, alias="allowBackwardLinks")  # v1
    allow_external_links: bool = Field(default=False, alias="allowExternalLinks")
    allow_subdomains: bool = Field(default=False, alias="allowSubdomains")
    ignore_robots_txt: bool = Field(default=False, alias="ignoreRobotsTxt")
    regex_on_full_url: bool = Field(default=False, alias="regexOnFullURL")
    webhook: Any = None
    prompt: str | None = None
    scrape_options: ScrapeOptions | None = Field(default=None, alias="scrapeOptions")

    def whole_site(self) -> bool:
        if self.crawl_entire_domain is not None:
            return self.crawl_entire_domain
        return bool(self.allow_backward_links)


class Map(_Lenient):
    url: str = Field(min_length=1)
    search: str | None = None
    include_subdomains: bool = Field(default=False, alias="includeSubdomains")
    limit: int = Field(default=MAX_MAP_LIMIT, ge=1)
    sitemap: Literal["include", "only", "skip"] | None = None  # v2
    ignore_sitemap: bool | None = Field(default=None, alias="ignoreSitemap")  # v1
    sitemap_only: bool | None = Field(default=None, alias="sitemapOnly")  # v1
    timeout: int | None = Field(default=None, gt=0)  # milliseconds

    def sitemaps(self) -> Literal["include", "only", "skip"]:
        if self.sitemap is not None:
            return self.sitemap
        if self.sitemap_only:
            return "only"
        return "skip" if self.ignore_sitemap else "include"


def render_error(error: NetsiftError) -> JSONResponse:
    status = status_of(error)
    body: dict[str, Any] = {"success": False, "error": error.message, "details": error.code}
    if code := _CODES.get(error.code):
        body["code"] = code
    return error_reply(body, error, status=_STATUS.get(status, status))


def api_root(request: Request) -> str:
    """The URL this client reaches Firecrawl's API at: a host root when routing brought it
    there, else the `/firecrawl` prefix it asked under."""
    root = str(request.base_url).rstrip("/")
    return root if ROUTED_FROM in request.scope else root + PREFIX


def _formats(options: ScrapeOptions, served: set[str] = SERVED_FORMATS) -> set[str]:
    names = {f if isinstance(f, str) else str(f.get("type", "")) for f in options.formats}
    unknown = sorted(names - served)
    if unknown:
        raise InvalidInput(
            f"formats {', '.join(unknown)} are not served by netsift here; "
            f"ask for {', '.join(sorted(served))}",
            details={"formats": unknown},
        )
    return names or {"markdown"}


def _seconds(milliseconds: int | None) -> float | None:
    return None if milliseconds is None else milliseconds / 1000


def _no_cache(options: ScrapeOptions) -> bool:
    """`maxAge: 0` asks for a fresh read; netsift's page cache is short-lived either way."""
    return options.max_age == 0


def _metadata(page: Page) -> dict[str, Any]:
    meta = page.metadata
    fields: dict[str, Any] = {
        "title": page.title or meta.title,
        "description": meta.description,
        "language": meta.lang,
        "sourceURL": page.url,
        "url": page.final_url,
        "statusCode": page.status,
        "contentType": page.content_type,
        "ogTitle": meta.opengraph.get("title"),
        "ogDescription": meta.opengraph.get("description"),
        "ogImage": meta.image,
        "ogSiteName": meta.site_name,
        "favicon": meta.favicon,
        "publishedTime": meta.published,
        "author": meta.author,
        "pageType": page.page_type,
    }
    return {key: value for key, value in fields.items() if value is not None}


async def _document(ops: Operations, url: str, options: ScrapeOptions) -> dict[str, Any]:
    """One Firecrawl Document: each format asked for, read through the one fetch operation."""
    formats = _formats(options)
    wanted: list[ContentFormat] = [fmt for fmt in ("markdown", "html") if fmt in formats]
    timeout, no_cache = _seconds(options.timeout), _no_cache(options)
    keep_source = "rawHtml" in formats  # the page as served, beside its extracted content
    pages: dict[str, Page] = {}
    for fmt in wanted or ["markdown"]:
        request = build(FetchRequest, url=url, format=fmt)
        pages[fmt] = await ops.fetch(
            request, timeout=timeout, no_cache=no_cache, keep_source=keep_source
        )
    first = next(iter(pages.values()))
    document: dict[str, Any] = {"metadata": _metadata(first)}
    if "markdown" in formats:
        document["markdown"] = pages["markdown"].content
    if "html" in formats:
        document["html"] = pages["html"].content
    if "rawHtml" in formats:
        document["rawHtml"] = first.source or ""
    if "links" in formats:
        document["links"] = [link.url for link in first.links]
    document.update(await structured_fields(ops, url, options, formats))
    return document


@router.post("/v2/scrape", summary="Firecrawl v2 scrape")
@router.post("/v1/scrape", summary="Firecrawl v1 scrape")
async def scrape(request: Request, state: StateDep, caller: CallerDep) -> dict[str, Any]:
    params: Scrape = parse_body(Scrape, await request.body())
    document = await _document(Operations(state, caller), params.url, params)
    return {"success": True, "data": document}


async def _search(
    request: Request, state: StateDep, caller: CallerDep
) -> tuple[Search, list[dict[str, Any]]]:
    params: Search = parse_body(Search, await request.body())
    ops = Operations(state, caller)
    response = await ops.search(
        build(
            SearchRequest,
            query=params.query,
            count=min(params.limit, MAX_SEARCH_LIMIT),
            time_range=time_range_of(params.tbs),
            region=params.country,
        )
    )
    items = [_item(result, position) for position, result in enumerate(response.results, 1)]
    if params.scrape_options is not None:
        for item in items:
            try:
                item.update(await _document(ops, item["url"], params.scrape_options))
            except NetsiftError as error:
                item["error"] = {"code": error.code, "message": error.message}
    return params, items


def _item(result: SearchResult, position: int) -> dict[str, Any]:
    item: dict[str, Any] = {
        "url": result.url,
        "title": result.title,
        "description": result.snippet,
        "position": position,
        "score": rank_score(position),
    }
    if result.published:
        item["date"] = result.published
    return item


@router.post("/v2/search", summary="Firecrawl v2 search (web results, optionally scraped)")
async def search_v2(request: Request, state: StateDep, caller: CallerDep) -> dict[str, Any]:
    _, items = await _search(request, state, caller)
    return {"success": True, "data": {"web": items}}


@router.post("/v1/search", summary="Firecrawl v1 search")
async def search_v1(request: Request, state: StateDep, caller: CallerDep) -> dict[str, Any]:
    _, items = await _search(request, state, caller)
    return {"success": True, "data": items}


async def _map(request: Request, state: StateDep, caller: CallerDep) -> list[MapLink]:
    params: Map = parse_body(Map, await request.body())
    result = await Operations(state, caller).map(
        build(
            MapRequest,
            url=params.url,
            limit=min(params.limit, MAX_MAP_LIMIT),
            query=params.search or None,
            subdomains=params.include_subdomains,
            sitemaps=params.sitemaps(),
        ),
        timeout=_seconds(params.timeout),
    )
    return result.links


@router.post("/v2/map", summary="Firecrawl v2 map: links with titles")
async def map_v2(request: Request, state: StateDep, caller: CallerDep) -> dict[str, Any]:
    links = await _map(request, state, caller)
    items = []
    for link in links:
        item: dict[str, Any] = {"url": link.url}
        if link.title:
            item["title"] = link.title
        items.append(item)
    return {"success": True, "links": items}


@router.post("/v1/map", summary="Firecrawl v1 map: links")
async def map_v1(request: Request, state: StateDep, caller: CallerDep) -> dict[str, Any]:
    return {"success": True, "links": [link.url for link in await _map(request, state, caller)]}


# -- crawl ------------------------------------------------------------------------------------


def _crawl_params(params: Crawl) -> CrawlParams:
    """netsift's crawl for Firecrawl's fields; what netsift cannot honour is refused by name."""
    refused = {
        "allowExternalLinks": "netsift keeps a crawl on one site (allowSubdomains opens its "
        "subdomains)",
        "regexOnFullURL": "netsift matches includePaths/excludePaths on the path and query",
        "webhook": "netsift sends no webhooks; poll GET /v2/crawl/{id}",
    }
    asked = {
        "allowExternalLinks": params.allow_external_links,
        "regexOnFullURL": params.regex_on_full_url,
        "webhook": params.webhook is not None,
    }
    for field, why in refused.items():
        if asked[field]:
            raise InvalidInput(f"{field}: {why}", details={"field": field})
    formats = {"markdown"}
    if params.scrape_options is not None:
        formats = _formats(params.scrape_options, CRAWL_FORMATS)
    if {"markdown", "html"} <= formats:
        raise InvalidInput(
            "formats: a netsift crawl keeps one content format a page; ask markdown or html",
            details={"formats": ["html", "markdown"]},
        )
    include = crawl_include(params.url, params.include_paths)
    path = urlsplit(params.url).path
    if not include and not params.whole_site() and path not in ("", "/"):
        # Firecrawl's default: the start URL and the paths below it (not its siblings)
        include = ["^" + re.escape(path.rstrip("/")) + r"(?:/|\?|$)"]
    depth = params.max_discovery_depth
    if depth is None:
        depth = params.max_depth  # v1's path depth, read as links followed (see the docs)
    fields: dict[str, Any] = {
        "url": params.url,
        "include": include,
        "exclude": params.exclude_paths,
        "subdomains": params.allow_subdomains,
        "query": params.prompt or None,
        "format": "html" if "html" in formats else "markdown",
    }
    if params.limit is not None:
        fields["max_pages"] = params.limit
    if depth is not None:
        fields["max_depth"] = depth
    if params.ignore_robots_txt:
        fields["respect_robots"] = False
    return build(CrawlParams, **fields)


async def _crawl_job(state: ServerState, crawl_id: str) -> Job:
    return await state.require_client().job(crawl_id, kind="crawl")


async def _start_crawl(request: Request, state: StateDep, version: str) -> dict[str, Any]:
    params = parse_body(Crawl, await request.body())
    job = await state.require_client().start_crawl(_crawl_params(params))
    return {"success": True, "id": job.id, "url": f"{api_root(request)}/{version}/crawl/{job.id}"}


@router.post("/v2/crawl", summary="Firecrawl v2 crawl: start a crawl job")
async def crawl_v2(request: Request, state: StateDep, _: CallerDep) -> dict[str, Any]:
    return await _start_crawl(request, state, "v2")


@router.post("/v1/crawl", summary="Firecrawl v1 crawl: start a crawl job")
async def crawl_v1(request: Request, state: StateDep, _: CallerDep) -> dict[str, Any]:
    return await _start_crawl(request, state, "v1")


def _crawl_document(page: Page, content: str) -> dict[str, Any]:
    """A crawled page as a Firecrawl Document: its content (`markdown` or `html`), links and
    metadata."""
    return {
        content: page.content,
        "links": [link.url for link in page.links],
        "metadata": _metadata(page),
    }


async def _crawl_status(
    request: Request, state: ServerState, crawl_id: str, since: int, version: str
) -> dict[str, Any]:
    """A page of the crawl's documents (after result `since`), with its progress."""
    client = state.require_client()
    job = await _crawl_job(state, crawl_id)
    rows = await client.crawl_pages(job.id, since=since, limit=CRAWL_PAGE_SIZE)
    progress = await client.crawl_progress(job.id)
    completed = int(progress["pages"])
    planned = int(job.params.get("max_pages", completed))
    content = "html" if job.params.get("format") == "html" else "markdown"
    total = completed if job.finished else max(completed, min(int(progress["seen"]), planned))
    body: dict[str, Any] = {
        "success": True,
        "status": _CRAWL_STATUS.get(job.status, "failed"),
        "completed": completed,
        "total": total,
        "creditsUsed": completed,
        "expiresAt": (job.updated_at + CRAWL_KEPT).isoformat(),
        "data": [_crawl_document(page, content) for _, _, page in rows],
    }
    if len(rows) == CRAWL_PAGE_SIZE:  # more may follow: the next page starts after this one
        body["next"] = f"{api_root(request)}/{version}/crawl/{crawl_id}?since={rows[-1][0]}"
    if job.error:
        body["error"] = str(job.error.get("message", job.status))
    return body


Since = Annotated[int, Query(ge=0, description="After this result (the cursor in `next`).")]


async def _jobs_of(state: ServerState, caller: Caller, status: JobStatus) -> AsyncIterator[Job]:
    """The caller's jobs in `status`, newest first: the ones charged to its key."""
    client = state.require_client()
    before: str | None = None
    while True:
        page = await client.list_jobs(limit=JOBS_PAGE, status=status, before=before)
        for job in page:
            if job.client == caller.key:
                yield job
        if len(page) < JOBS_PAGE:
            return
        before = page[-1].id


async def _active(state: ServerState, caller: Caller) -> tuple[list[Job], list[Job]]:
    """The caller's running and queued jobs (crawls and research alike)."""
    running = [job async for job in _jobs_of(state, caller, "running")]
    queued = [job async for job in _jobs_of(state, caller, "queued")]
    return running, queued


@router.get("/v2/crawl/active", summary="Firecrawl active crawls")
@router.get("/v1/crawl/active", summary="Firecrawl active crawls")
async def active_crawls(state: StateDep, caller: CallerDep) -> dict[str, Any]:
    """The caller's crawls not yet ended (queued or running), with their netsift options."""
    running, queued = await _active(state, caller)
    crawls = [
        {
            "id": job.id,
            "teamId": caller.key,
            "url": str(job.params.get("url", "")),
            "created_at": job.created_at.isoformat(),
            "options": job.params,
        }
        for job in running + queued
        if job.kind == "crawl"
    ]
    return {"success": True, "crawls": crawls}


@router.get("/v2/crawl/{crawl_id}", summary="Firecrawl v2 crawl status, paged")
async def crawl_status_v2(
    crawl_id: str, request: Request, state: StateDep, _: CallerDep, since: Since = 0
) -> dict[str, Any]:
    return await _crawl_status(request, state, crawl_id, since, "v2")


@router.get("/v1/crawl/{crawl_id}", summary="Firecrawl v1 crawl status, paged")
async def crawl_status_v1(
    crawl_id: str, request: Request, state: StateDep, _: CallerDep, since: Since = 0
) -> dict[str, Any]:
    return await _crawl_status(request, state, crawl_id, since, "v1")


@router.delete("/v2/crawl/{crawl_id}", summary="Firecrawl crawl cancel", response_model=None)
@router.delete("/v1/crawl/{crawl_id}", summary="Firecrawl crawl cancel", response_model=None)
async def cancel_crawl(crawl_id: str, state: StateDep, _: CallerDep) -> JSONResponse:
    """Cancel the crawl; one that already ended is Firecrawl's 409 (firecrawl-py: not
    cancelled), its pages still readable."""
    job = await _crawl_job(state, crawl_id)
    if job.finished:
        body = {"success": False, "error": f"crawl {crawl_id} already ended ({job.status})"}
        return JSONResponse(body, status_code=409)
    ended = await state.require_client().cancel_job(job.id, kind="crawl")
    return JSONResponse({"success": True, "status": _CRAWL_STATUS.get(ended.status, "failed")})


@router.get("/v2/crawl/{crawl_id}/errors", summary="Firecrawl crawl errors")
@router.get("/v1/crawl/{crawl_id}/errors", summary="Firecrawl crawl errors")
async def crawl_errors(crawl_id: str, state: StateDep, _: CallerDep) -> dict[str, Any]:
    """The URLs the crawl left out and why; robots.txt refusals listed apart, as Firecrawl's."""
    client = state.require_client()
    job = await _crawl_job(state, crawl_id)
    report = await client.crawl_report(job)
    errors = [
        {"id": str(n), "url": skip.url, "error": skip.message or skip.code, "code": skip.code}
        for n, skip in enumerate(report.skipped, 1)
        if skip.code != ROBOTS_CODE
    ]
    blocked = [skip.url for skip in report.skipped if skip.code == ROBOTS_CODE]
    return {"errors": errors, "robotsBlocked": blocked}


# -- the account: what this key spent and has running -----------------------------------------


def _account(version: str, **fields: int) -> dict[str, Any]:
    """An account answer: v1 spells its fields in snake_case (firecrawl-py's v1 types require
    it), v2 in camelCase."""
    if version == "v2":
        fields = {re.sub(r"_(\w)", lambda m: m[1].upper(), name): n for name, n in fields.items()}
    return {"success": True, "data": fields}


async def _credit_usage(state: ServerState, caller: Caller, version: str) -> dict[str, Any]:
    """Credits in Firecrawl's reckoning (a page read or a search, one each) from the usage
    ledger; netsift sells no credits, so what remains is Firecrawl's unmetered answer."""
    usage = await state.require_client().usage(caller.key)
    used = int(usage["pages"]) + int(usage["searches"])
    return _account(version, remaining_credits=UNMETERED, plan_credits=UNMETERED, credits_used=used)


async def _token_usage(state: ServerState, caller: Caller, version: str) -> dict[str, Any]:
    """Model tokens this key spent (research, chat, answers), from the usage ledger."""
    usage = await state.require_client().usage(caller.key)
    used = int(usage["tokens"])
    return _account(version, remaining_tokens=UNMETERED, plan_tokens=UNMETERED, tokens_used=used)


@router.get("/v2/team/credit-usage", summary="Firecrawl v2 credit usage")
async def credit_usage_v2(state: StateDep, caller: CallerDep) -> dict[str, Any]:
    return await _credit_usage(state, caller, "v2")


@router.get("/v1/team/credit-usage", summary="Firecrawl v1 credit usage")
async def credit_usage_v1(state: StateDep, caller: CallerDep) -> dict[str, Any]:
    return await _credit_usage(state, caller, "v1")


@router.get("/v2/team/token-usage", summary="Firecrawl v2 token usage")
async def token_usage_v2(state: StateDep, caller: CallerDep) -> dict[str, Any]:
    return await _token_usage(state, caller, "v2")


@router.get("/v1/team/token-usage", summary="Firecrawl v1 token usage")
async def token_usage_v1(state: StateDep, caller: CallerDep) -> dict[str, Any]:
    return await _token_usage(state, caller, "v1")


@router.get("/v2/concurrency-check", summary="Firecrawl concurrency check")
@router.get("/v1/concurrency-check", summary="Firecrawl concurrency check")
async def concurrency_check(state: StateDep, caller: CallerDep) -> dict[str, Any]:
    """Jobs of this key running now, against the jobs one worker runs at once."""
    running, _ = await _active(state, caller)
    return {
        "success": True,
        "concurrency": len(running),
        "maxConcurrency": state.settings.worker_concurrency,
    }


@router.get("/v2/team/queue-status", summary="Firecrawl queue status")
@router.get("/v1/team/queue-status", summary="Firecrawl queue status")
async def queue_status(state: StateDep, caller: CallerDep) -> dict[str, Any]:
    """This key's jobs running and waiting, and when its latest one finished well."""
    running, queued = await _active(state, caller)
    latest = await anext(aiter(_jobs_of(state, caller, "done")), None)
    return {
        "success": True,
        "jobsInQueue": len(running) + len(queued),
        "activeJobsInQueue": len(running),
        "waitingJobsInQueue": len(queued),
        "maxConcurrency": state.settings.worker_concurrency,
        "mostRecentSuccess": None if latest is None else latest.updated_at.isoformat(),
    }
