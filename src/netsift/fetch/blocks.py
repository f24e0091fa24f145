"""Pages built of blocks — listings, collections, service and pricing pages: every item,
product or plan is content, so they read as their whole main region once the chrome is pruned."""

from __future__ import annotations

import re
from typing import Any

from lxml import etree

from ..models import ContentFormat
from .boilerplate import drop, prune_boilerplate
from .dom import own_copy, render_node, run_trafilatura
from .region import find_main_region, text_length

__all__ = ["BLOCK_PAGES", "prune_controls", "read_blocks"]

BLOCK_PAGES = frozenset({"listing", "collection", "service"})
_REGION_SHARE = 0.8  # trafilatura kept under this share of the main region: it lost the blocks
_CONTROL_WORDS = re.compile(
    r"(?:^|[-_\s])(?:filters?|facets?|faceted|refinements?|sort|sorting|sortby|sort-by)"
    r"(?:$|[-_\s])",
    re.IGNORECASE,
)
_REPEATS = 3  # a short link label on this many blocks is each block's button, not content
_LABEL_WORDS = 3
_DIGIT = re.compile(r"\d")


def _names(node: etree._Element) -> str:
    return f"{node.get('class') or ''} {node.get('id') or ''} {node.get('data-testid') or ''}"


def _words(node: etree._Element) -> str:
    return " ".join(" ".join(node.itertext()).split())


def prune_controls(region: etree._Element) -> None:
    """Drop what lets a reader sift the blocks rather than read them: filter, facet and sort
    panels (by their class, id or test-id words), and the short link label every card repeats
    ("Quick view", "Add to cart") — those lead to as many places as there are cards. A label
    that always leads to one place (a tag, a location) says what the cards are about, and
    prices or counts hold digits: both stay."""
    total = text_length(region)
    doomed = [
        node
        for node in region.iter()
        if isinstance(node.tag, str)
        and _CONTROL_WORDS.search(_names(node))
        and text_length(node) < 0.5 * total
    ]
    labels: dict[str, list[tuple[etree._Element, str | None]]] = {}
    for link in region.iter("a"):
        text = _words(link)
        if not text or len(text.split()) > _LABEL_WORDS or _DIGIT.search(text):
            continue
        holder, parent = link, link.getparent()
        if parent is not None and parent is not region and _words(parent) == text:
            holder = parent  # the outermost element holding only the label goes
        labels.setdefault(text.lower(), []).append((holder, link.get("href")))
    for found in labels.values():
        if len(found) >= _REPEATS and len({href for _, href in found}) >= 0.5 * len(found):
            doomed.extend(node for node, _ in found)
    for node in doomed:
        drop(node)


def _region(tree: etree._Element, url: str | None, fmt: ContentFormat) -> tuple[str, float]:
    """The pruned main region, and how much of the region before the controls went it keeps
    (the choice against trafilatura weighs the region as found: its controls hold text)."""
    work = own_copy(tree, url)
    prune_boilerplate(work)
    region = find_main_region(work)
    before = text_length(region)
    prune_controls(region)
    kept = text_length(region) / before if before else 1.0
    return render_node(region, fmt), kept


def read_blocks(
    tree: etree._Element, url: str | None, fmt: ContentFormat, options: dict[str, Any]
) -> str | None:
    """The whole main region, unless trafilatura's densest-text pick holds about as much: then
    the region's extra is the page's chrome, not more blocks."""
    region, kept = _region(tree, url, fmt)
    picked = run_trafilatura(tree, url, fmt, options)
    found = len(region) / kept if kept else 0.0
    return (region if len(picked) < _REGION_SHARE * found else picked) or None
