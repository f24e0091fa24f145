"""The images of an HTML page (Firecrawl's `images` format); pure and bounded.

Read from the HTML the fetch read: the DOM after scripts ran when the page was rendered
(images a script inserted are in it), the page as served otherwise. Every `<img src>`, each
candidate of an `srcset` (on `<img>` and a `<picture>`'s `<source>`) resolved against the
page's base like its links, kept when it is http(s) (inline `data:` images are content, not
addresses), listed once in page order.
"""

from __future__ import annotations

from selectolax.lexbor import LexborHTMLParser

from .html import bounded_html
from .links import absolute_url, page_base

__all__ = ["MAX_IMAGES", "page_images"]

# Galleries and listings show a few hundred images; more is a tracking-pixel farm, and the
# list is for a reader or a model choosing a few.
MAX_IMAGES = 1000


def page_images(html: str, url: str | None) -> list[str]:
    """The page's image URLs, absolute, each once, in page order (at most MAX_IMAGES)."""
    tree = LexborHTMLParser(bounded_html(html))
    base = page_base(tree, url)
    seen: dict[str, None] = {}
    for node in tree.css("img, picture source"):
        attributes = node.attributes
        candidates = [attributes.get("src") or ""]
        candidates += [
            part.split()[0] for part in (attributes.get("srcset") or "").split(",") if part.split()
        ]
        for href in candidates:
            target = absolute_url(href, base)
            if target is not None and target not in seen:
                seen[target] = None
                if len(seen) >= MAX_IMAGES:
                    return list(seen)
    return list(seen)
