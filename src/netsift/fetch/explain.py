"""Why a page was read as its page type (`netsift meta --explain`).

The explanation is the extraction's own classification, not a second opinion: the page goes
through `extract_html` (parse within the bounds, drop what a browser would not show, classify)
exactly as a fetch reads it, and its `Classification` is explained (pagetype.py). Only HTML is
classified; other content types know their kind from the body.
"""

from __future__ import annotations

from ..models import HTML_PAGE_TYPES, PageType, PageTypeExplanation

__all__ = ["explain_page"]


def explain_page(
    source: str | None, *, page_type: PageType | None, url: str | None
) -> PageTypeExplanation | None:
    """The classification of `source` (the page as served, or as rendered) explained; for a
    body that is not HTML, that its content type decided. None when nothing was read."""
    if page_type is None:
        return None
    if page_type not in HTML_PAGE_TYPES or source is None:
        return PageTypeExplanation(
            type=page_type, confidence=1.0, rule="content-type: only HTML pages are classified"
        )
    from .html import extract_html

    classification = extract_html(source, url=url, format="text").classification
    if classification is None:  # the source no longer parses as a page
        return None
    return classification.explain()
