"""What a body reads as, by its kind: the part of fetching that runs in the compute pool's workers.

Kept apart from fetcher.py (the network side: HTTP, robots, rendering, settings) so that a
worker process imports only the readers' dispatcher and the models, not httpx and the rest:
the forkserver preloads this module (`compute.PRELOAD`), and each reader (the HTML stack,
pypdf, feedparser) is imported when its kind first arrives.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import UnsupportedContentType
from ..models import ContentFormat, FeedEntry, Metadata, PageType
from .decode import decode_body, parse_content_type
from .json import extract_json
from .sniff import GENERIC_TYPES, describe_binary, detect_kind, sniff_mime

__all__ = ["Content", "extract_content"]


@dataclass(frozen=True)
class Content:
    """What one content type's extractor produced, before pagination."""

    title: str | None
    content: str
    metadata: Metadata
    page_type: PageType | None = None
    page_count: int | None = None
    entries: tuple[FeedEntry, ...] = ()


def extract_content(
    body: bytes,
    *,
    content_type: str,
    url: str,
    format: ContentFormat,
    page_type: str = "auto",
) -> Content:
    """Dispatch on the real kind of the body (declared type, sniffed when generic); pure.

    `page_type` ("auto" or a PageType) steers HTML extraction only; other kinds know their type.
    """
    mime, _ = parse_content_type(content_type)
    page_url = url or None
    kind = detect_kind(mime, body, url)
    # Each reader is imported when its kind first arrives: the HTML stack (trafilatura and
    # selectolax), the PDF reader (pypdf, PIL) and feedparser cost a command that never reads
    # one nothing (`netsift search` builds a Fetcher too).
    if kind == "html":
        from .html import extract_html
        from .metadata import extract_metadata

        text = decode_body(body, content_type).text
        extraction = extract_html(text, url=page_url, format=format, page_type=page_type)
        metadata = extract_metadata(text, page_url)
        return Content(
            extraction.title or metadata.title,
            extraction.content,
            metadata,
            page_type=extraction.page_type,
        )
    if kind in ("text", "markdown"):
        text = decode_body(body, content_type).text
        title = _markdown_title(text) if kind == "markdown" else None
        return Content(title, text, Metadata(title=title, url=page_url), page_type="text")
    if kind == "json":
        text = decode_body(body, content_type).text
        return Content(None, extract_json(text), Metadata(url=page_url), page_type="json")
    if kind == "pdf":
        from .pdf import extract_pdf

        pdf = extract_pdf(body)
        meta = Metadata(title=pdf.title, author=pdf.author, url=page_url, type="pdf")
        return Content(pdf.title, pdf.text, meta, page_type="pdf", page_count=pdf.page_count)
    if kind == "feed":
        from .feed import extract_feed

        feed = extract_feed(body, url)
        meta = Metadata(title=feed.title, description=feed.description, url=page_url, type="feed")
        return Content(feed.title, feed.markdown, meta, "feed", entries=tuple(feed.entries))
    actual = (sniff_mime(body) or mime) if mime in GENERIC_TYPES else mime
    raise UnsupportedContentType(
        f"{url or 'the document'} is {describe_binary(actual)}; "
        "netsift reads HTML, text, Markdown, JSON, PDF and feeds",
        details={"content_type": actual},
    )


def _markdown_title(text: str) -> str | None:
    """The first level-one ATX heading in the opening lines of a Markdown document."""
    for line in text.lstrip("\ufeff").splitlines()[:50]:
        if line.startswith("# "):
            return " ".join(line[2:].strip(" #").split())[:500] or None
    return None


def _extract_content(
    body: bytes, content_type: str, url: str, format: ContentFormat, page_type: str
) -> Content:
    """`extract_content` with positional arguments, as the pool passes them."""
    return extract_content(
        body, content_type=content_type, url=url, format=format, page_type=page_type
    )
