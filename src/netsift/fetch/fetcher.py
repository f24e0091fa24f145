"""Fetcher: one URL in, one Page out — guarded, capped, decoded and extracted.

The network layer does the dangerous part (address checks at connect time, redirect hops,
byte and time caps); this module decides what a response means: robots per hop, status,
content type, then extraction by kind and explicit pagination (never a silent cut), which live
in content.py because the compute pool's workers run them without this module's network half.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Any

import httpx

from ..compute import INLINE_MAX_BYTES, Compute
from ..config import Settings
from ..errors import BlockedBySite, HTTPError, RenderFailed
from ..models import ContentFormat, Page, Redirect, RenderMode
from ..net.guard import check_url
from ..net.http import HttpClient
from ..net.retry import retry_after_of
from ..net.robots import RobotsCache
from ..params import FetchOptions
from ..render.actions import Interaction
from ..render.step import RenderOutcome, RenderStep
from ..usage import charge_page
from .content import Content, Digest, _extract_content, build_page, extract_content, paginate
from .decode import decode_body, parse_content_type
from .sniff import detect_kind
from .wall import Wall, response_wall

# Content, build_page, extract_content and paginate live in content.py; imported from here too.
__all__ = ["Content", "FetchHooks", "Fetcher", "build_page", "extract_content", "paginate"]

# statuses a wall answers with (a challenge's 403 or 503, a login's 401, a block's 429); any
# other error status is the site's own error, `http_error`
WALL_STATUSES = frozenset({401, 403, 429, 503})

ACCEPT = (
    "text/html,application/xhtml+xml,application/pdf,application/json,"
    "application/rss+xml,application/atom+xml,text/markdown,text/plain;q=0.9,*/*;q=0.5"
)


@dataclass(frozen=True)
class FetchHooks:
    """What a crawl watches in one download; the caller's own layer, apart from the options.

    `on_hop` sees every URL the download asks for (the first and each redirect) before it is
    asked, and may refuse it by raising (a crawl's scope). `on_downloaded` is awaited once the
    final response's body is in, before extraction (a crawl frees its host's slot there, as
    Scrapy frees a download slot). `digest` is computed of the text where it is extracted and
    set on it (a page from the recent copies or the render step leaves it unset)."""

    on_hop: Callable[[str], Awaitable[None]] | None = None
    on_downloaded: Callable[[], Awaitable[None]] | None = None
    digest: Digest[Any] | None = None


NO_HOOKS = FetchHooks()


@dataclass(frozen=True)
class _Fetched:
    content: Content
    url: str
    final_url: str
    status: int
    content_type: str
    fetched_at: datetime
    elapsed_ms: float
    size: int
    redirects: list[Redirect]
    render: RenderOutcome | None = None
    body: bytes | None = None  # the static body, until the render step has looked at it
    raw_content_type: str = ""
    source: str | None = None  # the decoded body as served (kept only when asked)
    wall: Wall | None = None  # what the site answered instead of the page (fetch/wall.py)
    images: tuple[str, ...] | None = None  # the page's image URLs (kept only when asked)


_RecentKey = tuple[str, str, str, bool, int | None, bool, bool, bool]


class _RecentPages:
    """A small LRU of extracted pages, so a continuation (start_index) is not re-downloaded.

    Keyed by everything that changes what a download yields (URL, format, page type, robots,
    byte cap, hidden text, error pages, images), so a continuation never sees a page
    fetched under looser options.
    """

    def __init__(self, *, ttl: float, max_entries: int = 64) -> None:
        self._ttl = ttl
        self._max = max_entries
        self._items: OrderedDict[_RecentKey, tuple[float, _Fetched]] = OrderedDict()

    def get(self, key: _RecentKey) -> _Fetched | None:
        item = self._items.get(key)
        if item is None or time.monotonic() - item[0] > self._ttl:
            self._items.pop(key, None)
            return None
        self._items.move_to_end(key)
        return item[1]

    def put(self, key: _RecentKey, value: _Fetched) -> None:
        self._items[key] = (time.monotonic(), value)
        self._items.move_to_end(key)
        while len(self._items) > self._max:
            self._items.popitem(last=False)


def _redirects(response: httpx.Response) -> list[Redirect]:
    return [
        Redirect(url=str(hop.url), status=hop.status_code, location=hop.headers.get("location", ""))
        for hop in response.history
    ]


class Fetcher:
    """Fetch pages through the guarded HttpClient and turn them into `Page`s."""

    def __init__(
        self,
        settings: Settings,
        http: HttpClient,
        robots: RobotsCache | None = None,
        *,
        recent_ttl: float = 300.0,
        compute: Compute | None = None,
    ) -> None:
        self._settings = settings
        self._http = http
        self._robots = robots
        self._compute = compute
        self._recent = _RecentPages(ttl=recent_ttl)
        self.render_step = RenderStep(settings, http, robots, compute=compute)
        self._recent_rendered: dict[str, _RecentPages] = {}
        self._recent_sourced: dict[RenderMode | None, _RecentPages] = {}

    def _recent_for(self, render: RenderMode | None) -> _RecentPages:
        """Recent pages fetched under this render mode (a rendered page is not a static one)."""
        if render is None:
            return self._recent
        if render not in self._recent_rendered:
            self._recent_rendered[render] = _RecentPages(ttl=self._recent._ttl)
        return self._recent_rendered[render]

    async def aclose(self) -> None:
        """Close the browser, if a render started one."""
        await self.render_step.aclose()

    async def fetch(self, options: FetchOptions, hooks: FetchHooks = NO_HOOKS) -> Page:
        """Fetch `options.url` (or reuse a recent download of it); return one slice as a Page.

        The options are validated already (params.FetchOptions: the Client's, or built by a
        layer below it). `keep_source` also puts the decoded body as served (a page's HTML,
        before any extraction; the DOM when it was rendered) on `Page.source`; `keep_hidden`
        keeps the text the page hides from its visitors (`hidden.py`)."""
        url, format, page_type, render = (
            options.url,
            options.format,
            options.page_type,
            options.render,
        )
        max_bytes, timeout, keep_source = options.max_bytes, options.timeout, options.keep_source
        respect_robots, digest = options.respect_robots, hooks.digest
        keep_hidden, error_pages, images = options.keep_hidden, options.error_pages, options.images
        # a screenshot or actions are of this visit: never answered from, nor kept in, the
        # recent pages
        interaction = Interaction(tuple(options.actions), options.screenshot)
        robots = self._settings.respect_robots if respect_robots is None else respect_robots
        key: _RecentKey = (
            url,
            format,
            page_type,
            robots,
            max_bytes,
            keep_hidden,
            error_pages,
            images,
        )
        recent = self._recent_for(render)
        if keep_source:  # pages kept with their source, apart (a plain one has none)
            recent = self._recent_sourced.setdefault(render, _RecentPages(ttl=recent._ttl))
        fetched = None if options.no_cache or interaction else recent.get(key)
        cached = fetched is not None
        if fetched is None:
            fetched = await self._download(
                url,
                format=format,
                respect_robots=robots,
                max_bytes=max_bytes,
                timeout=timeout,
                page_type=page_type,
                keep_source=keep_source,
                on_hop=hooks.on_hop,
                on_downloaded=hooks.on_downloaded,
                digest=digest.of if digest is not None else None,
                keep_hidden=keep_hidden,
                error_pages=error_pages,
            )
            if digest is not None:
                digest.value = fetched.content.digest
            fetched = await self._render(
                fetched,
                render,
                robots,
                timeout,
                format,
                page_type,
                keep_hidden,
                interaction=interaction,
                images=images,
            )
            if fetched.wall is not None:
                raise _blocked(fetched)
            if not interaction:
                recent.put(key, fetched)
        page = build_page(
            fetched.content,
            url=fetched.url,
            final_url=fetched.final_url,
            status=fetched.status,
            content_type=fetched.content_type,
            fetched_at=fetched.fetched_at,
            elapsed_ms=fetched.elapsed_ms,
            size=fetched.size,
            redirects=fetched.redirects,
            format=format,
            start_index=options.start_index,
            max_length=options.max_length,
            cached=cached,
            render=fetched.render,
            source=fetched.source,
        )
        outcome = fetched.render or RenderOutcome()
        if outcome.screenshot is None and not outcome.actions and fetched.images is None:
            return page
        return page.model_copy(
            update={
                "screenshot": outcome.screenshot,
                "actions": list(outcome.actions),
                "images": list(fetched.images or ()),
            }
        )

    async def _render(
        self,
        fetched: _Fetched,
        render: RenderMode | None,
        respect_robots: bool,
        timeout: float | None,
        format: ContentFormat,
        page_type: str,
        keep_hidden: bool = False,
        *,
        interaction: Interaction | None = None,
        images: bool = False,
    ) -> _Fetched:
        """The render step (netsift.render.step): the rendered DOM replaces the static content,
        extracted the same way; the caller's `interaction` is performed in the page, and its
        `images` are listed from the HTML read (the DOM when rendered)."""
        if fetched.body is None:
            return fetched
        if fetched.wall is not None and not interaction:
            return await self._past_wall(
                fetched, render, respect_robots, timeout, format, page_type, keep_hidden, images
            )
        started = time.perf_counter()
        outcome = await self.render_step.run(
            requested=render,
            body=fetched.body,
            content_type=fetched.raw_content_type,
            url=fetched.url,
            final_url=fetched.final_url,
            respect_robots=respect_robots,
            timeout=timeout,
            verdict=fetched.content.shell,
            interaction=interaction,
        )
        content = fetched.content
        if outcome.html is not None:
            content = await self._extract(
                outcome.html,
                content_type="text/html; charset=utf-8",
                url=outcome.final_url,
                format=format,
                page_type=page_type,
                keep_hidden=keep_hidden,
            )
        source = fetched.source
        if source is not None and outcome.html is not None:
            source = outcome.html.decode("utf-8", "replace")  # the DOM, serialized as UTF-8
        listed = None
        if images:
            listed = await self._images(
                outcome.html or fetched.body, fetched.raw_content_type, outcome, fetched
            )
        return replace(
            fetched,
            content=content,
            source=source,
            body=None,
            images=listed,
            # where the caller's actions led (a click that navigated); else the HTTP answer's
            final_url=outcome.final_url if outcome.actions else fetched.final_url,
            render=outcome,
            elapsed_ms=fetched.elapsed_ms + (time.perf_counter() - started) * 1000,
            wall=content.wall if outcome.html is not None else fetched.wall,
        )

    async def _past_wall(
        self,
        fetched: _Fetched,
        render: RenderMode | None,
        respect_robots: bool,
        timeout: float | None,
        format: ContentFormat,
        page_type: str,
        keep_hidden: bool,
        images: bool = False,
    ) -> _Fetched:
        """A wall a browser passes by running its script (a challenge, an "enable JavaScript"
        page) is rendered, when a browser is at hand and the caller did not say never; the
        rendered page is then read, or is a wall itself. Any other wall stands."""
        wall = fetched.wall
        never = "never" in (render, self._settings.render)
        if wall is None or not wall.passable or never or not self.render_step.available:
            return fetched
        try:
            rendered = await self._render(
                replace(fetched, wall=None),
                "always",
                respect_robots,
                timeout,
                format,
                page_type,
                keep_hidden,
                images=images,
            )
        except RenderFailed:
            return fetched
        return replace(rendered, wall=rendered.content.wall)

    async def _images(
        self, html: bytes, content_type: str, outcome: RenderOutcome, fetched: _Fetched
    ) -> tuple[str, ...]:
        """The image URLs of an HTML page (fetch/images.py), parsed in the compute pool when
        large, as extraction is; none for another kind of document."""
        if outcome.html is not None:
            content_type, url = "text/html; charset=utf-8", outcome.final_url
        else:
            url = fetched.final_url
            if detect_kind(parse_content_type(content_type)[0], html, url) != "html":
                return ()
        from .images import page_images  # the readers' parser: loaded when images are asked

        text = decode_body(html, content_type).text
        if self._compute is None or len(html) <= INLINE_MAX_BYTES:
            return tuple(page_images(text, url))
        return tuple(await self._compute.run(page_images, text, url, what=f"the page at {url}"))

    async def _download(
        self,
        url: str,
        *,
        format: ContentFormat,
        respect_robots: bool,
        max_bytes: int | None,
        timeout: float | None,
        page_type: str,
        keep_source: bool = False,
        on_hop: Callable[[str], Awaitable[None]] | None = None,
        on_downloaded: Callable[[], Awaitable[None]] | None = None,
        digest: Callable[[str, tuple[str, ...]], Any] | None = None,
        keep_hidden: bool = False,
        error_pages: bool = False,
    ) -> _Fetched:
        target = check_url(url)
        robots = self._robots if respect_robots else None
        started = time.perf_counter()
        fetched_at = datetime.now(UTC)
        charged = False

        async def check_hop(hop: httpx.URL) -> None:
            nonlocal charged
            if on_hop is not None:
                await on_hop(str(hop))
            if robots is not None:
                await robots.check(str(hop))
            if not charged:
                # A download on the client's behalf (recent copies are free), charged as the
                # first request is about to go out: not for a page robots.txt refused, and
                # a job's count is kept before the site sees the request.
                charged = True
                await charge_page()

        request = httpx.Request("GET", target, headers={"Accept": ACCEPT})
        response = await self._http.send(
            request,
            max_bytes=max_bytes or self._settings.max_bytes,
            deadline=timeout,
            on_hop=check_hop,
            kind="fetch",
        )
        if on_downloaded is not None:
            await on_downloaded()
        final_url = str(response.url)
        header_wall = response_wall(response.headers)
        if response.status_code >= 400 and (
            header_wall is not None or response.status_code in WALL_STATUSES
        ):
            wall_content = await self._extract(
                response.content,
                content_type=response.headers.get("content-type", ""),
                url=final_url,
                format=format,
                page_type=page_type,
                keep_hidden=keep_hidden,
            )
            if (wall := header_wall or wall_content.wall) is not None:
                return _Fetched(
                    content=wall_content,
                    url=url,
                    final_url=final_url,
                    status=response.status_code,
                    content_type=parse_content_type(response.headers.get("content-type", ""))[0],
                    fetched_at=fetched_at,
                    elapsed_ms=(time.perf_counter() - started) * 1000,
                    size=len(response.content),
                    redirects=_redirects(response),
                    body=response.content,
                    raw_content_type=response.headers.get("content-type", ""),
                    wall=wall,
                )
        if response.status_code >= 400 and not error_pages:
            details: dict[str, object] = {"url": final_url}
            if (retry_after := retry_after_of(response.headers)) is not None:
                details["retry_after"] = retry_after
            raise HTTPError(
                f"{final_url} answered HTTP {response.status_code}",
                status_code=response.status_code,
                details=details,
            )
        content_type = response.headers.get("content-type", "")
        content = await self._extract(
            response.content,
            content_type=content_type,
            url=final_url,
            format=format,
            page_type=page_type,
            digest=digest,
            keep_hidden=keep_hidden,
        )
        return _Fetched(
            content=content,
            url=url,
            final_url=final_url,
            status=response.status_code,
            content_type=parse_content_type(content_type)[0],
            fetched_at=fetched_at,
            elapsed_ms=(time.perf_counter() - started) * 1000,
            size=len(response.content),
            redirects=_redirects(response),
            body=response.content,
            raw_content_type=content_type,
            source=_source(response.content, content_type, final_url) if keep_source else None,
            wall=header_wall or content.wall,
        )

    async def _extract(
        self,
        body: bytes,
        *,
        content_type: str,
        url: str,
        format: ContentFormat,
        page_type: str,
        digest: Callable[[str, tuple[str, ...]], Any] | None = None,
        keep_hidden: bool = False,
    ) -> Content:
        """`extract_content` in the compute pool, so the event loop never parses a page; a small
        body of a kind that needs no HTML or PDF parser stays inline (`INLINE_MAX_BYTES`)."""
        args = (body, content_type, url, format, page_type, digest, keep_hidden)
        if self._compute is None or _inline(body, content_type, url):
            return _extract_content(*args)
        return await self._compute.run(_extract_content, *args, what=f"the page at {url}")


def _blocked(fetched: _Fetched) -> BlockedBySite:
    wall = fetched.wall
    assert wall is not None
    tried = " (a browser did not get past it either)" if fetched.render else ""
    return BlockedBySite(
        f"{fetched.final_url} answered with a {wall.kind.replace('_', ' ')} wall instead of "
        f"the page ({wall.reason}){tried}",
        details={
            "url": fetched.final_url,
            "status": fetched.status,
            "wall": wall.kind,
            "reason": wall.reason,
            "rendered": fetched.render is not None and fetched.render.rendered,
        },
    )


def _source(body: bytes, content_type: str, url: str) -> str | None:
    """The body as text, for a kind that is text (HTML, feeds, JSON, Markdown); None for a
    PDF or binary."""
    kind = detect_kind(parse_content_type(content_type)[0], body, url)
    if kind not in ("html", "feed", "json", "text", "markdown"):
        return None
    return decode_body(body, content_type).text


def _inline(body: bytes, content_type: str, url: str) -> bool:
    if len(body) > INLINE_MAX_BYTES:
        return False
    return detect_kind(parse_content_type(content_type)[0], body, url) not in ("html", "pdf")
