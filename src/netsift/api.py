"""Sync conveniences: open a Client, make one call, close it (httpx/_api.py's habit)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TypeVar

import anyio

from .client import Client
from .config import Settings
from .fetch.extract import extract
from .models import (
    ContentFormat,
    Page,
    PageTypeChoice,
    RenderMode,
    ResearchReport,
    SafeSearch,
    SearchResponse,
    TimeRange,
)
from .params import Depth

__all__ = ["extract", "fetch", "research", "search"]

T = TypeVar("T")


def _run(work: Callable[[], Awaitable[T]]) -> T:
    """Run `work` to the end from sync code, even inside a running event loop.

    In Jupyter, under `asyncio.run` or trio the calling thread already runs a loop, and
    starting another there fails ("Already running asyncio in this thread"); the call then
    runs on its own worker thread, which this thread waits for.
    """
    if not _loop_running():
        return anyio.run(work)
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="netsift-sync") as pool:
        return pool.submit(anyio.run, work).result()


def _loop_running() -> bool:
    """Whether this thread runs an event loop: asyncio's, or any sniffio knows (trio)."""
    import asyncio

    try:
        asyncio.get_running_loop()
        return True
    except RuntimeError:
        pass
    try:
        import sniffio
    except ImportError:  # trio needs sniffio, so without it only asyncio could be running
        return False
    try:
        sniffio.current_async_library()
    except sniffio.AsyncLibraryNotFoundError:
        return False
    return True


def fetch(
    url: str,
    *,
    settings: Settings | None = None,
    format: ContentFormat = "markdown",
    max_length: int | None = None,
    start_index: int = 0,
    respect_robots: bool | None = None,
    max_bytes: int | None = None,
    timeout: float | None = None,
    no_cache: bool = False,
    page_type: PageTypeChoice = "auto",
    render: RenderMode | None = None,
) -> Page:
    """Fetch one page synchronously; see `Client.fetch` for the options."""

    async def run() -> Page:
        async with Client(settings) as client:
            return await client.fetch(
                url,
                format=format,
                max_length=max_length,
                start_index=start_index,
                respect_robots=respect_robots,
                max_bytes=max_bytes,
                timeout=timeout,
                no_cache=no_cache,
                page_type=page_type,
                render=render,
            )

    return _run(run)


def search(
    query: str,
    *,
    settings: Settings | None = None,
    count: int = 10,
    providers: list[str] | None = None,
    merge: bool = False,
    time_range: TimeRange | None = None,
    region: str | None = None,
    safesearch: SafeSearch = "moderate",
    no_cache: bool = False,
) -> SearchResponse:
    """Search synchronously; see `Client.search` for the options."""

    async def run() -> SearchResponse:
        async with Client(settings) as client:
            return await client.search(
                query,
                count=count,
                providers=providers,
                merge=merge,
                time_range=time_range,
                region=region,
                safesearch=safesearch,
                no_cache=no_cache,
            )

    return _run(run)


def research(
    question: str,
    *,
    settings: Settings | None = None,
    depth: Depth | None = None,
    breadth: int | None = None,
    max_iterations: int | None = None,
    max_searches: int | None = None,
    max_pages: int | None = None,
    max_tokens: int | None = None,
    deadline: float | None = None,
) -> ResearchReport:
    """Research a question to the end synchronously; see `Client.research` for the options."""

    async def run() -> ResearchReport:
        async with Client(settings) as client:
            return await client.research(
                question,
                depth=depth,
                breadth=breadth,
                max_iterations=max_iterations,
                max_searches=max_searches,
                max_pages=max_pages,
                max_tokens=max_tokens,
                deadline=deadline,
            )

    return _run(run)
