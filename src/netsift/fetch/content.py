"""Content: what a page's body reads as, by kind, and the Page one slice of it becomes; pure.

This is the reading half of a fetch, apart from the network half (fetcher.py), because it is
what the compute pool's workers run: the forkserver preloads this module (`compute.PRELOAD`),
and a worker needs none of httpx, the settings, the guarded HTTP layer or the render step that
the fetcher brings (~150 ms of CPU per forkserver start). Keep its imports to the models and
the readers' light dispatch (decode, sniff, JSON); each heavy reader (trafilatura, pypdf,
feedparser) is imported when its kind first arrives.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import datetime
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from ..errors import InvalidInput, UnsupportedContentType
from ..models import ContentFormat, FeedEntry, Link, Metadata, Page, PageType, Redirect
from .decode import decode_body, parse_content_type
from .json import extract_json
from .sniff import GENERIC_TYPES, describe_binary, detect_kind, sniff_mime

if TYPE_CHECKING:
    from ..render.shell import ShellVerdict
    from ..render.step import RenderOutcome
    from .wall import Wall

__all__ = ["Content", "Digest", "build_page", "extract_content", "paginate"]

D = TypeVar("D")


@dataclass(frozen=True)
class Content:
    """What one content type's extractor produced, before pagination."""

    title: str | None
    content: str
    metadata: Metadata
    page_type: PageType | None = None
    page_count: int | None = None
    entries: tuple[FeedEntry, ...] = ()
    links: tuple[Link, ...] = ()
    warnings: tuple[str, ...] = ()  # what the reader's bounds cut (fetch/bounds.py, pdf.py)
    digest: Any = None  # what a `Digest` asked be computed of `content`, where it was read
    wall: Wall | None = None  # a wall the page is instead of itself (fetch/wall.py)
    shell: ShellVerdict | None = None  # whether HTML needs a browser (render/shell.py)
    ocr_pages: tuple[int, ...] = ()  # a PDF's pages read by OCR (fetch/ocr.py)

    def __reduce__(self) -> tuple[Callable[[dict[str, Any]], Content], tuple[dict[str, Any]]]:
        """Pickled with its links as (url, text) pairs: a Content crosses from a compute worker
        to the serving process once a page, and pydantic's own pickling of the ~100 `Link`s a
        page has cost 0.38 ms of the 0.44 ms that crossing took (both ends), 0.05 ms as pairs
        (article set, in-process; rebuilding them costs 0.12 ms)."""
        state = dict(vars(self))
        state["links"] = tuple((link.url, link.text) for link in self.links)
        return (_unpickle_content, (state,))


def _unpickle_content(state: dict[str, Any]) -> Content:
    """A pickled Content (`Content.__reduce__`), its links rebuilt."""
    links = tuple(Link(url=url, text=text) for url, text in state.pop("links"))
    return Content(**state, links=links)


class Digest(Generic[D]):
    """A summary of a page's text that a caller wants computed where the page is read (a
    crawl's duplicate fingerprint and text sample): in the compute pool with the extraction,
    so the text makes no second round trip and the event loop does not hash it. `of` is given
    the text and its links' anchor texts, and must be a module-level function (the pool sends
    it by name); `value` is None until a fresh extraction ran it.
    """

    def __init__(self, of: Callable[[str, tuple[str, ...]], D]) -> None:
        self.of = of
        self.value: D | None = None


def paginate(content: str, *, start_index: int, max_length: int | None) -> tuple[str, int | None]:
    """Slice `content` explicitly; returns the slice and the next start index (None at the end)."""
    total = len(content)
    if start_index < 0:
        raise InvalidInput("start_index must be 0 or more")
    if max_length is not None and max_length < 1:
        raise InvalidInput("max_length must be 1 or more")
    if start_index and start_index >= total:
        raise InvalidInput(
            f"start_index {start_index} is past the end of the content (total_length {total})",
            details={"total_length": total},
        )
    end = total if max_length is None else min(total, start_index + max_length)
    return content[start_index:end], (end if end < total else None)


def extract_content(
    body: bytes,
    *,
    content_type: str,
    url: str,
    format: ContentFormat,
    page_type: str = "auto",
    keep_hidden: bool = False,
) -> Content:
    """Dispatch on the real kind of the body (declared type, sniffed when generic); pure.

    `page_type` ("auto" or a PageType) steers HTML extraction only; other kinds know their type.
    `keep_hidden` keeps the text an HTML page hides from its visitors (`hidden.py`).
    """
    mime, _ = parse_content_type(content_type)
    page_url = url or None
    kind = detect_kind(mime, body, url)
    # Each reader is imported when its kind first arrives: the HTML stack (trafilatura and
    # selectolax), the PDF reader (pypdf, PIL) and feedparser cost a command that never reads
    # one nothing (`netsift search` builds a Fetcher too).
    if kind == "html":
        from selectolax.lexbor import LexborHTMLParser

        from .html import extract_html
        from .links import page_links
        from .metadata import extract_metadata, with_byline

        text = decode_body(body, content_type).text
        extraction = extract_html(
            text, url=page_url, format=format, page_type=page_type, keep_hidden=keep_hidden
        )
        from ..render.shell import classify_shell

        read = extraction.read_html or text
        tree = LexborHTMLParser(read)
        metadata = with_byline(extract_metadata(tree, page_url), extraction.byline)
        links, dropped = page_links(tree, page_url)
        return Content(
            extraction.title or metadata.title,
            extraction.content,
            metadata,
            page_type=extraction.page_type,
            links=tuple(links),
            warnings=(*extraction.warnings, *_links_dropped(dropped)),
            wall=extraction.wall,
            shell=classify_shell(read, tree),  # last: it strips the tree's scripts in place
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
        return Content(
            pdf.title,
            pdf.text,
            meta,
            page_type="pdf",
            page_count=pdf.page_count,
            warnings=pdf.warnings,
            ocr_pages=pdf.ocr_pages,
        )
    if kind == "feed":
        from .feed import extract_feed

        feed = extract_feed(body, url)
        meta = Metadata(title=feed.title, description=feed.description, url=page_url, type="feed")
        entry_links: dict[str, Link] = {}
        for entry in feed.entries:
            if entry.url and entry.url.startswith(("http://", "https://")):
                entry_links.setdefault(entry.url, Link(url=entry.url, text=entry.title or ""))
        return Content(
            feed.title,
            feed.markdown,
            meta,
            "feed",
            entries=tuple(feed.entries),
            links=tuple(entry_links.values()),
        )
    actual = (sniff_mime(body) or mime) if mime in GENERIC_TYPES else mime
    raise UnsupportedContentType(
        f"{url or 'the document'} is {describe_binary(actual)}; "
        "netsift reads HTML, text, Markdown, JSON, PDF and feeds",
        details={"content_type": actual},
    )


def _links_dropped(dropped: int) -> tuple[str, ...]:
    from .links import MAX_LINKS

    if not dropped:
        return ()
    return (f"netsift kept the first {MAX_LINKS:,} of {MAX_LINKS + dropped:,} links",)


def _markdown_title(text: str) -> str | None:
    """The first level-one ATX heading in the opening lines of a Markdown document."""
    for line in text.lstrip("\ufeff").splitlines()[:50]:
        if line.startswith("# "):
            return " ".join(line[2:].strip(" #").split())[:500] or None
    return None


def build_page(
    content: Content,
    *,
    url: str,
    final_url: str,
    status: int,
    content_type: str,
    fetched_at: datetime,
    elapsed_ms: float,
    size: int,
    redirects: list[Redirect],
    format: ContentFormat,
    start_index: int,
    max_length: int | None,
    cached: bool = False,
    render: RenderOutcome | None = None,
    source: str | None = None,
) -> Page:
    """One slice of `content` as a Page; the hash and total length cover the whole content."""
    sliced, next_start = paginate(content.content, start_index=start_index, max_length=max_length)
    return Page(
        url=url,
        final_url=final_url,
        status=status,
        content_type=content_type,
        fetched_at=fetched_at,
        elapsed_ms=round(elapsed_ms, 1),
        bytes=size,
        redirects=redirects,
        title=content.title,
        format=format,
        content=sliced,
        truncated=next_start is not None,
        total_length=len(content.content),
        start_index=start_index,
        next_start_index=next_start,
        metadata=content.metadata,
        page_type=content.page_type,
        page_count=content.page_count,
        entries=list(content.entries),
        links=list(content.links),
        content_sha256=hashlib.sha256(content.content.encode()).hexdigest(),
        cached=cached,
        source=source,
        rendered=render.rendered if render else False,
        render_reason=render.reason if render else None,
        warnings=[*content.warnings, *([render.warning] if render and render.warning else [])],
        ocr_pages=list(content.ocr_pages),
    )


def _extract_content(
    body: bytes,
    content_type: str,
    url: str,
    format: ContentFormat,
    page_type: str,
    digest: Callable[[str, tuple[str, ...]], Any] | None = None,
    keep_hidden: bool = False,
) -> Content:
    """`extract_content` with positional arguments, as the pool passes them, and the digest
    of its text (and its links' texts) when one is asked for."""
    content = extract_content(
        body,
        content_type=content_type,
        url=url,
        format=format,
        page_type=page_type,
        keep_hidden=keep_hidden,
    )
    if digest is None:
        return content
    anchors = tuple(link.text for link in content.links)
    return replace(content, digest=digest(content.content, anchors))
