"""The RSS and Atom feeds a page announces (`<link rel="alternate" type="…rss+xml">`); pure.

A map reads a site's feeds for its newest URLs and their dates: sitemaps are often stale, and
the feed is where a blog or a news site lists what it published this week. The feeds
themselves are read by the Fetcher (fetch/feed.py, feedparser), like any page.
"""

from __future__ import annotations

from selectolax.lexbor import LexborHTMLParser

from ..fetch.links import absolute_url, page_base

__all__ = ["FEED_TYPES", "MAX_FEEDS", "feed_links"]

FEED_TYPES = frozenset(
    {"application/rss+xml", "application/atom+xml", "application/feed+json", "application/rdf+xml"}
)
# Feeds one page announces worth reading: a site's main feed and a few sections (comments
# feeds and per-tag feeds repeat the same entries).
MAX_FEEDS = 5


def feed_links(html: str, url: str | None) -> list[str]:
    """The feed URLs `html` announces, absolute, each once, in page order (at most
    MAX_FEEDS)."""
    tree = LexborHTMLParser(html)
    base = page_base(tree, url)
    found: list[str] = []
    for node in tree.css("link[rel][href]"):
        rels = (node.attributes.get("rel") or "").lower().split()
        kind = (node.attributes.get("type") or "").split(";")[0].strip().lower()
        if "alternate" not in rels or kind not in FEED_TYPES:
            continue
        href = absolute_url(node.attributes.get("href") or "", base)
        if href is not None and href not in found:
            found.append(href)
        if len(found) >= MAX_FEEDS:
            break
    return found
