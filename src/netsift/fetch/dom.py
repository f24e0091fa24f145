"""Tree steps every page-type reader shares: a copy of the body to prune, removing a node
without the text after it, rendering a node in the requested format, and the one way netsift
calls trafilatura."""

from __future__ import annotations

from copy import deepcopy
from typing import Any
from urllib.parse import urljoin

import lxml.html
import trafilatura
from lxml import etree

from ..models import ContentFormat
from . import stages
from .markdown import TextFormat, render

__all__ = [
    "body_of",
    "drop",
    "own_copy",
    "render_node",
    "resolve_links",
    "run_trafilatura",
    "string_length",
]

_KEPT_LINKS = ("#", "javascript:", "mailto:", "http://", "https://")
_OUTPUT = {"markdown": "markdown", "text": "txt", "html": "html"}
_OPTIONS = frozenset({"include_comments", "favor_precision"})


def run_trafilatura(
    tree: etree._Element, url: str | None, fmt: ContentFormat, options: dict[str, Any]
) -> str:
    """trafilatura on the already parsed tree (it neither fetches nor re-parses), tables kept."""
    if stages.SUPPORTED and set(options) <= _OPTIONS and isinstance(tree, lxml.html.HtmlElement):
        return stages.extract(tree, url, fmt, options)
    content = trafilatura.extract(
        tree,
        url=url,
        output_format=_OUTPUT[fmt],
        include_tables=True,
        include_links=fmt != "text",
        include_formatting=fmt != "text",
        include_images=False,
        deduplicate=False,
        **options,
    )
    return (content or "").strip()


_STRING_LENGTH = etree.XPath("string-length(.)")


def string_length(node: etree._Element) -> float:
    """Characters of text under `node`, scripts included, counted by libxml2 without building
    the string (the cheap measure for shares of a page)."""
    return float(_STRING_LENGTH(node))


def render_node(node: etree._Element, fmt: ContentFormat) -> str:
    if fmt == "html":
        return str(lxml.html.tostring(node, encoding="unicode", method="html")).strip()
    text_format: TextFormat = fmt
    return render(node, text_format).strip()


def body_of(tree: etree._Element) -> etree._Element:
    body = tree.find(".//body")
    return body if body is not None else tree


def resolve_links(root: etree._Element, url: str | None) -> None:
    """Make the links under `root` absolute against the page URL, those already absolute kept
    as written (`urljoin` on thousands of menu links was most of a body copy's cost)."""
    if not url:
        return
    for node in root.iter("a"):
        href = node.get("href")
        if href and not href.startswith(_KEPT_LINKS):
            try:
                node.set("href", urljoin(url, href.strip()))
            except ValueError:  # a control character lxml accepted from the page
                continue


def drop(node: etree._Element, *, keep_blank_tail: bool = False) -> None:
    """Remove `node` from its tree, keeping the text that follows it (a blank tail too when
    asked: between two inline elements it is the space that keeps their words apart)."""
    parent = node.getparent()
    if parent is None:
        return
    tail, prev = node.tail, node.getprevious()
    parent.remove(node)
    if tail and (keep_blank_tail or tail.strip()):
        if prev is not None:
            prev.tail = (prev.tail or "") + tail
        else:
            parent.text = (parent.text or "") + tail


def own_copy(tree: etree._Element, url: str | None) -> etree._Element:
    """A copy of the body to prune freely, its links made absolute against the page URL."""
    work = deepcopy(body_of(tree))
    resolve_links(work, url)
    return work
