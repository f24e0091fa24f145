"""Firecrawl's crawl: a netsift crawl job, started, polled page by page, cancelled, its errors
and the caller's active crawls."""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urlsplit

from fastapi import Request
from pydantic import Field

from ....errors import InvalidInput
from ....params import CrawlParams
from ...deps import Caller, CallerDep, StateDep
from ..shared import build, crawl_include, parse_body
from .account import active_jobs
from .change_tracking import CHANGE_TRACKING
from .common import ScrapeOptions, SitemapChoice, api_root, formats_of
from .extract import STRUCTURED_FORMATS
from .job_formats import Asked, ask, remember
from .paths import new_router
from .status import job_routes
from .url import FirecrawlUrl

__all__ = ["CRAWL_FORMATS", "router"]

# A crawl keeps each page in one content format (Markdown or main-content HTML) with its links,
# so those are the formats a crawl serves, one content format per crawl; and the structured
# ones and change tracking, which each document gets as a scrape does (job_formats.py).
CRAWL_FORMATS = {"markdown", "html", "links", CHANGE_TRACKING, *STRUCTURED_FORMATS}
CRAWL = "crawl"
# netsift's crawl reads the sitemaps unless told otherwise (Firecrawl's default too), so only
# another choice is passed on.
DEFAULT_SITEMAP = "include"

router = new_router()


class Crawl(SitemapChoice):
    url: FirecrawlUrl
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


def crawl_params(params: Crawl) -> tuple[CrawlParams, Asked]:
    """netsift's crawl for Firecrawl's fields, and the derived formats its documents get;
    what netsift cannot honour is refused by name."""
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
    options = params.scrape_options or ScrapeOptions()
    formats = formats_of(options, CRAWL_FORMATS)
    derived = ask(options, formats)
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
    if (sitemap := params.sitemaps()) != DEFAULT_SITEMAP:
        fields["sitemap"] = sitemap
    return build(CrawlParams, **fields), derived


async def _start(request: Request, state: StateDep, caller: Caller, version: str) -> dict[str, Any]:
    """Start the crawl; a start URL netsift refuses (a blocked address, robots.txt) is its
    error at once (403, Firecrawl's WebsiteNotSupported), as Client.start_crawl raises it."""
    params = parse_body(Crawl, await request.body())
    crawl, asked = crawl_params(params)
    job = await state.require_client().start_crawl(crawl)
    remember(job.id, params.scrape_options or ScrapeOptions(), asked, owner=caller.key)
    return {"success": True, "id": job.id, "url": f"{api_root(request)}/{version}/crawl/{job.id}"}


@router.post("/v2/crawl", summary="Firecrawl v2 crawl: start a crawl job")
async def crawl_v2(request: Request, state: StateDep, caller: CallerDep) -> dict[str, Any]:
    return await _start(request, state, caller, "v2")


@router.post("/v1/crawl", summary="Firecrawl v1 crawl: start a crawl job")
async def crawl_v1(request: Request, state: StateDep, caller: CallerDep) -> dict[str, Any]:
    return await _start(request, state, caller, "v1")


@router.post("/v2/crawl/params-preview", summary="Firecrawl crawl params preview: refused")
async def params_preview(_: CallerDep) -> dict[str, Any]:
    """Firecrawl asks a model to turn a prompt into crawl options here; netsift does not guess
    a crawl's options, so the call is refused by name rather than answered with a guess."""
    raise InvalidInput(
        "crawl/params-preview: netsift does not derive a crawl's options from a prompt; pass "
        "them to POST /v2/crawl (its prompt orders the pages best-first)",
        details={"field": "params-preview"},
    )


@router.get("/v2/crawl/active", summary="Firecrawl active crawls")
@router.get("/v1/crawl/active", summary="Firecrawl active crawls")
async def active_crawls(state: StateDep, caller: CallerDep) -> dict[str, Any]:
    """The caller's crawls not yet ended (queued or running), with their netsift options."""
    running, queued = await active_jobs(state, caller)
    crawls = [
        {
            "id": job.id,
            "teamId": caller.key,
            "url": str(job.params.get("url", "")),
            "created_at": job.created_at.isoformat(),
            "options": job.params,
        }
        for job in running + queued
        if job.kind == CRAWL
    ]
    return {"success": True, "crawls": crawls}


job_routes(router, CRAWL, "crawl", "crawl")  # after /crawl/active, which it would shadow
