"""Pages built of blocks — listings, collections, service and pricing pages: every item,
product or plan is content, so they read as their whole main region once the chrome is pruned."""

from __future__ import annotations

from typing import Any

from lxml import etree

from ..models import ContentFormat
from .boilerplate import prune_boilerplate
from .dom import own_copy, render_node, run_trafilatura
from .region import find_main_region

__all__ = ["BLOCK_PAGES", "read_blocks"]

BLOCK_PAGES = frozenset({"listing", "collection", "service"})
_REGION_SHARE = 0.8  # trafilatura kept under this share of the main region: it lost the blocks


def _region(tree: etree._Element, url: str | None, fmt: ContentFormat) -> str:
    work = own_copy(tree, url)
    prune_boilerplate(work)
    return render_node(find_main_region(work), fmt)


def read_blocks(
    tree: etree._Element, url: str | None, fmt: ContentFormat, options: dict[str, Any]
) -> str | None:
    """The whole main region, unless trafilatura's densest-text pick holds about as much: then
    the region's extra is the page's chrome, not more blocks."""
    region = _region(tree, url, fmt)
    picked = run_trafilatura(tree, url, fmt, options)
    return (region if len(picked) < _REGION_SHARE * len(region) else picked) or None
