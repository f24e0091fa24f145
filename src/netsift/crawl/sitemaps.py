"""Sitemaps (sitemaps.org): found and read safely and within bounds, from robots.txt's lines
down.

Indexes are followed breadth-first to `MAX_DEPTH`, at most `MAX_SITEMAPS` documents, and only
on the site being mapped: a sitemap URL the guard's parser refuses, on another site or a
private address is reported as refused and never requested. Each document is downloaded under
the protocol's 50 MB cap and parsed off the event loop, in a compute worker (a thread when no
pool is given) by sitemap_parse.py, which keeps its page URLs through a `Sieve` and stops once
the reader has `max_urls` in hand; the documents not yet read are then skipped unread. A
urlset is downloaded only as far as the URLs wanted reach (`_Prefix`): a map of 1,000 URLs
reads ~100 KB of an 18 MB sitemap, not all of it. What is kept comes back in blocks that the
loop merges one at a time, so a 200,000-URL sitemap never holds the loop for more than a
block.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import tempfile
from collections import Counter, deque
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Literal

import anyio
import anyio.lowlevel
import anyio.to_thread
import httpx

from ..compute import INLINE_MAX_BYTES
from ..errors import HTTPError, NetsiftError
from ..models import SitemapReport
from ..net.guard import check_url, safe_url
from ..net.http import HttpClient, StopBody
from ..usage import charge_page
from .scope import Scope
from .sitemap_parse import (
    SITEMAP_MAX_BYTES,
    SITEMAP_MAX_URLS,
    ParsedSitemap,
    Sieve,
    SitemapEntry,
    SitemapPart,
    Source,
    origin_of,
    parse_sitemap,
    read_sitemap,
)

if TYPE_CHECKING:
    from ..compute import Compute

__all__ = [
    "MAX_DEPTH",
    "MAX_SITEMAPS",
    "SITEMAP_MAX_BYTES",
    "SITEMAP_MAX_URLS",
    "Listed",
    "ParsedSitemap",
    "Sieve",
    "SitemapEntry",
    "SitemapPart",
    "SitemapReader",
    "origin_of",
    "parse_sitemap",
    "read_sitemap",
]

# Documents read for one map: a large site's index lists a few dozen sitemaps; more is a
# generator, and a map that wants "every URL" of such a site is a crawl job, not a request.
MAX_SITEMAPS = 50
# Index → sitemap is the protocol's one level; real sites nest one or two more. Deeper is a loop
# or a trap.
MAX_DEPTH = 3
# Sitemaps downloaded ahead of the one being parsed: hides one slow document behind others,
# without hammering the site, and bounds the bodies held at once.
SITEMAP_CONCURRENCY = 4
ACCEPT = "application/xml,text/xml;q=0.9,text/plain;q=0.8,*/*;q=0.5"
# A urlset's download stops once it lists this many times the URLs still wanted (at most the
# protocol's 50,000): the sieve leaves out few of a site's own sitemap, so the prefix holds
# them (when it does not, the document is downloaded again whole).
PREFIX_FACTOR = 2
# Entries past that count before the download stops: the last wanted ones arrive whole, and
# one more shows the parse that the document goes on.
PREFIX_SLACK = 16
# Bytes in which a document shows it is a urlset (`<urlset`) before its prefix may be cut:
# an index is always read whole, and so is a body that does not say (text, gzip, odd XML).
PREFIX_HEAD = 64 * 1024

Via = Literal["robots", "guess", "index"]


@dataclass(frozen=True)
class Listed:
    """A page URL a sitemap listed, with the sitemap that listed it."""

    url: str
    lastmod: str | None
    sitemap: str
    from_robots: bool  # robots.txt named that sitemap, or the index above it
    key: str | None = None  # its canonical form (scope.canonical_url)


@dataclass(frozen=True)
class _Kept:
    """The URLs kept from one block of a sitemap, as the worker sent them (`url TAB lastmod
    TAB key` lines, sitemap_parse.SitemapPart): one string until they are read, so a query
    map's 50,000 URLs are 200 strings, not 50,000 objects that a full collection during the
    map walks (~20-30 ms of the loop's)."""

    lines: str
    sitemap: str
    from_robots: bool


OnHop = Callable[[httpx.URL], Awaitable[None]]


class SitemapReader:
    """Reads a site's sitemaps breadth-first through the guarded client, within the bounds.

    Each document is downloaded under the protocol's cap, then parsed off the event loop (in
    the compute pool when one is given, else in a thread), its page URLs passed through
    `sieve`; reading stops once `max_urls` are in hand, and the sitemaps not yet read are
    reported skipped. `read(roots)` fills `listed`, `reports`, `left_out` and `stopped`.
    """

    def __init__(
        self,
        http: HttpClient,
        site: Scope,
        *,
        on_hop: OnHop | None = None,
        timeout: float | None = None,
        max_sitemaps: int = MAX_SITEMAPS,
        max_urls: int | None = None,
        compute: Compute | None = None,
        sieve: Sieve | None = None,
    ) -> None:
        self._http = http
        self._site = site
        self._on_hop = on_hop
        self._timeout = timeout
        self._max_sitemaps = max_sitemaps
        self._max_urls = max_urls
        self._compute = compute
        self._sieve = sieve or Sieve()
        self._keys: set[str] = set()
        self.reports: list[SitemapReport] = []
        self._kept: list[_Kept] = []
        self.kept = 0  # page URLs in `listed`
        self.left_out: Counter[str] = Counter()
        self.stopped: list[str] = []

    def refusal(self, url: str) -> str | None:
        """Why a sitemap URL is not requested: not a URL the guard's parser accepts, a private
        address, another site, not http(s)."""
        try:
            target = check_url(url)
        except NetsiftError as exc:
            return exc.message
        host = target.raw_host.decode("ascii")
        try:
            address = ipaddress.ip_address(host)
        except ValueError:
            address = None
        if address is not None:
            try:
                self._http.policy.check(address, host=host)
            except NetsiftError as exc:
                return exc.message
        return self._site.refusal(url)

    @property
    def _need(self) -> int | None:
        return None if self._max_urls is None else self._max_urls - self.kept

    @property
    def listed(self) -> Iterator[Listed]:
        """The page URLs kept, in the order they were read, each made as it is reached."""
        for kept in self._kept:
            for line in kept.lines.split("\n"):
                url, lastmod, key = line.split("\t")
                yield Listed(url, lastmod or None, kept.sitemap, kept.from_robots, key)

    async def read(self, roots: list[tuple[str, Via]]) -> None:
        """Read `roots` and the sitemaps their indexes list; fills reports, listed, stopped."""
        seen: set[str] = set()
        level: list[tuple[str, Via]] = []
        robots_named: set[str] = set()  # sitemaps robots.txt named, and those they list
        for url, via in roots:
            if url not in seen:
                seen.add(url)
                level.append((url, via))
                if via == "robots":
                    robots_named.add(url)
        depth = 0
        while level:
            if depth >= MAX_DEPTH:
                self._stop(f"sitemap indexes nest deeper than {MAX_DEPTH} levels")
                self._skip(level, "too deep")
                return
            allowed = self._admit(level)
            level = []
            if self._need is not None and self._need <= 0:
                if allowed:
                    self._enough(allowed)
                return
            async with self._downloads(allowed) as downloads:
                taken = 0
                async for (url, via), body in downloads:
                    taken += 1
                    if isinstance(body, SitemapReport):  # refused at a hop, or failed
                        self.reports.append(body)
                        continue
                    from_robots = url in robots_named
                    for entry in await self._parse(url, via, body, from_robots):
                        if entry.url not in seen:
                            seen.add(entry.url)
                            level.append((entry.url, "index"))
                            if from_robots:
                                robots_named.add(entry.url)
                    if self._need is not None and self._need <= 0:
                        # the downloads ahead are cancelled on leaving; the rest never start
                        if allowed[taken:]:
                            self._enough(allowed[taken:])
                        break
            depth += 1

    def _admit(self, level: list[tuple[str, Via]]) -> list[tuple[str, Via]]:
        allowed: list[tuple[str, Via]] = []
        for url, via in level:
            reason = self.refusal(url)  # the guard's parser first; safe_url only shows it
            if reason:
                self.reports.append(
                    SitemapReport(url=safe_url(url), via=via, status="refused", reason=reason)
                )
                continue
            if len(allowed) + self._fetched >= self._max_sitemaps:
                self._stop(f"at most {self._max_sitemaps} sitemaps are read for one map")
                self._skip([(url, via)], "too many sitemaps")
                continue
            allowed.append((url, via))
        return allowed

    def _enough(self, unread: list[tuple[str, Via]]) -> None:
        """`max_urls` are in hand with more left unread: say so, and skip `unread`."""
        self._skip(unread, "enough URLs were in hand")
        self._stop(f"{self._max_urls} sitemap URLs were in hand: the rest were not read")

    def _skip(self, level: list[tuple[str, Via]], reason: str) -> None:
        for url, via in level:
            self.reports.append(
                SitemapReport(url=safe_url(url), via=via, status="skipped", reason=reason)
            )

    @property
    def _fetched(self) -> int:
        return sum(report.status in ("read", "failed") for report in self.reports)

    def _stop(self, reason: str) -> None:
        if reason not in self.stopped:
            self.stopped.append(reason)

    @contextlib.asynccontextmanager
    async def _downloads(
        self, level: list[tuple[str, Via]]
    ) -> AsyncIterator[AsyncIterator[tuple[tuple[str, Via], _Body | SitemapReport]]]:
        """The level's documents in order, downloaded up to SITEMAP_CONCURRENCY ahead of the
        one being parsed (so one slow document hides behind others while memory holds at most
        that many bodies); the report of one that was not read. Downloads
        not yet taken are cancelled on leaving, as when enough URLs are in hand."""
        pending: deque[tuple[tuple[str, Via], asyncio.Task[_Body | SitemapReport]]] = deque()
        waiting = iter(level)

        def top_up() -> None:
            while len(pending) < SITEMAP_CONCURRENCY:
                item = next(waiting, None)
                if item is None:
                    return
                pending.append((item, asyncio.ensure_future(self._fetch(*item))))

        async def ordered() -> AsyncIterator[tuple[tuple[str, Via], _Body | SitemapReport]]:
            top_up()
            while pending:
                item, task = pending[0]
                body = await task  # left in `pending` until done, so a cancel reaches it
                pending.popleft()
                top_up()
                yield item, body

        try:
            yield ordered()
        finally:
            for _, task in pending:
                task.cancel()
            with anyio.CancelScope(shield=True):  # wait for them even when we are cancelled
                await asyncio.gather(*(task for _, task in pending), return_exceptions=True)
            for _, task in pending:  # downloaded, never parsed: its spooled file goes
                if not task.cancelled() and task.exception() is None:
                    _discard(task.result())

    async def _fetch(self, url: str, via: Via, *, whole: bool = False) -> _Body | SitemapReport:
        """A sitemap's body (its bytes, or the file it was spooled to; a urlset's prefix unless
        `whole`), or the report that says it was refused or failed."""
        shown = safe_url(url)
        need = self._need
        locs = None if whole or need is None else min(need * PREFIX_FACTOR, SITEMAP_MAX_URLS)
        try:
            return await self._download(url, None if locs is None else locs + PREFIX_SLACK)
        except _Refused as exc:
            report = SitemapReport(url=shown, via=via, status="refused", reason=str(exc))
        except NetsiftError as exc:
            reason = f"{exc.message} ({exc.code})"
            report = SitemapReport(url=shown, via=via, status="failed", reason=reason)
        return report

    async def _parse(
        self, url: str, via: Via, body: _Body, from_robots: bool
    ) -> list[SitemapEntry]:
        """Parse `body` off the loop and keep its page URLs until `max_urls` are in hand;
        an index's sitemaps are returned for the next level."""
        sieve = replace(self._sieve, seen=frozenset(self._keys))
        try:
            part = await self._read_part(url, body.source, sieve, self._need)
        finally:
            _discard(body)
        if body.cut and not (part.more or part.dropped):
            # the sieve left out so much of the prefix that the URLs wanted are further on
            again = await self._fetch(url, via, whole=True)
            if isinstance(again, SitemapReport):
                self.reports.append(again)
                return []
            try:
                part = await self._read_part(url, again.source, sieve, self._need)
            finally:
                _discard(again)
        notes = [part.problem] if part.problem else []
        if part.dropped:
            notes.append(f"it lists more than {SITEMAP_MAX_URLS} URLs: the first were read")
        if part.more:
            notes.append(f"reading stopped once {self._max_urls} URLs were in hand")
            self._enough([])
        self.reports.append(
            SitemapReport(
                url=safe_url(url),
                via=via,
                status="read",
                kind=part.kind,
                urls=part.read,
                reason="; ".join(notes) or None,
            )
        )
        self.left_out.update(part.left_out)
        found: list[SitemapEntry] = []
        for block in part.blocks:
            if part.kind == "index":
                found.extend(entry for entry, _ in part.entries(block))
            else:
                fresh = [line for line in block.split("\n") if self._fresh(line)]
                if fresh:
                    self._kept.append(_Kept("\n".join(fresh), url, from_robots))
                    self.kept += len(fresh)
            await anyio.lowlevel.checkpoint()  # the loop answers between two blocks
        return found

    def _fresh(self, line: str) -> bool:
        """Whether a kept line's URL is new to this reader (a sitemap read alongside may
        have listed it); it is counted as a duplicate when not."""
        key = line.rsplit("\t", 1)[1]
        if key in self._keys:
            self.left_out["duplicate"] += 1
            return False
        self._keys.add(key)
        return True

    async def _read_part(
        self, url: str, body: Source, sieve: Sieve, want: int | None
    ) -> SitemapPart:
        if isinstance(body, bytes) and len(body) <= INLINE_MAX_BYTES:  # a worker costs more
            return read_sitemap(body, sieve, want)
        if self._compute is None:
            return await anyio.to_thread.run_sync(read_sitemap, body, sieve, want)
        try:
            return await self._compute.run(
                read_sitemap, body, sieve, want, what=f"the sitemap at {safe_url(url)}"
            )
        except NetsiftError as exc:  # past the worker's limits: a problem, not a failed map
            self._stop(f"the sitemap at {safe_url(url)} was not read: {exc.message}")
            return SitemapPart(problem=f"{exc.message} ({exc.code})")

    async def _download(self, url: str, locs: int | None) -> _Body:
        """The sitemap's body: its bytes when it is small, else the temporary file it was
        written to as it arrived (a compute worker reads it from there: an 18 MB body is
        neither joined in memory on the loop nor pickled to the worker); a urlset's only as
        far as its `locs`-th `<loc>` when `locs` is given."""
        spool = tempfile.NamedTemporaryFile(prefix="netsift-sitemap-", delete=False)
        path = Path(spool.name)
        try:
            with spool:
                sink = _Prefix(spool.write, locs)
                await self._send(url, sink)
        except BaseException:
            _discard(_Body(path))
            raise
        return _Body(_spooled(path), cut=sink.cut)

    async def _send(self, url: str, sink: Callable[[bytes], object]) -> httpx.Response:
        async def on_hop(hop: httpx.URL) -> None:
            if reason := self._site.refusal(str(hop)):
                raise _Refused(f"a redirect left the site: {reason}")
            if self._on_hop is not None:
                await self._on_hop(hop)

        await charge_page()  # a download on the client's behalf, as a fetched page is
        request = httpx.Request("GET", check_url(url), headers={"Accept": ACCEPT})
        # the protocol's own cap, not the page cap: a sitemap of 50,000 URLs passes 10 MB
        response = await self._http.send(
            request,
            kind="sitemap",
            deadline=self._timeout,
            max_bytes=SITEMAP_MAX_BYTES,
            on_hop=on_hop,
            sink=sink,
        )
        if response.status_code >= 400:
            raise HTTPError(
                f"{safe_url(response.url)} answered HTTP {response.status_code}",
                status_code=response.status_code,
            )
        return response


def _spooled(path: Path) -> Source:
    """A spooled body as the parse takes it: the file when it is large (removed once parsed,
    or by `_discard`), else its bytes (parsed inline) and the file removed. A local file's
    stat and a read of a few KB take microseconds: done on the loop."""
    if path.stat().st_size > INLINE_MAX_BYTES:
        return path
    body = path.read_bytes()
    path.unlink()
    return body


def _discard(body: _Body | SitemapReport) -> None:
    """Remove a spooled body's file (bytes and reports hold none)."""
    if isinstance(body, _Body) and isinstance(body.source, Path):
        body.source.unlink(missing_ok=True)


@dataclass(frozen=True)
class _Body:
    """A downloaded sitemap: its bytes or spooled file, and whether the download stopped
    before the end (`cut`: the prefix `_Prefix` let through)."""

    source: Source
    cut: bool = False


class _Prefix:
    """A download's sink that writes each piece on to `write` and, once the body has shown
    it is a urlset, stops the download (`StopBody`) when it has listed `locs` `<loc>`s.
    Counting is a scan of each piece for the tag (tens of µs for 64 KB on the loop); a tag
    split across pieces is found by scanning the body's last bytes before it with it."""

    TAG = b"<loc>"
    URLSET = b"<urlset"

    def __init__(self, write: Callable[[bytes], object], locs: int | None) -> None:
        self._write = write
        self._locs = locs
        self._head: bytearray | None = (
            bytearray()
        )  # the body's first bytes, until it shows what it is
        self._tail = b""
        self._seen = 0
        self.cut = False

    def __call__(self, piece: bytes) -> None:
        self._write(piece)
        if self._locs is None:
            return
        if self._head is not None:
            self._head += piece
            if self.URLSET not in self._head:
                if len(self._head) > PREFIX_HEAD:
                    self._locs = None  # an index, or a body that does not say: read whole
                return
            piece, self._head = bytes(self._head), None
        scanned = self._tail + piece
        self._seen += scanned.count(self.TAG)
        self._tail = scanned[-(len(self.TAG) - 1) :]  # too short to hold a whole tag
        if self._seen >= self._locs:
            self.cut = True
            raise StopBody


class _Refused(Exception):
    """A sitemap that is not read: a redirect would have taken it off the site."""
