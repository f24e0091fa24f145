"""The API's operations, one place for REST, SSE and the WebSocket: quota, call, count, report.

Each operation charges the caller's search quota, calls the Client (which validates, guards
and does the work), and records what happened in the metrics, so the three transports cannot
drift apart. `stream` runs one operation as events: `started`, the provider attempts as they
happen, `result`, then `done`, or `error` with the error object; it never raises.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, TypeVar

from pydantic import BaseModel

from ..archive.wayback import WaybackResult
from ..citations.pack import CitationPack
from ..client import Client
from ..errors import AllProvidersFailed, Disabled, NetsiftError
from ..models import ContextAnswer, MapResult, Metadata, Page, ScreenshotMode, SearchResponse
from ..net.audit import request_id_var
from ..net.robots import RobotsVerdict
from ..operations import Operation, operation
from ..render.actions import Action
from ..search.rank import RankedResults
from ..structured.model import ExtractDataResult
from ..usage import prepay
from .deps import Caller, ServerState
from .events import EventChannel, watch_attempts
from .responses import (
    BatchRequest,
    BatchResponse,
    CitationPackRequest,
    ContextRequest,
    DedupeRankRequest,
    ExtractDataRequest,
    ExtractRequest,
    FetchRequest,
    MapRequest,
    MetaRequest,
    RobotsCheckRequest,
    SearchRequest,
    WaybackRequest,
)

__all__ = ["Operations"]

log = logging.getLogger(__name__)
T = TypeVar("T")


def _search_options(params: SearchRequest | BatchRequest) -> dict[str, Any]:
    return params.model_dump(exclude={"query", "queries", "request_id"})


class Operations:
    """search, batch, fetch and meta for one caller, counted in the server's metrics."""

    def __init__(self, state: ServerState, caller: Caller) -> None:
        self.state = state
        self.caller = caller

    @property
    def client(self) -> Client:
        return self.state.require_client()

    def require(self, capability: str) -> None:
        """Fail before anything starts (and before a stream's 200) when switched off."""
        settings = self.client.settings
        if not settings.enabled(capability):
            raise Disabled(
                f"the {capability} capability is switched off on this host",
                details={"capability": capability, "enabled": list(settings.capabilities)},
            )

    async def admit_searches(self, count: int) -> None:
        """Capability and quota, checked before a search (or a stream of one) starts."""
        self.require("search")
        await self.state.limits.spend_searches(self.caller.key, count)
        prepay(count)  # the caller's meter admits these without taking the quota twice

    async def admit(self, op: Operation, params: BaseModel) -> None:
        """What `op` needs before it starts: its capability, and a search's quota."""
        if isinstance(params, BatchRequest):
            await self.admit_searches(len(params.queries))
        elif isinstance(params, SearchRequest):
            await self.admit_searches(1)
        else:
            for capability in op.capabilities():
                self.require(capability)

    def call(self, op: Operation, params: BaseModel) -> Callable[[], Awaitable[BaseModel]]:
        """`op` on `params`, admitted already (`admit`), as a call to run or stream."""
        runs: dict[str, Callable[[Any], Awaitable[BaseModel]]] = {
            "search": self.run_search,
            "batch_search": self.run_batch,
            "fetch": self.fetch,
            "meta": self.meta,
            "map": self.map,
            "context": self.context,
            "extract": self.extract,
            "extract_data": self.extract_data,
            "robots_check": self.robots_check,
            "wayback_lookup": self.wayback_lookup,
            "citation_pack": self.citation_pack,
            "dedupe_rank": self.dedupe_rank,
        }
        run = runs[op.name]
        return lambda: run(params)

    async def search(self, params: SearchRequest) -> SearchResponse:
        await self.admit_searches(1)
        return await self.run_search(params)

    async def batch(self, params: BatchRequest) -> BatchResponse:
        await self.admit_searches(len(params.queries))
        return await self.run_batch(params)

    async def run_search(self, params: SearchRequest) -> SearchResponse:
        metrics = self.state.metrics
        try:
            response = await self.client.search(params.query, **_search_options(params))
        except AllProvidersFailed as error:
            metrics.observe_failed_search(self.caller.label, error.details.get("attempts", []))
            raise
        metrics.observe_search(self.caller.label, response)
        return response

    async def run_batch(self, params: BatchRequest) -> BatchResponse:
        items = await self.client.batch_search(params.queries, **_search_options(params))
        for item in items:
            if item.response is not None:
                self.state.metrics.observe_search(self.caller.label, item.response)
            elif item.error and item.error.get("code") == AllProvidersFailed.code:
                attempts = item.error.get("details", {}).get("attempts", [])
                self.state.metrics.observe_failed_search(self.caller.label, attempts)
        return BatchResponse(results=items, request_id=request_id_var.get())

    async def fetch(
        self,
        params: FetchRequest,
        *,
        timeout: float | None = None,
        no_cache: bool = False,
        keep_source: bool = False,
        error_pages: bool = False,
        screenshot: ScreenshotMode | None = None,
        actions: Sequence[Action] = (),
        images: bool = False,
    ) -> Page:
        """`timeout` (never past the host's), `no_cache`, `keep_source`, `error_pages`,
        `screenshot`, `actions` and `images` come from the compatible APIs, whose requests
        carry them (Firecrawl's `timeout`, `maxAge: 0`, `rawHtml`, its scrape's error pages
        read as documents, `screenshot`, `actions`, `images`)."""
        self.require("fetch")
        if timeout is not None:
            timeout = min(timeout, self.client.settings.timeout)
        request = params.model_dump(exclude={"request_id"})
        call = self.client.fetch(
            **request,
            timeout=timeout,
            no_cache=no_cache,
            keep_source=keep_source,
            error_pages=error_pages,
            screenshot=screenshot,
            actions=actions,
            images=images,
        )
        page = await self._counted(call)
        self.state.metrics.observe_fetch(self.caller.label, page)
        return page

    async def map(self, params: MapRequest, *, timeout: float | None = None) -> MapResult:
        """`Client.map`; `timeout` comes from the compatible APIs, whose requests carry one."""
        self.require("fetch")
        request = params.model_dump(exclude={"request_id"})
        return await self._counted(self.client.map(**request, timeout=timeout))

    async def context(self, params: ContextRequest) -> ContextAnswer:
        """`Client.context`: its searches and pages are admitted and counted by the caller's
        meter as they are sent, as research's are."""
        for capability in operation("context").capabilities():
            self.require(capability)
        request = params.model_dump(exclude={"request_id"})
        return await self._counted(self.client.context(**request))

    async def extract(self, params: ExtractRequest) -> Page:
        """The library's `Client.extract_isolated`: the HTML read in the extraction worker,
        under its CPU and memory budget, as a fetched page is (no network)."""
        fields = params.model_dump(exclude={"request_id", "html"})
        return await self.client.extract_isolated(
            params.html.encode("utf-8"), **fields, what="the HTML sent"
        )

    async def extract_data(self, params: ExtractDataRequest) -> ExtractDataResult:
        """The library's `Client.extract_data`; a query spends one search of the quota."""
        self.require("fetch")
        if params.query:
            await self.admit_searches(1)
        request = params.model_dump(exclude={"request_id"})
        return await self._counted(self.client.extract_data(**request))

    # The toolbelt (issue 29): each the Client call on its params, which checks the capability.
    async def robots_check(self, params: RobotsCheckRequest) -> RobotsVerdict:
        return await self.client.robots_check(params.url, user_agent=params.user_agent)

    async def wayback_lookup(self, params: WaybackRequest) -> WaybackResult:
        fields = params.model_dump(exclude={"request_id", "url"})
        return await self.client.wayback_lookup(params.url, **fields)

    async def citation_pack(self, params: CitationPackRequest) -> CitationPack:
        return await self.client.citation_pack(
            params.urls,
            report=params.report,
            job_id=params.job_id,
            format=params.format,
            archive=params.archive,
        )

    async def dedupe_rank(self, params: DedupeRankRequest) -> RankedResults:
        return await self.client.dedupe_rank(params.query, params.results, count=params.count)

    async def meta(self, params: MetaRequest) -> Metadata:
        """The library's `Client.meta`, exactly (its card carries the page type)."""
        self.require("fetch")
        card = await self._counted(self.client.meta(**params.model_dump(exclude={"request_id"})))
        self.state.metrics.fetches.labels(self.caller.label, "ok").inc()
        return card

    async def _counted(self, call: Awaitable[T]) -> T:
        """`call`'s result; a failure is counted under its code and raised on."""
        try:
            return await call
        except NetsiftError as error:
            self.state.metrics.observe_failed_fetch(self.caller.label, error.code)
            raise

    async def stream(self, channel: EventChannel, call: Callable[[], Awaitable[BaseModel]]) -> None:
        """Run `call` as events into `channel`, then close it. Never raises."""
        token = request_id_var.set(channel.request_id)
        try:
            await channel.emit("started", {})
            with watch_attempts(channel):
                result = await call()
            if isinstance(result, BatchResponse):
                for index, item in enumerate(result.results):
                    await channel.emit("result", {"index": index, **item.model_dump(mode="json")})
                await channel.emit("done", {"count": len(result.results)})
            else:
                await channel.emit("result", result.model_dump(mode="json"))
                await channel.emit("done", {})
        except NetsiftError as error:
            self.state.metrics.observe_error(error.code)
            await channel.fail(error)
        except Exception as exc:  # never a traceback to the client; the log keeps it
            log.exception("streamed request %s failed", channel.request_id)
            internal = NetsiftError(f"the request failed unexpectedly ({type(exc).__name__})")
            self.state.metrics.observe_error(internal.code)
            await channel.fail(internal)
        finally:
            request_id_var.reset(token)
            await channel.close()
