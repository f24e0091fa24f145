"""Sends the root paths that compatible clients build to those APIs' routes (ASGI middleware).

firecrawl-py drops any path from its base URL (`/v2/scrape`, `/v1/search` at the root), and
SearXNG's callers query `/search` or the base URL itself (`/?q=…&format=json`). Only
`POST /v1/search`, `POST /v1/map` and `POST /v1/crawl` are also netsift's own: a body is
Firecrawl's when it has a field netsift's forbids and at least one of Firecrawl's fields for
that call, so no valid netsift request is ever diverted. A crawl's `GET`/`DELETE
/v1/crawl/{id}` go to Firecrawl's when the id is one Firecrawl's door gave out (`fc-…`),
which netsift's own ids never are.
"""

from __future__ import annotations

import json
from urllib.parse import parse_qs

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ...params import CrawlParams, SearchParams
from ..responses import MapRequest, SearchRequest
from . import firecrawl, searxng

__all__ = ["CompatRouting", "is_firecrawl_crawl", "is_firecrawl_search"]

# Firecrawl v1 search fields (firecrawl-py 4.x and its API reference).
FIRECRAWL_SEARCH_FIELDS = frozenset(
    {
        "limit",
        "tbs",
        "filter",
        "lang",
        "country",
        "location",
        "timeout",
        "scrapeOptions",
        "origin",
        "integration",
        "ignoreInvalidURLs",
        "sources",
        "categories",
    }
)
NETSIFT_SEARCH_FIELDS = frozenset(SearchRequest.model_fields) | frozenset(SearchParams.model_fields)
# Firecrawl v1 map fields (firecrawl-py 4.x `map_url`); netsift's own map has none of them.
FIRECRAWL_MAP_FIELDS = frozenset(
    {
        "search",
        "ignoreSitemap",
        "sitemapOnly",
        "includeSubdomains",
        "timeout",
        "useIndex",
        "location",
        "origin",
        "integration",
        "sitemap",
        "ignoreQueryParameters",
    }
)
NETSIFT_MAP_FIELDS = frozenset(MapRequest.model_fields)
# Firecrawl v1/v2 crawl fields (firecrawl-py 4.x `crawl_url`, `crawl`); netsift's crawl has
# none of them (`url` is shared; `max_depth` is netsift's spelling, `maxDepth` Firecrawl's).
FIRECRAWL_CRAWL_FIELDS = frozenset(
    {
        "limit",
        "includePaths",
        "excludePaths",
        "maxDepth",
        "maxDiscoveryDepth",
        "crawlEntireDomain",
        "allowBackwardLinks",
        "allowExternalLinks",
        "allowSubdomains",
        "ignoreSitemap",
        "sitemap",
        "ignoreQueryParameters",
        "deduplicateSimilarURLs",
        "regexOnFullURL",
        "ignoreRobotsTxt",
        "robotsUserAgent",
        "delay",
        "maxConcurrency",
        "webhook",
        "scrapeOptions",
        "zeroDataRetention",
        "prompt",
        "origin",
        "integration",
    }
)
NETSIFT_CRAWL_FIELDS = frozenset(CrawlParams.model_fields)


def is_firecrawl_search(body: bytes) -> bool:
    """Whether a `POST /v1/search` body is Firecrawl's rather than netsift's (see above)."""
    return _is_firecrawl(body, NETSIFT_SEARCH_FIELDS, FIRECRAWL_SEARCH_FIELDS)


def is_firecrawl_map(body: bytes) -> bool:
    """Whether a `POST /v1/map` body is Firecrawl's rather than netsift's (as for search)."""
    return _is_firecrawl(body, NETSIFT_MAP_FIELDS, FIRECRAWL_MAP_FIELDS)


def is_firecrawl_crawl(body: bytes) -> bool:
    """Whether a `POST /v1/crawl` body is Firecrawl's rather than netsift's (as for search)."""
    return _is_firecrawl(body, NETSIFT_CRAWL_FIELDS, FIRECRAWL_CRAWL_FIELDS)


def _is_firecrawl(body: bytes, netsift: frozenset[str], firecrawl: frozenset[str]) -> bool:
    try:
        data = json.loads(body)
    except ValueError:
        return False
    if not isinstance(data, dict):
        return False
    fields = set(data)
    return bool(fields - netsift) and bool(fields & firecrawl)


def _target(scope: Scope) -> str | None:
    """Where a compatible client's request goes, when the path alone says so."""
    path: str = scope["path"]
    method: str = scope["method"]
    if path.startswith("/v2/") or path == "/v1/scrape":
        return firecrawl.PREFIX + path
    if path.startswith(_FIRECRAWL_CRAWL_ID) and method in ("GET", "HEAD", "DELETE"):
        return firecrawl.PREFIX + path  # a crawl id only Firecrawl's door gives out
    if path == "/search" and method in ("GET", "HEAD"):
        return searxng.PREFIX + "/search"
    if path == "/" and method in ("GET", "HEAD"):
        query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
        if query.get("format") == ["json"] and "q" in query:
            return searxng.PREFIX + "/search"
    return None


# netsift's own routes whose path Firecrawl's v1 client also posts to, told apart by body.
_SHARED = {
    "/v1/search": is_firecrawl_search,
    "/v1/map": is_firecrawl_map,
    "/v1/crawl": is_firecrawl_crawl,
}
_FIRECRAWL_CRAWL_ID = "/v1/crawl/" + firecrawl.CRAWL_ID_PREFIX


class CompatRouting:
    """Rewrites a compatible client's path to its API's prefix; everything else passes."""

    def __init__(self, app: ASGIApp, *, max_body: int) -> None:
        self.app = app
        self.max_body = max_body

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        target = _target(scope)
        path = scope["path"]
        if target is None and path in _SHARED and scope["method"] == "POST":
            body, receive = await _buffer(receive, self.max_body)
            if body is not None and _SHARED[path](body):
                target = firecrawl.PREFIX + path
        if target is not None:
            scope = {**scope, "path": target, "raw_path": target.encode()}
        await self.app(scope, receive, send)


async def _buffer(receive: Receive, limit: int) -> tuple[bytes | None, Receive]:
    """Read the request body (up to `limit`; past it, None) and a `receive` that replays it."""
    messages: list[Message] = []
    size = 0
    more = True
    while more:
        message = await receive()
        messages.append(message)
        if message["type"] != "http.request":
            break
        size += len(message.get("body", b""))
        more = message.get("more_body", False)
        if size > limit:
            break
    body = None if more or size > limit else b"".join(m.get("body", b"") for m in messages)

    async def replay() -> Message:
        if messages:
            return messages.pop(0)
        return await receive()

    return body, replay
