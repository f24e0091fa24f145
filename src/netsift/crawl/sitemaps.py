"""Sitemaps (sitemaps.org): read safely and within bounds, from robots.txt's lines down.

A sitemap is hostile input like any page. Its XML is parsed incrementally by lxml with entities
never substituted and no DTD or network access (an `&xxe;` stays an unread reference, and a
loc that holds one is dropped; libxml2 refuses entity amplification, so "billion laughs" is a
parse error, not gigabytes). A gzipped sitemap is inflated piece by piece under a cap, so a
compression bomb stops at `SITEMAP_MAX_BYTES`. Indexes are followed breadth-first to
`MAX_DEPTH`, at most `MAX_SITEMAPS` documents, and only on the site being mapped: a sitemap
URL on another site or a private address is reported as refused and never requested.
"""

from __future__ import annotations

import asyncio
import ipaddress
import itertools
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from typing import Literal

import httpx
from lxml import etree

from ..errors import DecodeError, HTTPError, NetsiftError
from ..models import SitemapReport
from ..net.decompress import build_decoder, decode_errors
from ..net.guard import check_url, safe_url
from ..net.http import HttpClient
from ..usage import charge_page
from .scope import Scope

__all__ = [
    "MAX_DEPTH",
    "MAX_SITEMAPS",
    "SITEMAP_MAX_BYTES",
    "SITEMAP_MAX_URLS",
    "ParsedSitemap",
    "SitemapEntry",
    "SitemapReader",
    "parse_sitemap",
]

# The protocol's own limits for one sitemap file: 50,000 URLs and 50 MB uncompressed.
SITEMAP_MAX_URLS = 50_000
SITEMAP_MAX_BYTES = 50 * 1024 * 1024
# Documents read for one map: a large site's index lists a few dozen sitemaps; more is a
# generator, and a map that wants "every URL" of such a site is a crawl job, not a request.
MAX_SITEMAPS = 50
# Index → sitemap is the protocol's one level; real sites nest one or two more. Deeper is a loop
# or a trap.
MAX_DEPTH = 3
# Sitemaps read at once: hides one slow document behind others, without hammering the site.
SITEMAP_CONCURRENCY = 4
MAX_LASTMOD = 64  # a W3C datetime is 25 characters; anything longer is not one
MAX_LOC = 4096  # as fetch/links.py: longer "URLs" are payloads
ACCEPT = "application/xml,text/xml;q=0.9,text/plain;q=0.8,*/*;q=0.5"
GZIP_MAGIC = b"\x1f\x8b"

Kind = Literal["urlset", "index", "text"]
Via = Literal["robots", "guess", "index"]


@dataclass(frozen=True)
class SitemapEntry:
    """One `<loc>` of a sitemap: a page (urlset) or another sitemap (index)."""

    url: str
    lastmod: str | None = None


@dataclass
class ParsedSitemap:
    kind: Kind = "urlset"
    entries: list[SitemapEntry] = field(default_factory=list)
    dropped: int = 0  # entries past SITEMAP_MAX_URLS
    problem: str | None = None  # why reading stopped early (entries so far are kept)


def _local(tag: object) -> str:
    return etree.QName(tag).localname if isinstance(tag, str) else ""


def _text(element: etree._Element) -> str | None:
    """An element's own text; None when it holds markup or an entity reference (`&xxe;`)."""
    if len(element):
        return None
    return (element.text or "").strip() or None


class _Collector:
    """Entries of one document as its XML or text arrives."""

    def __init__(self) -> None:
        self.parsed = ParsedSitemap()
        self._parser = etree.XMLPullParser(
            events=("end",),
            resolve_entities=False,
            no_network=True,
            load_dtd=False,
            huge_tree=False,
            remove_comments=True,
            remove_pis=True,
        )
        self._text: list[bytes] | None = None  # a plain-text sitemap: one URL per line
        self._started = False

    def feed(self, data: bytes) -> None:
        if not self._started:
            head = data.lstrip()
            if not head:
                return
            self._started = True
            if not head.startswith(b"<"):
                self.parsed.kind = "text"
                self._text = []
        if self._text is not None:
            self._text.append(data)
            return
        self._parser.feed(data)
        self._drain()

    def close(self) -> None:
        if self._text is not None:
            for line in b"".join(self._text).decode("utf-8", "replace").splitlines():
                if line.strip():
                    self._add(line.strip(), None)
            return
        if self._started:
            self._parser.close()
            self._drain()

    def _drain(self) -> None:
        for _, element in self._parser.read_events():
            name = _local(element.tag)
            if name in ("url", "sitemap"):
                if name == "sitemap":
                    self.parsed.kind = "index"
                loc = lastmod = None
                for child in element:
                    child_name = _local(child.tag)
                    if child_name == "loc":
                        loc = _text(child)
                    elif child_name == "lastmod":
                        lastmod = _text(child)
                if loc:
                    self._add(loc, lastmod)
                element.clear()  # keep memory flat: a urlset is read, not kept
                parent = element.getparent()
                if parent is not None:
                    while element.getprevious() is not None:
                        del parent[0]

    def _add(self, loc: str, lastmod: str | None) -> None:
        if len(self.parsed.entries) >= SITEMAP_MAX_URLS:
            self.parsed.dropped += 1
            return
        if len(loc) > MAX_LOC or not loc.lower().startswith(("http://", "https://")):
            return
        if lastmod is not None and len(lastmod) > MAX_LASTMOD:
            lastmod = None
        self.parsed.entries.append(SitemapEntry(loc, lastmod))


def _pieces(body: bytes, *, limit: int) -> Iterator[bytes]:
    """The document's bytes, gunzipped when it is gzip (the `.xml.gz` files servers send as
    they are), never more than `limit` in all; raises DecodeError past it or on bad gzip."""
    if not body.startswith(GZIP_MAGIC):
        if len(body) > limit:
            raise DecodeError(f"the sitemap is over {limit} bytes")
        yield body
        return
    decoder = build_decoder("gzip")
    size = 0
    try:
        # lazily, piece by piece: a bomb stops at the cap, never inflated whole first
        for piece in itertools.chain(decoder.decode(body), decoder.flush()):
            size += len(piece)
            if size > limit:
                raise DecodeError(f"the sitemap inflates past {limit} bytes")
            yield piece
    except decode_errors() as exc:
        raise DecodeError(f"the sitemap's gzip is broken ({exc})") from None


def parse_sitemap(body: bytes, *, max_bytes: int = SITEMAP_MAX_BYTES) -> ParsedSitemap:
    """The entries of one sitemap document (XML urlset or index, plain text, gzipped or not);
    pure. What was read before a problem is kept, and the problem said."""
    collector = _Collector()
    try:
        for piece in _pieces(body, limit=max_bytes):
            collector.feed(piece)
        collector.close()
    except etree.XMLSyntaxError as exc:
        collector.parsed.problem = f"not a readable sitemap ({exc.msg or 'XML error'})"
    except DecodeError as exc:
        collector.parsed.problem = exc.message
    return collector.parsed


@dataclass(frozen=True)
class Listed:
    """A page URL a sitemap listed, with the sitemap that listed it."""

    url: str
    lastmod: str | None
    sitemap: str
    from_robots: bool  # robots.txt named that sitemap, or the index above it


OnHop = Callable[[httpx.URL], Awaitable[None]]


class SitemapReader:
    """Reads a site's sitemaps breadth-first through the guarded client, within the bounds."""

    def __init__(
        self,
        http: HttpClient,
        site: Scope,
        *,
        on_hop: OnHop | None = None,
        timeout: float | None = None,
        max_sitemaps: int = MAX_SITEMAPS,
        max_urls: int | None = None,
    ) -> None:
        self._http = http
        self._site = site
        self._on_hop = on_hop
        self._timeout = timeout
        self._max_sitemaps = max_sitemaps
        self._max_urls = max_urls
        self.reports: list[SitemapReport] = []
        self.listed: list[Listed] = []
        self.stopped: list[str] = []

    def refusal(self, url: str) -> str | None:
        """Why a sitemap URL is not requested: a private address, another site, not http(s)."""
        try:
            target = check_url(url)
        except NetsiftError as exc:
            return exc.message
        host = target.host
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
                for url, via in level:
                    self.reports.append(
                        SitemapReport(url=url, via=via, status="skipped", reason="too deep")
                    )
                return
            allowed = self._admit(level)
            results = await self._read_level(allowed)
            level = []
            for (url, _), parsed in zip(allowed, results, strict=True):
                if parsed is None:
                    continue
                from_robots = url in robots_named
                if parsed.kind == "index":
                    for entry in parsed.entries:
                        if entry.url not in seen:
                            seen.add(entry.url)
                            level.append((entry.url, "index"))
                            if from_robots:
                                robots_named.add(entry.url)
                    continue
                for entry in parsed.entries:
                    if self._max_urls is not None and len(self.listed) >= self._max_urls:
                        self._stop(f"the map's bound of {self._max_urls} sitemap URLs")
                        return
                    self.listed.append(Listed(entry.url, entry.lastmod, url, from_robots))
            depth += 1

    def _admit(self, level: list[tuple[str, Via]]) -> list[tuple[str, Via]]:
        allowed: list[tuple[str, Via]] = []
        for url, via in level:
            shown = safe_url(url)
            if reason := self.refusal(url):
                self.reports.append(
                    SitemapReport(url=shown, via=via, status="refused", reason=reason)
                )
                continue
            if len(allowed) + self._fetched >= self._max_sitemaps:
                self._stop(f"at most {self._max_sitemaps} sitemaps are read for one map")
                self.reports.append(
                    SitemapReport(url=shown, via=via, status="skipped", reason="too many sitemaps")
                )
                continue
            allowed.append((url, via))
        return allowed

    @property
    def _fetched(self) -> int:
        return sum(report.status in ("read", "failed") for report in self.reports)

    def _stop(self, reason: str) -> None:
        if reason not in self.stopped:
            self.stopped.append(reason)

    async def _read_level(self, level: list[tuple[str, Via]]) -> list[ParsedSitemap | None]:
        gate = asyncio.Semaphore(SITEMAP_CONCURRENCY)

        async def one(url: str, via: Via) -> tuple[SitemapReport, ParsedSitemap | None]:
            async with gate:
                return await self._read_one(url, via)

        done = await asyncio.gather(*(one(url, via) for url, via in level))
        self.reports.extend(report for report, _ in done)
        return [parsed for _, parsed in done]

    async def _read_one(self, url: str, via: Via) -> tuple[SitemapReport, ParsedSitemap | None]:
        shown = safe_url(url)
        try:
            body = await self._download(url)
        except _Refused as exc:
            return SitemapReport(url=shown, via=via, status="refused", reason=str(exc)), None
        except NetsiftError as exc:
            reason = f"{exc.message} ({exc.code})"
            return SitemapReport(url=shown, via=via, status="failed", reason=reason), None
        parsed = parse_sitemap(body)
        notes = [parsed.problem] if parsed.problem else []
        if parsed.dropped:
            notes.append(
                f"kept the first {SITEMAP_MAX_URLS} URLs of "
                f"{SITEMAP_MAX_URLS + parsed.dropped} (the protocol's limit)"
            )
        report = SitemapReport(
            url=shown,
            via=via,
            status="read",
            kind=parsed.kind,
            urls=len(parsed.entries),
            reason="; ".join(notes) or None,
        )
        return report, parsed

    async def _download(self, url: str) -> bytes:
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
        )
        if response.status_code >= 400:
            raise HTTPError(
                f"{safe_url(response.url)} answered HTTP {response.status_code}",
                status_code=response.status_code,
            )
        return response.content


class _Refused(Exception):
    """A sitemap that is not read: a redirect would have taken it off the site."""
