"""HTML main-content extraction: the readable part of a page as Markdown, text or clean HTML.

An agent reading a page wants the article, the docs section or the thread, not the menu, the
cookie banner and the footer. trafilatura does the boilerplate removal here; it is only ever
handed a string, so it never fetches anything itself.
"""

from __future__ import annotations

from dataclasses import dataclass

import lxml.html
import trafilatura
from lxml import etree

from ..models import ContentFormat, PageType

__all__ = ["HtmlExtraction", "extract_html"]

_OUTPUT = {"markdown": "markdown", "text": "txt", "html": "html"}


@dataclass(frozen=True)
class HtmlExtraction:
    """What the HTML extractor found: a title, the main content in one format, the page type."""

    title: str | None
    content: str
    page_type: PageType | None = None


def _title(text: str) -> str | None:
    try:
        tree = lxml.html.fromstring(text)
    except (etree.ParserError, ValueError):
        return None
    for xpath in ("//meta[@property='og:title']/@content", "//title//text()", "//h1//text()"):
        found = " ".join(str(v).strip() for v in tree.xpath(xpath) if str(v).strip())
        if found:
            return " ".join(found.split())
    return None


def extract_html(
    text: str, *, url: str | None, format: ContentFormat, page_type: str = "auto"
) -> HtmlExtraction:
    """Extract the main content of an HTML document; pure (no network, no files)."""
    if not text.strip():
        return HtmlExtraction(title=None, content="", page_type=None)
    content = trafilatura.extract(
        text,
        url=url,
        output_format=_OUTPUT[format],
        include_comments=False,
        include_tables=True,
        include_links=format != "text",
        include_formatting=format != "text",
        include_images=False,
        deduplicate=False,
    )
    return HtmlExtraction(title=_title(text), content=(content or "").strip(), page_type=None)
