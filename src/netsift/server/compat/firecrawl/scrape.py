"""Firecrawl's one-call operations: scrape, search (optionally scraping each result) and map."""

from __future__ import annotations

from typing import Any

from fastapi import Request
from pydantic import Field

from ....at_once import each
from ....errors import NetsiftError
from ....models import MapLink, SearchResult
from ....params import MAX_MAP_LIMIT, MAX_QUERY_CHARS
from ...deps import CallerDep, StateDep
from ...operations import Operations
from ...responses import MapRequest, SearchRequest
from ..shared import build, parse_body, rank_score, time_range_of
from .common import Lenient, ScrapeOptions, SitemapChoice, document, seconds
from .paths import new_router
from .url import FirecrawlUrl

__all__ = ["router"]

MAX_SEARCH_LIMIT = 50  # netsift's per-search ceiling (params.py); Firecrawl's own is 100

router = new_router()


class Scrape(ScrapeOptions):
    url: FirecrawlUrl


class Search(Lenient):
    query: str = Field(min_length=1, max_length=MAX_QUERY_CHARS)
    limit: int = Field(default=5, ge=1, le=100)
    tbs: str | None = None
    lang: str | None = None
    country: str | None = None
    timeout: int | None = Field(default=None, gt=0)
    scrape_options: ScrapeOptions | None = Field(default=None, alias="scrapeOptions")


class Map(SitemapChoice):
    url: FirecrawlUrl
    search: str | None = None
    include_subdomains: bool = Field(default=False, alias="includeSubdomains")
    limit: int = Field(default=MAX_MAP_LIMIT, ge=1)
    timeout: int | None = Field(default=None, gt=0)  # milliseconds


@router.post("/v2/scrape", summary="Firecrawl v2 scrape")
@router.post("/v1/scrape", summary="Firecrawl v1 scrape")
async def scrape(request: Request, state: StateDep, caller: CallerDep) -> dict[str, Any]:
    params: Scrape = parse_body(Scrape, await request.body())
    fields = await document(Operations(state, caller), params.url, params)
    return {"success": True, "data": fields}


async def _search(request: Request, state: StateDep, caller: CallerDep) -> list[dict[str, Any]]:
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
        await _scrape_each(ops, items, params.scrape_options)
    return items


async def _scrape_each(
    ops: Operations, items: list[dict[str, Any]], options: ScrapeOptions
) -> None:
    """Each result read as a scrape's document, a few at once (at_once.py); a
    result that cannot be read carries its error and the others are kept. Firecrawl answers
    whole pages here (its clients read `markdown` as the page), so `context`'s budgeted
    passages are the netsift door for an agent that wants less."""

    async def scrape(item: dict[str, Any]) -> None:
        try:
            item.update(await document(ops, item["url"], options))
        except NetsiftError as error:
            item["error"] = {"code": error.code, "message": error.message}

    await each(items, scrape)


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
    return {"success": True, "data": {"web": await _search(request, state, caller)}}


@router.post("/v1/search", summary="Firecrawl v1 search")
async def search_v1(request: Request, state: StateDep, caller: CallerDep) -> dict[str, Any]:
    return {"success": True, "data": await _search(request, state, caller)}


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
        timeout=seconds(params.timeout),
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
