"""The main region of a page: the one element that holds its content once the chrome is gone.

Article extractors hunt for the densest run of paragraphs; pages made of blocks (products,
pricing plans, listings, threads) need the whole content region instead. The page's own
landmarks come first (`<main>`, `role=main`, a lone `<article>`), then the element holding most
of the page's text that is not link text.
"""

from __future__ import annotations

from lxml import etree

__all__ = ["find_main_region", "text_length"]

_CONTENT_IDS = ("content", "main", "primary", "page-content", "main-content", "maincontent")


def text_length(node: etree._Element) -> int:
    return sum(map(len, map(str.strip, node.itertext())))


def _link_length(node: etree._Element) -> int:
    return sum(text_length(a) for a in node.iter("a"))


def find_main_region(body: etree._Element) -> etree._Element:
    """The landmark or densest element holding the page's content (`body` if none stands out)."""
    total = text_length(body)
    if not total:
        return body
    landmarks = body.xpath(".//main | .//*[@role='main']")
    best = _largest(landmarks)
    if best is not None and text_length(best) >= 0.25 * total:
        return best
    articles = body.xpath(".//article[not(ancestor::article)]")
    if len(articles) == 1 and text_length(articles[0]) >= 0.5 * total:
        return articles[0]
    for name in _CONTENT_IDS:
        found = body.xpath(f".//*[@id='{name}']")
        if found and text_length(found[0]) >= 0.5 * total:
            return found[0]
    return body


def _largest(nodes: list[etree._Element]) -> etree._Element | None:
    return max(nodes, key=text_length, default=None)
