"""A sitemap document read (sitemaps.org): pure, so it runs in a compute worker.

A sitemap is hostile input like any page. Its XML is parsed incrementally by lxml with entities
never substituted and no DTD or network access (an `&xxe;` stays an unread reference, and a
loc that holds one is dropped; libxml2 refuses entity amplification, so "billion laughs" is a
parse error, not gigabytes). It is fed in pieces: a gzipped sitemap is inflated piece by piece
under a cap, so a compression bomb stops at `SITEMAP_MAX_BYTES`, and reading stops at the
protocol's `SITEMAP_MAX_URLS` or once the caller's `want` URLs are kept. Each page URL passes
the guard's parser before anything decodes its name, then a `Sieve` (scope, robots.txt, the
keys in hand) where it is read, so only what is kept crosses back to the event loop.
sitemaps.py downloads the documents and runs this off the loop.
"""

from __future__ import annotations

import functools
import itertools
import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from lxml import etree
from protego import Protego

from ..errors import DecodeError, NetsiftError
from ..net.decompress import PIECE, build_decoder, decode_errors
from ..net.guard import check_url
from .scope import Scope, canonical_url

__all__ = [
    "BLOCK",
    "SITEMAP_MAX_BYTES",
    "SITEMAP_MAX_URLS",
    "Kind",
    "ParsedSitemap",
    "Sieve",
    "SitemapEntry",
    "SitemapPart",
    "Source",
    "key_origin",
    "origin_of",
    "parse_sitemap",
    "read_sitemap",
]

# The protocol's own limits for one sitemap file: 50,000 URLs and 50 MB uncompressed.
SITEMAP_MAX_URLS = 50_000
SITEMAP_MAX_BYTES = 50 * 1024 * 1024
MAX_LASTMOD = 64  # a W3C datetime is 25 characters; anything longer is not one
MAX_LOC = 4096  # as fetch/links.py: longer "URLs" are payloads
# Kept entries per block a worker hands back: one block is split and merged on the event loop
# between two of its turns (~1-2 µs an entry, so well under a millisecond on a busy host), and
# a 50,000-URL sitemap crosses from the worker as 200 strings rather than 150,000 objects.
BLOCK = 250
GZIP_MAGIC = b"\x1f\x8b"
# Origins whose verdict a worker keeps: a sitemap names one site, and an index a few.
NAMES_CACHED = 256
# What check_url refuses in any URL before parsing it: whitespace and control characters.
_UNSAFE = re.compile(r"[\x00-\x20\x7f-\x9f]")
_ORIGIN = re.compile(r"https?://[^/?#]*", re.IGNORECASE)

Kind = Literal["urlset", "index", "text"]


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
    """Entries of one document as its XML or text arrives, handed out as they complete."""

    def __init__(self) -> None:
        self.kind: Kind = "urlset"
        self.ready: list[SitemapEntry] = []
        self._parser = etree.XMLPullParser(
            events=("end",),
            resolve_entities=False,
            no_network=True,
            load_dtd=False,
            huge_tree=False,
            remove_comments=True,
            remove_pis=True,
        )
        self._text: bytearray | None = None  # a plain-text sitemap: one URL per line
        self._long_line = False  # the text line being read is past MAX_LOC: it is dropped
        self._started = False

    def feed(self, data: bytes) -> None:
        if not self._started:
            head = data.lstrip()
            if not head:
                return
            self._started = True
            if not head.startswith(b"<"):
                self.kind = "text"
                self._text = bytearray()
        if self._text is not None:
            self._lines(data)
            return
        self._parser.feed(data)
        self._drain()

    def close(self) -> None:
        if self._text is not None:
            self._lines(b"\n")
            return
        if self._started:
            self._parser.close()
            self._drain()

    def _lines(self, data: bytes) -> None:
        """Whole lines of a text sitemap as they arrive; a line longer than any URL is
        dropped as it grows, so a newline-free body costs no memory."""
        self._text = self._text or bytearray()
        self._text += data
        *lines, rest = bytes(self._text).split(b"\n")
        for line in lines:
            if self._long_line:
                self._long_line = False
            elif loc := line.decode("utf-8", "replace").strip():
                self.ready.append(SitemapEntry(loc))
        if len(rest) > MAX_LOC:
            self._long_line, rest = True, b""
        self._text = bytearray(rest)

    def _drain(self) -> None:
        for _, element in self._parser.read_events():
            name = _local(element.tag)
            if name in ("url", "sitemap"):
                if name == "sitemap":
                    self.kind = "index"
                loc = lastmod = None
                for child in element:
                    child_name = _local(child.tag)
                    if child_name == "loc":
                        loc = _text(child)
                    elif child_name == "lastmod":
                        lastmod = _text(child)
                if loc:
                    if lastmod is not None and (
                        len(lastmod) > MAX_LASTMOD or not lastmod.isprintable()
                    ):
                        lastmod = None
                    self.ready.append(SitemapEntry(loc, lastmod))
                element.clear()  # keep memory flat: a urlset is read, not kept
                parent = element.getparent()
                if parent is not None:
                    while element.getprevious() is not None:
                        del parent[0]


Source = bytes | Path
"""A sitemap document: its bytes, or the file its body was spooled to (sitemaps.py), read a
piece at a time so a worker is handed a path, never an 18 MB copy."""


def _raw(source: Source) -> Iterator[bytes]:
    """The document's stored bytes in pieces of at most `PIECE`."""
    if isinstance(source, bytes):
        for start in range(0, len(source), PIECE):
            yield source[start : start + PIECE]
        return
    with source.open("rb") as file:
        while piece := file.read(PIECE):
            yield piece


def _pieces(source: Source, *, limit: int) -> Iterator[bytes]:
    """The document's bytes in pieces of at most `PIECE` (libxml2 refuses a single feed over
    10 MB, and a piece is as far as a parse runs before its entries are handed on), gunzipped
    when it is gzip (the `.xml.gz` files servers send as they are), never more than `limit`
    in all; raises DecodeError past it or on bad gzip."""
    raw = _raw(source)
    first = next(raw, b"")
    pieces = itertools.chain([first], raw)
    if not first.startswith(GZIP_MAGIC):
        stored = len(source) if isinstance(source, bytes) else source.stat().st_size
        if stored > limit:
            raise DecodeError(f"the sitemap is over {limit} bytes")
        yield from pieces
        return
    size = 0
    decoder = build_decoder("gzip")

    def inflated() -> Iterator[bytes]:
        for packed in pieces:
            yield from decoder.decode(packed)
        yield from decoder.flush()

    try:
        # lazily, piece by piece: a bomb stops at the cap, never inflated whole first
        for piece in inflated():
            size += len(piece)
            if size > limit:
                raise DecodeError(f"the sitemap inflates past {limit} bytes")
            yield piece
    except decode_errors() as exc:
        raise DecodeError(f"the sitemap's gzip is broken ({exc})") from None


def _entries(body: Source, collector: _Collector, *, max_bytes: int) -> Iterator[SitemapEntry]:
    """The `<loc>`s of one document as the parse reaches them (at most the protocol's
    `SITEMAP_MAX_URLS`); a problem that stops the parse is raised as a DecodeError after the
    entries before it."""
    try:
        for piece in _pieces(body, limit=max_bytes):
            collector.feed(piece)
            yield from _take(collector)
        collector.close()
        yield from _take(collector)
    except etree.XMLSyntaxError as exc:
        yield from _take(collector)
        raise DecodeError(f"not a readable sitemap ({exc.msg or 'XML error'})") from None


def _take(collector: _Collector) -> list[SitemapEntry]:
    ready, collector.ready = collector.ready, []
    return ready


def _usable(loc: str) -> bool:
    return len(loc) <= MAX_LOC and loc.lower().startswith(("http://", "https://"))


def parse_sitemap(body: bytes, *, max_bytes: int = SITEMAP_MAX_BYTES) -> ParsedSitemap:
    """The entries of one sitemap document (XML urlset or index, plain text, gzipped or not);
    pure. What was read before a problem is kept, and the problem said. Reading stops at the
    protocol's `SITEMAP_MAX_URLS` (`dropped` is 1 when the document lists more)."""
    collector = _Collector()
    parsed = ParsedSitemap()
    try:
        for entry in _entries(body, collector, max_bytes=max_bytes):
            if len(parsed.entries) >= SITEMAP_MAX_URLS:
                parsed.dropped = 1
                break
            if _usable(entry.url):
                parsed.entries.append(entry)
    except DecodeError as exc:
        parsed.problem = exc.message
    parsed.kind = collector.kind
    return parsed


@dataclass(frozen=True)
class Sieve:
    """What a sitemap's page URLs must pass as they are read, where they are read (a compute
    worker, so it is pure and picklable): the guard's parser first, then the canonical form,
    the keys already in hand, the scope and the robots.txt of the origins whose rules are
    known (a parsed robots.txt, or whether it allows everything; not `RobotsRules`, whose
    module would bring the network half into the worker). URLs of an origin not in `robots`
    are left for the caller to check. The guard's parser judges each URL's origin once
    (`_name_refusal`; a 50,000-URL sitemap names one or two) and each whole URL's characters
    (`_UNSAFE`, its first check), so a sitemap costs what its parse costs, not 50,000 URL
    parses more."""

    scope: Scope | None = None
    robots: dict[str, Protego | bool] = field(default_factory=dict)  # origin: rules, or all?
    user_agent: str = ""
    seen: frozenset[str] = frozenset()

    def verdict(self, url: str, kept: set[str]) -> tuple[str | None, str]:
        """(the canonical key, "") for a URL to keep, else (None, the reason it is left out:
        `invalid`, `duplicate`, `scope`, `robots`)."""
        origin = _ORIGIN.match(url)
        if _UNSAFE.search(url) or origin is None or _name_refusal(origin.group(0).lower()):
            return None, "invalid"  # the guard's parser refused it: nothing decoded the name
        try:
            key = canonical_url(url)
        except NetsiftError:
            return None, "invalid"
        if key in kept or key in self.seen:
            return None, "duplicate"
        if self.scope is not None and self.scope.refusal(url) is not None:
            return None, "scope"
        rules = self.robots.get(key_origin(key))
        if rules is False or (
            isinstance(rules, Protego) and not rules.can_fetch(url, self.user_agent)
        ):
            return None, "robots"
        return key, ""


def origin_of(url: str) -> str:
    """The origin of `url` in canonical form (`scheme://host[:port]`), the key of `Sieve.robots`."""
    return key_origin(canonical_url(url))


def key_origin(key: str) -> str:
    """The origin of a URL already in canonical form (`scheme://netloc/...`)."""
    scheme, _, netloc = key.split("/", 3)[:3]
    return f"{scheme}//{netloc}"


@functools.lru_cache(maxsize=NAMES_CACHED)
def _name_refusal(origin: str) -> bool:
    """Whether the guard's parser refuses `origin` (`scheme://netloc`), as check_url would
    refuse any URL of it: a malformed IDNA name, credentials, a bad port or host."""
    try:
        check_url(origin + "/")
    except NetsiftError:
        return True
    return False


@dataclass
class SitemapPart:
    """What one reading of a sitemap kept, in the shape that crosses from a worker cheaply:
    entries as `BLOCK`-line strings (`url TAB lastmod TAB key`), not one object each."""

    kind: Kind = "urlset"
    blocks: list[str] = field(default_factory=list)
    kept: int = 0
    read: int = 0  # entries read from the document's start when it stopped
    more: bool = False  # stopped because `want` were kept: the document lists more
    dropped: int = 0  # 1 when the document lists more than the protocol's SITEMAP_MAX_URLS
    left_out: dict[str, int] = field(default_factory=dict)
    problem: str | None = None

    def entries(self, block: str) -> Iterator[tuple[SitemapEntry, str]]:
        """The entries of one block, each with its canonical key (the URL, for an index)."""
        for line in block.split("\n"):
            url, lastmod, key = line.split("\t")
            yield SitemapEntry(url, lastmod or None), key


def read_sitemap(
    body: Source,
    sieve: Sieve | None = None,
    want: int | None = None,
    *,
    max_bytes: int = SITEMAP_MAX_BYTES,
) -> SitemapPart:
    """Parse one sitemap document, pass its page URLs through `sieve` and stop once `want` are
    kept; pure, for a compute worker. An index's entries are sitemaps: the caller admits
    them."""
    collector = _Collector()
    part = SitemapPart()
    kept: set[str] = set()
    rows: list[str] = []
    left_out: Counter[str] = Counter()

    def flush() -> None:
        if rows:
            part.blocks.append("\n".join(rows))
            rows.clear()

    try:
        for entry in _entries(body, collector, max_bytes=max_bytes):
            if part.read >= SITEMAP_MAX_URLS:
                part.dropped = 1
                break
            if want is not None and part.kept >= want and collector.kind != "index":
                part.more = True
                break
            part.read += 1
            if not _usable(entry.url) or any(c in entry.url for c in "\t\n"):
                left_out["invalid"] += 1
                continue
            key = entry.url
            if collector.kind != "index" and sieve is not None:
                found, reason = sieve.verdict(entry.url, kept)
                if found is None:
                    left_out[reason] += 1
                    continue
                key = found
            kept.add(key)
            part.kept += 1
            rows.append(f"{entry.url}\t{entry.lastmod or ''}\t{key}")
            if len(rows) >= BLOCK:
                flush()
    except DecodeError as exc:
        part.problem = exc.message
    flush()
    part.kind = collector.kind
    part.left_out = dict(left_out)
    return part
