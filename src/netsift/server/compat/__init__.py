"""Drop-in compatible APIs: Tavily, Firecrawl and SearXNG, each a thin translation to the same
operations as netsift's own routes (guard, quotas, metrics and errors are netsift's).

Each lives under its own prefix (`/tavily`, `/firecrawl`, `/searxng`); routing.py also sends
the root paths their clients build there, by listener, path and method only (`/v2/scrape`,
`/search`, `/?format=json`, and every path of the Firecrawl listener). An error on a compatible
route is rendered in that API's own shape, which is what its client parses. Their contracts
are their vendors' (docs/compat-*.md), so netsift's OpenAPI document leaves them out.
"""

from __future__ import annotations

from collections.abc import Callable

from fastapi.responses import JSONResponse
from pydantic import BaseModel
from starlette.datastructures import URL

from ...errors import NetsiftError
from . import firecrawl, firecrawl_extract, searxng, tavily
from .routing import CompatRouting

__all__ = ["RENDERERS", "ROUTERS", "CompatAPI", "CompatRouting", "base_urls", "renderer_for"]

ROUTERS = (tavily.router, firecrawl.router, firecrawl_extract.router, searxng.router)
# Each API's prefix and the error renderer its clients read.
RENDERERS: dict[str, Callable[[NetsiftError], JSONResponse]] = {
    tavily.PREFIX: tavily.render_error,
    firecrawl.PREFIX: firecrawl.render_error,
    searxng.PREFIX: searxng.render_error,
}


class CompatAPI(BaseModel):
    """Where a compatible API's client points on this server."""

    base_url: str
    versions: list[str] | None = None  # the API versions that base URL serves, if it has any


def renderer_for(path: str) -> Callable[[NetsiftError], JSONResponse] | None:
    """The error renderer of the compatible API serving `path`, or None for netsift's own."""
    for prefix, render in RENDERERS.items():
        if path == prefix or path.startswith(prefix + "/"):
            return render
    return None


def base_urls(root: str, *, firecrawl_port: int | None) -> dict[str, CompatAPI]:
    """What `/v1/info` lists: the base URL to give each API's client on this server, whose
    root (as the caller reached it) is `root`. Firecrawl's clients drop paths: v2 works at the
    root, v1 and v2 at the Firecrawl listener's root when it is on."""
    root = root.rstrip("/")
    firecrawl_api = CompatAPI(base_url=root, versions=["v2"])
    if firecrawl_port is not None:
        listener = str(URL(root).replace(port=firecrawl_port))
        firecrawl_api = CompatAPI(base_url=listener, versions=["v1", "v2"])
    return {
        "tavily": CompatAPI(base_url=root + tavily.PREFIX),
        "firecrawl": firecrawl_api,
        "searxng": CompatAPI(base_url=root),
    }
