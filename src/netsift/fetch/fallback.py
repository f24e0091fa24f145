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

from copy import deepcopy
from dataclasses import dataclass

import lxml.html
from lxml import etree

from ..models import ContentFormat
from .boilerplate import looks_like_boilerplate
from .markdown import render_nodes
from .measure import node_text
from .prunes import BASIC_CLEAN
from .tags import HEADING_TAGS
from .tree import body_of, drop

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
    for node in BASIC_CLEAN.select(work):  # asides, footers, scripts, cookie banners
        drop(node, keep_blank_tail=True)
    # menus and the blocks named as chrome (related products, share bars, newsletter boxes):
    # baseline read paragraphs only, so their headings and lists never reached it
    for node in [
        n for n in work.iter("nav", *_NAMED_BLOCKS) if n.tag == "nav" or looks_like_boilerplate(n)
    ]:
        drop(node, keep_blank_tail=True)
    for tier in (_articles(work), _text_blocks(work), _body(work)):
        if not tier:
            continue
        text = render_nodes(tier, "text").strip()
        if len(text) > MIN_CONTENT or tier[0].tag == "body":
            return Fallback(_as(tier, fmt, text), text)
    return Fallback("", "")


def _as(tier: list[etree._Element], fmt: ContentFormat, text: str) -> str:
    """A tier's nodes in `fmt`, as one `<div>` of them in HTML (the body as itself)."""
    if fmt == "text":
        return text
    if fmt == "markdown":
        return render_nodes(tier, "markdown").strip()
    if tier[0].tag == "body":
        return str(lxml.html.tostring(tier[0], encoding="unicode", method="html")).strip()
    inner = "".join(
        lxml.html.tostring(node, encoding="unicode", method="html", with_tail=False)
        for node in tier
    )
    return f"<div>{inner}</div>"


def _text_length(node: etree._Element) -> int:
    return len(node_text(node))


def _articles(tree: etree._Element) -> list[etree._Element]:
    """The page's outermost `<article>`s that hold content: the longest and those at least
    `ARTICLE_SHARE` of it (forum posts are alike in size, related teasers much smaller)."""
    found = [
        (node, length)
        for node in tree.iter("article")
        if not any(a.tag == "article" for a in node.iterancestors())
        and (length := _text_length(node)) > MIN_CONTENT
    ]
    if not found:
        return []
    cutoff = ARTICLE_SHARE * max(length for _, length in found)
    return [node for node, length in found if length >= cutoff]


def _text_blocks(tree: etree._Element) -> list[etree._Element]:
    """The page's text blocks in order, none inside another, menus (lists mostly of links)
    left out."""
    body = body_of(tree)
    if body is tree:
        return []
    kept: list[etree._Element] = []
    for node in body.iter(*_BLOCKS):
        if any(a.tag in _TEXT_BLOCKS for a in node.iterancestors()):
            continue
        if node.tag in ("ul", "ol") and _menu(node):
            continue
        kept.append(node)
    return kept


def _menu(node: etree._Element) -> bool:
    total = _text_length(node)
    linked = sum(_text_length(a) for a in node.iter("a"))
    return not total or linked > LINK_SHARE * total


def _body(tree: etree._Element) -> list[etree._Element]:
    body = body_of(tree)
    return [] if body is tree else [body]
