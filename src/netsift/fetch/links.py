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

__all__ = ["MAX_LINKS", "MAX_URL", "absolute_url", "page_base", "page_links"]

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


def page_base(tree: LexborHTMLParser, url: str | None) -> str | None:
    """The URL links resolve against: the first `<base href>` when usable, else the page's."""
    page_url = absolute_url(url or "", None)
    if (node := tree.css_first("base[href]")) is not None:
        return absolute_url(node.attributes.get("href") or "", page_url) or page_url
    return page_url


def page_links(tree: LexborHTMLParser, url: str | None) -> tuple[list[Link], int]:
    """The page's http(s) links in order, each once, and how many more were dropped."""
    base = page_base(tree, url)
    seen: dict[str, Link] = {}
    dropped = 0
    for node in tree.css("a[href]"):
        target = absolute_url(node.attributes.get("href") or "", base)
        if target is None:
            continue
        target = urldefrag(target).url
        if target in seen:
            if not seen[target].text:  # an icon link first, its labelled twin later
                seen[target] = Link(url=target, text=_text(node.text(deep=True)))
            continue
        if len(seen) >= MAX_LINKS:
            dropped += 1
            continue
        seen[target] = Link(url=target, text=_text(node.text(deep=True)))
    return list(seen.values()), dropped


def _text(text: str) -> str:
    return _SPACE.sub(" ", text).strip()[:MAX_TEXT]
