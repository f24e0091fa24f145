"""Client: the one object every door calls; it builds the object graph from Settings, once.

async with netsift.Client() as client:
    page = await client.fetch("https://example.org/")
    found = await client.search("rust async runtimes")
"""

from __future__ import annotations

from types import TracebackType
from typing import Any, Self

from .config import Settings
from .errors import Disabled
from .fetch.extract import extract
from .fetch.fetcher import Fetcher
from .models import ContentFormat, Metadata, Page, SafeSearch, SearchResponse, TimeRange
from .net.audit import AuditLog
from .net.http import HttpClient
from .net.resolver import Resolver
from .net.robots import RobotsCache
from .search.batch import BatchItem
from .search.service import SearchService

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
        audit = AuditLog(self.settings.audit_log) if self.settings.audit_log else None
        self.http = HttpClient(self.settings, resolver=resolver, transport=transport, audit=audit)
        self.robots = RobotsCache(
            self.http,
            user_agent=self.settings.user_agent,
            timeout=self.settings.robots_timeout,
        )
        self.fetcher = Fetcher(self.settings, self.http, self.robots)
        self._search: SearchService | None = None

    @property
    def search_service(self) -> SearchService:
        """Built on first use, so a fetch-only client never opens the search cache."""
        if self._search is None:
            self._search = SearchService(self.settings, self.http)
        return self._search

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        if self._search is not None:
            await self._search.aclose()
        await self.http.aclose()

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
    ) -> Page:
        """Fetch `url` and return its readable content as a Page."""
        self._require("fetch")
        return await self.fetcher.fetch(
            url,
            format=format,
            max_length=max_length,
            start_index=start_index,
            respect_robots=respect_robots,
            max_bytes=max_bytes,
            timeout=timeout,
            no_cache=no_cache,
        )

    async def meta(self, url: str, *, respect_robots: bool | None = None) -> Metadata:
        """The link-preview card of `url`: title, description, image, site name, favicon…"""
        page = await self.fetch(url, respect_robots=respect_robots, max_length=1)
        return page.metadata

    def extract(
        self, html: str, *, url: str | None = None, format: ContentFormat = "markdown"
    ) -> Page:
        """Run the same extraction on HTML you already have; no network."""
        return extract(html, url=url, format=format)

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
        return await self.search_service.search(
            query,
            count=count,
            providers=providers,
            merge=merge,
            time_range=time_range,
            region=region,
            safesearch=safesearch,
            no_cache=no_cache,
        )

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
        return await self.search_service.batch_search(
            queries,
            count=count,
            providers=providers,
            merge=merge,
            time_range=time_range,
            region=region,
            safesearch=safesearch,
            no_cache=no_cache,
        )
