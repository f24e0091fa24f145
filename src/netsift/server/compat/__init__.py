"""Drop-in compatible APIs: Tavily, Firecrawl and SearXNG, each a thin translation to the same
operations as netsift's own routes (guard, quotas, metrics and errors are netsift's).

Each lives under its own prefix (`/tavily`, `/firecrawl`, `/searxng`); routing.py also sends
the root paths their clients build (`/v2/scrape`, `/search`, `/?format=json`) there. An error on
a compatible route is rendered in that API's own shape, which is what its client parses.
Their contracts are their vendors' (docs/compat-*.md), so netsift's OpenAPI document leaves
them out.
"""

from __future__ import annotations

from collections.abc import Callable

from fastapi.responses import JSONResponse

from ...errors import NetsiftError
from . import firecrawl, searxng, tavily
from .routing import CompatRouting

__all__ = ["APIS", "ROUTERS", "CompatRouting", "base_urls", "renderer_for"]

ROUTERS = (tavily.router, firecrawl.router, searxng.router)
# Each API's prefix, the error renderer its clients read, and the base URL a client is given,
# relative to the server's root (Firecrawl's client drops paths; SearXNG's query the root).
APIS: dict[str, tuple[str, Callable[[NetsiftError], JSONResponse], str]] = {
    "tavily": (tavily.PREFIX, tavily.render_error, tavily.PREFIX),
    "firecrawl": (firecrawl.PREFIX, firecrawl.render_error, ""),
    "searxng": (searxng.PREFIX, searxng.render_error, ""),
}


def renderer_for(path: str) -> Callable[[NetsiftError], JSONResponse] | None:
    """The error renderer of the compatible API serving `path`, or None for netsift's own."""
    for prefix, render, _ in APIS.values():
        if path == prefix or path.startswith(prefix + "/"):
            return render
    return None


def base_urls(root: str) -> dict[str, dict[str, str]]:
    """What `/v1/info` lists: the base URL to give each API's client on this server."""
    root = root.rstrip("/")
    return {name: {"base_url": root + base} for name, (_, _, base) in APIS.items()}
