"""Sends each compatible client's request to its API's prefix, by listener, path, method and
query string alone (ASGI middleware): no body is read to choose a route.

- The Firecrawl listener (`netsift serve --firecrawl-port`, NETSIFT_FIRECRAWL_PORT): every path
  on it is Firecrawl's, v1 and v2. firecrawl-py drops any path from its base URL, and
  Firecrawl v1's `/v1/search`, `/v1/map` and `/v1/crawl` are netsift's own paths on the main
  port, so v1 clients need a root of their own.
- The main port: `/v2/…` is Firecrawl's (netsift's own API is `/v1/…`, so v2 clients can use
  this root too); `GET /search`, and `GET /` with `q` and `format=json`, are SearXNG's (its
  callers query `/search` or the base URL as given; `/` is otherwise the web page).
- Each API also answers under its prefix (`/firecrawl`, `/tavily`, `/searxng`) on the main port.
"""

from __future__ import annotations

from urllib.parse import parse_qs

from starlette.types import ASGIApp, Receive, Scope, Send

from . import firecrawl, searxng
from .shared import ROUTED_FROM

__all__ = ["CompatRouting", "target"]

READ_METHODS = ("GET", "HEAD")
FIRECRAWL_ROOT = "/v2/"  # Firecrawl's v2 paths, at the main port's root


def target(scope: Scope, *, firecrawl_port: int | None) -> str | None:
    """The path a compatible client's request is served from, or None for netsift's own."""
    path: str = scope["path"]
    server = scope.get("server")
    if firecrawl_port is not None and server is not None and server[1] == firecrawl_port:
        return firecrawl.PREFIX + path
    if path.startswith(FIRECRAWL_ROOT):
        return firecrawl.PREFIX + path
    if scope["type"] != "http" or scope["method"] not in READ_METHODS:
        return None
    if path == "/search":
        return searxng.PREFIX + "/search"
    if path == "/":
        query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
        if query.get("format") == ["json"] and "q" in query:
            return searxng.PREFIX + "/search"
    return None


class CompatRouting:
    """Rewrites a compatible client's path to its API's prefix; everything else passes."""

    def __init__(self, app: ASGIApp, *, firecrawl_port: int | None) -> None:
        self.app = app
        self.firecrawl_port = firecrawl_port

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] in ("http", "websocket"):
            path = target(scope, firecrawl_port=self.firecrawl_port)
            if path is not None:
                sent = scope["path"]
                scope = {**scope, "path": path, "raw_path": path.encode(), ROUTED_FROM: sent}
        await self.app(scope, receive, send)
