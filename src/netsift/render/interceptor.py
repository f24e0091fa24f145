"""Every request a rendering page makes goes through netsift's guarded HttpClient.

The browser never fetches anything itself: each request (document, iframe, script, XHR,
fetch, beacon, worker request, navigation) reaches `Interceptor.route`, which sends it with
`HttpClient.send` — URL check, connect-time address guard, redirects re-checked hop by hop,
robots.txt per hop, the byte cap and the render's deadline — and fulfils the browser's
request with the answer, or aborts it. Refusals are in the audit log: HttpClient writes its
own, this module writes the ones it decides (robots, budget, WebSockets).

WebSockets are relayed through the guard by `relay.py` (address check on the pinned address,
byte and time caps, one audit line per socket). Images, fonts, media, subtitle tracks and web
app manifests are answered locally, with a refusal, unless `render_media` is on: they cost
bytes and carry no text. Stylesheets are fetched: layout decides what scrolls and what a lazy
list loads, and `innerText` (what the wait measures) depends on it.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import anyio
import httpx
from anyio.abc import TaskGroup
from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Request, Route, WebSocketRoute

from ..errors import Blocked, NetsiftError, RenderFailed
from ..net.audit import AuditLog
from ..net.http import HttpClient, OnHop
from ..net.robots import RobotsCache
from .relay import WS_MAX_BYTES, WS_MAX_SECONDS, Refused, Relayed, open_guarded, relay

__all__ = ["Budget", "Interceptor", "MainDocument", "forwarded_headers"]

MEDIA_TYPES = frozenset({"image", "font", "media", "texttrack", "manifest"})
# Headers the browser sets that netsift decides itself (or that describe the browser's own
# connection): dropped before the request is sent through HttpClient.
_DROPPED_REQUEST = frozenset(
    {"host", "connection", "content-length", "accept-encoding", "user-agent", "keep-alive"}
    | {"proxy-authorization", "proxy-connection", "te", "trailer", "transfer-encoding", "upgrade"}
)
# The body handed to the browser is already decoded and whole.
_DROPPED_RESPONSE = frozenset(
    {"content-encoding", "content-length", "transfer-encoding", "connection", "keep-alive"}
)


def forwarded_headers(headers: dict[str, str]) -> dict[str, str]:
    """The browser's request headers that travel on (pure)."""
    return {k: v for k, v in headers.items() if k.lower() not in _DROPPED_REQUEST}


@dataclass(frozen=True)
class MainDocument:
    """The page's HTML, already fetched by the static fetch: served to the browser as is."""

    url: str
    body: bytes
    content_type: str


@dataclass
class Budget:
    """What one render may still spend (requests, bytes) and until when (monotonic)."""

    requests: int
    bytes: int
    deadline: float

    def remaining_time(self) -> float:
        return self.deadline - time.monotonic()


@dataclass
class Interceptor:
    """Routes one render's requests; `idle_since` lets the waiting logic see network idle."""

    http: HttpClient
    robots: RobotsCache | None
    audit: AuditLog | None
    main: MainDocument
    budget: Budget
    media: bool = False
    inflight: int = 0
    last_done: float = field(default_factory=time.monotonic)
    sent: int = 0
    refused: list[str] = field(default_factory=list)
    # the top-level navigations the guard refused, with its error: a page action that led to
    # one fails with it (actions.py)
    refused_navigations: list[tuple[str, NetsiftError]] = field(default_factory=list)
    # where relayed WebSockets run: the renderer's, cancelled when the render ends
    sockets: TaskGroup | None = None
    # every origin the page asked for: the storage the renderer wipes after the render
    origins: set[str] = field(default_factory=set)
    _served_main: bool = False

    async def route(self, route: Route) -> None:
        request = route.request
        parsed = httpx.URL(request.url)
        url = str(parsed.copy_with(fragment=None))
        if parsed.scheme in ("http", "https"):
            self.origins.add(f"{parsed.scheme}://{parsed.netloc.decode('ascii')}")
        if not self._served_main and request.is_navigation_request() and url == self.main.url:
            self._served_main = True
            await route.fulfill(
                status=200, body=self.main.body, headers={"content-type": self.main.content_type}
            )
            return
        if request.resource_type in MEDIA_TYPES and not self.media:
            await route.abort("blockedbyclient")
            return
        self.inflight += 1
        try:
            await self._send(route, url)
        finally:
            self.inflight -= 1
            self.last_done = time.monotonic()

    def idle_since(self) -> float | None:
        """When the network went idle (monotonic), None while a request is in flight."""
        return None if self.inflight else self.last_done

    async def _send(self, route: Route, url: str) -> None:
        request = route.request
        if self.budget.requests <= 0 or self.budget.bytes <= 0:
            self._refuse(request.method, url, "render_budget")
            self._refuse_navigation(request, url, "the render's request or byte budget is spent")
            await _deny(route, "blockedbyclient")
            return
        remaining = self.budget.remaining_time()
        if remaining <= 0:
            self._refuse(request.method, url, "timeout")
            self._refuse_navigation(request, url, "the render's time is up")
            await _deny(route, "timedout")
            return
        self.budget.requests -= 1
        try:
            outgoing = httpx.Request(
                request.method,
                url,
                headers=forwarded_headers(await request.all_headers()),
                content=request.post_data_buffer,
            )
            response = await self.http.send(
                outgoing,
                kind="render",
                retries=0,
                deadline=remaining,
                max_bytes=min(self.http.settings.max_bytes, self.budget.bytes),
                on_hop=self._robots_hop(request.method),
            )
        except NetsiftError as exc:
            if isinstance(exc, Blocked):
                self.refused.append(url)
                self._refuse_navigation(request, url, exc)
            await _deny(route, "blockedbyclient" if isinstance(exc, Blocked) else "failed")
            return
        except anyio.get_cancelled_exc_class():
            raise
        except Exception:  # an URL the browser accepts and httpx refuses, and the like
            self._refuse(request.method, url, "invalid_url")
            await _deny(route, "failed")
            return
        self.sent += 1
        self.budget.bytes -= len(response.content)
        headers = [
            (k, v) for k, v in response.headers.multi_items() if k.lower() not in _DROPPED_RESPONSE
        ]
        await route.fulfill(
            status=response.status_code,
            headers=_merge(headers),
            body=response.content,
        )

    def _robots_hop(self, method: str) -> OnHop:
        robots = self.robots

        async def hop(url: httpx.URL) -> None:
            if robots is None:
                return
            try:
                await robots.check(str(url))
            except NetsiftError as exc:
                self._refuse(method, str(url), exc.code)
                raise

        return hop

    def relaying(self) -> bool:
        """Whether the render is on and can hold relayed sockets."""
        return self.sockets is not None

    async def websocket(self, ws: WebSocketRoute) -> None:
        """Open the server's side through the guard, then relay (see relay.py); else refuse."""
        settings = self.http.settings
        remaining = self.budget.remaining_time()
        if not self.relaying() or remaining <= 0:
            self._refuse("GET", ws.url, "timeout")
            await ws.close(code=1008, reason="the render is over")
            return
        if self.budget.requests <= 0 or self.budget.bytes <= 0:
            self._refuse("GET", ws.url, "render_budget")
            await ws.close(code=1008, reason="render_budget")
            return
        self.budget.requests -= 1
        started = time.monotonic()
        self.inflight += 1  # the page is waiting for its socket: not settled yet
        try:
            server, address = await open_guarded(
                ws.url,
                resolver=self.http.resolver,
                policy=self.http.policy,
                origin=_origin(self.main.url),
                user_agent=settings.user_agent,
                subprotocols=ws.protocols,
                timeout=min(settings.connect_timeout, remaining),
                http_proxy=settings.http_proxy,
                https_proxy=settings.https_proxy,
                names_to_proxy=settings.proxy_enforces_egress,
            )
        except Refused as exc:
            self._refuse("GET", ws.url, exc.outcome)
            await ws.close(code=1008, reason=exc.outcome)
            return
        finally:
            self.inflight -= 1
            self.last_done = time.monotonic()
        self.sent += 1
        sockets = self.sockets
        if sockets is None:  # the render ended during the handshake
            with anyio.move_on_after(1, shield=True):
                await server.close()
            self._record("GET", ws.url, address, 101, 0, started, "ok")
            return

        def spend(size: int) -> None:
            self.budget.bytes -= size
            self.last_done = time.monotonic()  # a message may change the text: wait on

        done = Relayed()

        async def run() -> None:
            try:
                await relay(
                    ws,
                    server,
                    max_bytes=min(WS_MAX_BYTES, max(self.budget.bytes, 0)),
                    max_seconds=min(WS_MAX_SECONDS, max(self.budget.remaining_time(), 0)),
                    spent=spend,
                    done=done,
                )
            except anyio.get_cancelled_exc_class():  # the render ended first
                self._record("GET", ws.url, address, 101, done.size, started, "ok")
                with anyio.CancelScope(shield=True), anyio.move_on_after(1):
                    await server.close()
                raise
            except Exception:  # a relay must never take the render down with it
                await server.close()
                self._record("GET", ws.url, address, 101, done.size, started, "internal")
                return
            self._record("GET", ws.url, address, 101, done.size, started, done.outcome)

        sockets.start_soon(run)

    def _refuse_navigation(self, request: Request, url: str, why: NetsiftError | str) -> None:
        if _top_navigation(request):
            error = why if isinstance(why, NetsiftError) else RenderFailed(why, retryable=False)
            self.refused_navigations.append((url, error))

    def _refuse(self, method: str, url: str, outcome: str) -> None:
        self.refused.append(url)
        self._record(method, url, None, None, 0, None, outcome)

    def _record(
        self,
        method: str,
        url: str,
        address: str | None,
        status: int | None,
        size: int,
        started: float | None,
        outcome: str,
    ) -> None:
        if self.audit is not None:
            self.audit.record(
                kind="render",
                method=method,
                url=url,
                resolved_ip=address,
                status=status,
                size=size,
                elapsed_ms=0.0 if started is None else (time.monotonic() - started) * 1000,
                outcome=outcome,
            )


async def _deny(route: Route, error: str) -> None:
    """Refuse a request. A refused navigation answers 204, which leaves the frame on the page
    it was showing (an abort would replace the page being read with Chromium's error page)."""
    if route.request.is_navigation_request():
        await route.fulfill(status=204, body=b"")
    else:
        await route.abort(error)


def _top_navigation(request: Request) -> bool:
    """A navigation of the page itself (not of an iframe)."""
    try:
        return request.is_navigation_request() and request.frame.parent_frame is None
    except PlaywrightError:  # a request without a frame (a service worker's)
        return False


def _origin(url: str) -> str:
    """The page's origin, sent as the socket's Origin header, as the browser would (pure)."""
    parsed = httpx.URL(url)
    return f"{parsed.scheme}://{parsed.netloc.decode('ascii')}"


def _merge(headers: list[tuple[str, str]]) -> dict[str, str]:
    """Repeated headers joined as the browser expects (Set-Cookie by newline, others by comma)."""
    merged: dict[str, str] = {}
    for key, value in headers:
        name = key.lower()
        if name in merged:
            merged[name] += ("\n" if name == "set-cookie" else ", ") + value
        else:
            merged[name] = value
    return merged
