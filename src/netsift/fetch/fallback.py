"""The reading of last resort: a short page's main region, with its shape, never its JSON-LD.

When trafilatura's extractor keeps less than its minimum (250 characters: every short page),
its `baseline` takes over: JSON-LD's `articleBody` or FAQ answers first, else the page's
`<article>` or its paragraphs, each flattened into one line. On a short article that is its
headline, byline and paragraphs run together; on a page with an FAQ block, the block instead
of the page. This reads the same tiers (the dominant articles, else the page's text blocks,
else the whole body) as elements, rendered by `markdown.py` with their headings, paragraphs,
lists, tables, code and quotes. Structured data is metadata (`metadata.py`), never the body.
"""

from __future__ import annotations

from collections.abc import Iterable
from copy import deepcopy
from dataclasses import dataclass

import lxml.html
from lxml import etree
from trafilatura.settings import BASIC_CLEAN_XPATH

from ..models import ContentFormat
from .boilerplate import looks_like_boilerplate
from .markdown import render
from .measure import node_text
from .tags import HEADING_TAGS
from .tree import drop

__all__ = ["Fallback", "read_fallback"]

MIN_CONTENT = 100  # characters a tier must hold to be the reading (trafilatura's baseline's)
ARTICLE_SHARE = 0.2  # of the longest article: a smaller sibling is a teaser, a larger a post
LINK_SHARE = 0.5  # of a list's text in links: above it the list is a menu, not content

# the blocks a page's text is read from when it has no dominant article: baseline's paragraph
# tags, plus the headings, lists and tables it flattened away
_BLOCKS = ("p", "blockquote", "pre", "q", *HEADING_TAGS, "ul", "ol", "table")
_TEXT_BLOCKS = frozenset(_BLOCKS)
_NAMED_BLOCKS = ("div", "section", "ul", "ol", "header", "form", "p")  # chrome can be named


@dataclass(frozen=True)
class Fallback:
    """The region read, in the requested format and as plain text (whose length trafilatura
    compares with its own extraction's)."""

    content: str
    text: str


def read_fallback(tree: etree._Element, fmt: ContentFormat) -> Fallback:
    """The page's main region by baseline's tiers (JSON aside), its structure kept."""
    work = deepcopy(tree)
    for node in BASIC_CLEAN_XPATH(work):  # asides, footers, scripts, cookie banners
        drop(node, keep_blank_tail=True)
    # menus and the blocks named as chrome (related products, share bars, newsletter boxes):
    # baseline read paragraphs only, so their headings and lists never reached it
    for node in [
        n for n in work.iter("nav", *_NAMED_BLOCKS) if n.tag == "nav" or looks_like_boilerplate(n)
    ]:
        drop(node, keep_blank_tail=True)
    for container in (_articles(work), _text_blocks(work), _body(work)):
        if container is None:
            continue
        text = render(container, "text").strip()
        if len(text) > MIN_CONTENT or container.tag == "body":
            return Fallback(_as(container, fmt, text), text)
    return Fallback("", "")


def _as(container: etree._Element, fmt: ContentFormat, text: str) -> str:
    if fmt == "text":
        return text
    if fmt == "markdown":
        return render(container, "markdown").strip()
    return str(lxml.html.tostring(container, encoding="unicode", method="html")).strip()


def _text_length(node: etree._Element) -> int:
    return len(node_text(node))


def _articles(tree: etree._Element) -> etree._Element | None:
    """The page's outermost `<article>`s that hold content: the longest and those at least
    `ARTICLE_SHARE` of it (forum posts are alike in size, related teasers much smaller)."""
    found = [
        (node, length)
        for node in tree.iter("article")
        if not any(a.tag == "article" for a in node.iterancestors())
        and (length := _text_length(node)) > MIN_CONTENT
    ]
    if not found:
        return None
    cutoff = ARTICLE_SHARE * max(length for _, length in found)
    return _wrap(node for node, length in found if length >= cutoff)


def _text_blocks(tree: etree._Element) -> etree._Element | None:
    """The page's text blocks in order, none inside another, menus (lists mostly of links)
    left out."""
    body = tree.find(".//body")
    if body is None:
        return None
    kept: list[etree._Element] = []
    for node in body.iter(*_BLOCKS):
        if any(a.tag in _TEXT_BLOCKS for a in node.iterancestors()):
            continue
        if node.tag in ("ul", "ol") and _menu(node):
            continue
        kept.append(node)
    return _wrap(kept) if kept else None


def _menu(node: etree._Element) -> bool:
    total = _text_length(node)
    linked = sum(_text_length(a) for a in node.iter("a"))
    return not total or linked > LINK_SHARE * total


def _body(tree: etree._Element) -> etree._Element | None:
    return tree.find(".//body")


def _wrap(nodes: Iterable[etree._Element]) -> etree._Element:
    """A `<div>` holding copies of `nodes`, in their order."""
    container = etree.Element("div")
    for node in nodes:
        copy = deepcopy(node)
        copy.tail = None
        container.append(copy)
    return container
