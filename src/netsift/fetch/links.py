"""The links of an HTML page, as a browser would follow them; pure and bounded.

A crawl walks these, Firecrawl's `links` format returns them, and an agent reads a page's
way onward from them. Every href is resolved against the page's base (the final URL after
redirects, or the first usable `<base href>`), kept only when it is http(s), its fragment
dropped (it names a place in the same document), and listed once, in page order, with its
anchor text. A page can carry any number of links, so only the first `MAX_LINKS` are kept and
the rest are counted: a link farm cannot blow up a Page or a crawl frontier.
"""

from __future__ import annotations

import re
from urllib.parse import urldefrag, urljoin, urlsplit

from selectolax.lexbor import LexborHTMLParser

from ..models import Link

__all__ = ["MAX_LINKS", "MAX_URL", "absolute_url", "join_url", "page_base", "page_links"]

# The largest real navigation pages (API indexes, archives, HTML sitemaps) list a few
# thousand links; past that a page is a link farm, and neither a reader nor a crawl
# frontier gains from the rest.
MAX_LINKS = 5000
MAX_URL = 4096  # longer "URLs" are payloads, not addresses (browsers cap far lower in practice)
MAX_TEXT = 200  # an anchor's words name the target; more is a paragraph wrapped in a link

_URL_NOISE = re.compile(r"[\t\n\r]")
_SPACE = re.compile(r"\s+")


def absolute_url(href: str, base: str | None) -> str | None:
    """`href` resolved against `base`, if the result is an http(s) URL of sane length: the one
    rule for every link netsift reads (the page's links, its metadata, feeds, sitemaps).

    The links pages are mostly made of take a fast path that gives exactly what `urljoin`
    and the checks below give (an absolute or scheme-relative http(s) URL kept as written,
    a root-relative path or a fragment joined by concatenation): urljoin's general parse of
    each of a page's hundreds of links cost a tenth of its extraction."""
    href = _URL_NOISE.sub("", href).strip()
    if not href or len(href) > MAX_URL:
        return None
    if (fast := _fast_join(base, href)) is not None:
        return fast
    try:
        joined = urljoin(base, href) if base else href
        parts = urlsplit(joined)
    except ValueError:
        return None
    if parts.scheme.lower() not in ("http", "https") or not parts.hostname:
        return None
    return joined


def join_url(base: str, href: str) -> str:
    """`urljoin(base, href)` for an absolute http(s) `base`, by `_fast_join` when it can."""
    return _fast_join(base, href) or urljoin(base, href)


def _fast_join(base: str | None, href: str) -> str | None:
    """What `urljoin(base, href)` gives, known to be an http(s) URL with a host, for the plain
    cases: `href` absolute or scheme-relative http(s), root-relative (`/a/b?c`) or a fragment
    (`#top`), where urljoin would change nothing it is given (no dot segment, backslash,
    parameter, empty query or fragment; a host without a user, an IPv6 address or non-ASCII
    letters). None otherwise: the caller takes urljoin's general path."""
    if href[:2] == "//":  # scheme-relative: the base's scheme
        if base is None or not base.startswith(_HTTP):
            return None
        href = base[: base.index(":") + 1] + href
    elif href[:1] == "/":
        origin = _origin(base) if base is not None and _plain(href) else ""
        return origin + href if origin else None
    elif href[:1] == "#":
        page = (base or "").partition("#")[0]
        return page + href if len(href) > 1 and _plain(page) and _origin(page) else None
    return href if _plain(href) and _origin(href) else None


_HTTP = ("http://", "https://")
_DOT_SEGMENT = re.compile(r"/\.\.?(?:[/?#]|$)")


def _plain(url: str) -> bool:
    """Whether urljoin gives `url` back as written once its base is settled: no dot segment,
    backslash or parameter, and no empty query or fragment (urljoin drops a bare "?" or "#")."""
    return not (
        "\\" in url
        or ";" in url
        or "?#" in url
        or url.endswith(("?", "#"))
        or _DOT_SEGMENT.search(url)
    )


def _origin(url: str) -> str:
    """`scheme://host[:port]` of an absolute http(s) URL (what a root-relative path keeps), or
    "" when it is not one or its host is not plain (see `_fast_join`)."""
    found = _PLAIN_ORIGIN.match(url)
    return found[0] if found else ""


# http(s), then a host of ASCII without a user or an IPv6 address (not starting with the port's
# colon), ending where the path, query or fragment starts
_PLAIN_ORIGIN = re.compile(
    r"https?://[^/?#@\[\]:\x80-\U0010ffff][^/?#@\[\]\x80-\U0010ffff]*(?![^/?#])"
)


def page_base(tree: LexborHTMLParser, url: str | None) -> str | None:
    """The URL links resolve against: the first `<base href>` when usable, else the page's."""
    page_url = absolute_url(url or "", None)
    if (node := tree.css_first("base[href]")) is not None:
        return absolute_url(node.attributes.get("href") or "", page_url) or page_url
    return page_url


def page_links(tree: LexborHTMLParser, url: str | None) -> tuple[list[Link], int]:
    """The page's http(s) links in order, each once, and how many more were dropped. Each
    distinct href is resolved once (menus repeat theirs)."""
    base = page_base(tree, url)
    seen: dict[str, Link] = {}
    resolved: dict[str, str | None] = {}
    dropped = 0
    for node in tree.css("a[href]"):
        href = node.attributes.get("href") or ""
        if href in resolved:
            target = resolved[href]
        else:
            target = resolved[href] = _link_target(href, base)
        if target is None:
            continue
        if target in seen:
            if not seen[target].text:  # an icon link first, its labelled twin later
                seen[target] = Link(url=target, text=_text(node.text(deep=True)))
            continue
        if len(seen) >= MAX_LINKS:
            dropped += 1
            continue
        seen[target] = Link(url=target, text=_text(node.text(deep=True)))
    return list(seen.values()), dropped


def _link_target(href: str, base: str | None) -> str | None:
    """`href` as an http(s) URL without its fragment (it names a place in the same
    document), or None (see `absolute_url`)."""
    target = absolute_url(href, base)
    if target is None or "#" not in target:
        return target
    return urldefrag(target).url


def _text(text: str) -> str:
    return _SPACE.sub(" ", text).strip()[:MAX_TEXT]
