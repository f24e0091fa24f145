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
    """`href` resolved against `base`, if the result is an http(s) URL of sane length."""
    href = _URL_NOISE.sub("", href).strip()
    if not href or len(href) > MAX_URL:
        return None
    try:
        joined = urljoin(base, href) if base else href
        parts = urlsplit(joined)
    except ValueError:
        return None
    if parts.scheme.lower() not in ("http", "https") or not parts.hostname:
        return None
    return joined


def join_url(base: str, href: str) -> str:
    """`urljoin(base, href)` for an absolute http(s) `base`, with a fast path for the links
    pages are mostly made of: a root-relative path (`/a/b?c`) or a fragment (`#top`) joins by
    concatenation when it has no dot segment or backslash to normalise (urljoin's general
    parse cost a tenth of a page's extraction, 12 % of a fetch's samples)."""
    if base.startswith(("http://", "https://")):
        if href[:1] == "/" and href[1:2] != "/" and "\\" not in href:
            # urljoin drops an empty query or fragment ("/a?", "/a#"): those take its path
            if not _DOT_SEGMENT.search(href) and not href.endswith(("?", "#")):
                if "?#" not in href:
                    return _origin(base) + href
        elif href[:1] == "#" and len(href) > 1:
            return base.partition("#")[0] + href
    return urljoin(base, href)


_DOT_SEGMENT = re.compile(r"/\.\.?(?:[/?#]|$)")


def _origin(base: str) -> str:
    """`scheme://host[:port]` of an absolute URL (the part a root-relative path keeps)."""
    scheme, _, rest = base.partition("://")
    end = len(rest)
    for mark in "/?#":
        found = rest.find(mark)
        if found != -1 and found < end:
            end = found
    return f"{scheme}://{rest[:end]}"


def page_base(tree: LexborHTMLParser, url: str | None) -> str | None:
    """The URL links resolve against: the first `<base href>` when usable, else the page's."""
    page_url = absolute_url(url or "", None)
    if (node := tree.css_first("base[href]")) is not None:
        return absolute_url(node.attributes.get("href") or "", page_url) or page_url
    return page_url


def page_links(tree: LexborHTMLParser, url: str | None) -> tuple[list[Link], int]:
    """The page's http(s) links in order, each once, and how many more were dropped. Each
    distinct href is resolved once (menus repeat theirs), by `join_url`'s fast path."""
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
    """`href` as an http(s) URL without its fragment, or None (see `absolute_url`)."""
    clean = _URL_NOISE.sub("", href).strip()
    if base and clean[:1] in ("/", "#") and clean[1:2] != "/" and len(clean) <= MAX_URL:
        return join_url(base, clean).partition("#")[0]
    target = absolute_url(href, base)
    return None if target is None else urldefrag(target).url


def _text(text: str) -> str:
    return _SPACE.sub(" ", text).strip()[:MAX_TEXT]
