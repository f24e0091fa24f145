"""extract(): the fetch pipeline's reading half, for HTML you already have (no network)."""

from __future__ import annotations

import time
from datetime import UTC, datetime

from ..errors import UnsupportedContentType
from ..models import ContentFormat, Page
from .content import build_page, extract_content
from .sniff import describe_binary, detect_kind, sniff_mime

__all__ = ["extract", "refuse_unreadable"]


def refuse_unreadable(body: bytes, *, url: str | None = None, what: str = "the document") -> None:
    """A program, an image, an archive or a PDF has no HTML main content to read: say so
    (`unsupported_content_type`, as for a fetched one) instead of an empty page. Sniffed from
    the first bytes, as a page served without a content type is; `fetch` reads PDFs."""
    kind = detect_kind("application/octet-stream", body, url or "")
    if kind in ("binary", "pdf"):
        found = "application/pdf" if kind == "pdf" else sniff_mime(body)
        content_type = found or "application/octet-stream"
        raise UnsupportedContentType(
            f"{what} is {describe_binary(content_type)}; extract reads HTML and text",
            details={"content_type": content_type},
        )


def extract(
    html: str | bytes,
    *,
    url: str | None = None,
    format: ContentFormat = "markdown",
    max_length: int | None = None,
    start_index: int = 0,
    page_type: str = "auto",
    keep_hidden: bool = False,
) -> Page:
    """Extract main content and metadata from `html` exactly as `fetch` would; pure.

    A `str` is taken as already decoded; `bytes` are decoded the way a fetched body is (BOM,
    `<meta charset>`, then detection), since no Content-Type header came with them.
    `keep_hidden` keeps the text the page hides from its visitors (dropped by default).
    """
    if not isinstance(html, str | bytes):
        raise TypeError(f"extract() takes str or bytes, not {type(html).__name__}")
    started = time.perf_counter()
    body = html.encode("utf-8") if isinstance(html, str) else html
    content_type = "text/html; charset=utf-8" if isinstance(html, str) else "text/html"
    content = extract_content(
        body,
        content_type=content_type,
        url=url or "",
        format=format,
        page_type=page_type,
        keep_hidden=keep_hidden,
    )
    return build_page(
        content,
        url=url or "",
        final_url=url or "",
        status=200,
        content_type="text/html",
        fetched_at=datetime.now(UTC),
        elapsed_ms=(time.perf_counter() - started) * 1000,
        size=len(body),
        redirects=[],
        format=format,
        start_index=start_index,
        max_length=max_length,
    )
