"""Firecrawl's API (`firecrawl-py` v1 and v2, its MCP server) over netsift: scrape, search, map.

firecrawl-py v2 builds `urljoin(api_url + "/", "/v2/scrape")`, which drops any path in its base
URL, so Firecrawl's routes answer at the host root (`/v1/scrape`, `/v2/scrape`, `/v2/search`,
and `/v1/search` for a Firecrawl body — routing.py tells it from netsift's own) as well as under
`/firecrawl`. A client switches with `api_url="http://HOST:8080"` and a netsift key.

Answers keep Firecrawl's `{success, data}` envelope and its errors `{success: false, error}`
with the statuses firecrawl-py maps to its exceptions (403 website not supported, 408
timeout, 429 rate limit). `skipTlsVerification` is accepted and ignored: netsift always
verifies certificates.
"""

from __future__ import annotations

from typing import Any, Literal

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field

from ...errors import InvalidInput, NetsiftError
from ...models import ContentFormat, MapLink, Page, SearchResult
from ...params import MAX_MAP_LIMIT, MAX_QUERY_CHARS
from ..deps import CallerDep, StateDep
from ..operations import Operations
from ..responses import FetchRequest, MapRequest, SearchRequest, status_of
from .shared import build, error_reply, parse_body, rank_score, time_range_of

__all__ = ["PREFIX", "render_error", "router"]

PREFIX = "/firecrawl"
MAX_SEARCH_LIMIT = 50  # netsift's per-search ceiling (params.py); Firecrawl's own is 100
# Formats netsift serves; the others (screenshot, json, summary…) are refused by name rather
# than silently left out or answered with something else.
SERVED_FORMATS = {"markdown", "html", "rawHtml", "links"}
# Firecrawl's error codes that firecrawl-py turns into their own exception classes.
_CODES = {"dns_error": "SCRAPE_DNS_RESOLUTION_ERROR", "tls_error": "SCRAPE_SSL_ERROR"}
# Firecrawl's statuses where netsift's differ: a timeout is 408 there, a failed upstream 500
# (firecrawl-py retries 502s, which would repeat a fetch netsift already reported as failed).
_STATUS = {504: 408, 502: 500, 422: 400, 413: 400, 415: 400}

router = APIRouter(prefix=PREFIX, tags=["compat: firecrawl"], include_in_schema=False)


class _Lenient(BaseModel):
    model_config = ConfigDict(extra="ignore", populate_by_name=True)


class ScrapeOptions(_Lenient):
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


def _formats(options: ScrapeOptions) -> set[str]:
    names = {f if isinstance(f, str) else str(f.get("type", "")) for f in options.formats}
    unknown = sorted(names - SERVED_FORMATS)
    if unknown:
        raise InvalidInput(
            f"formats {', '.join(unknown)} are not served by netsift; "
            f"ask for {', '.join(sorted(SERVED_FORMATS))}",
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
